import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { pinterest, pinterestAdapter } from '../../shared';
import { leadCapiPinterestApiTest, SENDER_CREDENTIAL_TESTS } from '../common/credentialTests';
import {
	dedupProperties,
	eventProperties,
	eventSubtitle,
	leadInputProperties,
	senderOptions,
	outboxProperties,
} from '../common/descriptions';
import { executeSender, type SenderSpec } from '../common/executeSender';

const pinterestSpec: SenderSpec<pinterest.PinterestConfig, pinterest.PinterestEvent> = {
	adapter: pinterestAdapter,
	credentialName: 'leadCapiPinterestApi',
	readConfig(ctx, credentials, options) {
		const adAccountId = String(credentials.adAccountId ?? '').trim();
		const accessToken = String(credentials.accessToken ?? '');
		if (!adAccountId || !accessToken) {
			throw new NodeOperationError(
				ctx.getNode(),
				'The Pinterest Conversions API credential needs an Ad Account ID and a Conversion Access Token',
			);
		}
		return {
			adAccountId,
			accessToken,
			baseUrl: credentials.baseUrl ? String(credentials.baseUrl) : undefined,
			testMode: Boolean(options.testMode),
			actionSource: ctx.getNodeParameter(
				'actionSource',
				0,
			) as pinterest.PinterestConfig['actionSource'],
			limitedDataProcessing:
				(options.limitedDataProcessing as pinterest.PinterestConfig['limitedDataProcessing']) ??
				'auto',
		};
	},
	eventName: pinterest.pinterestEventName,
};

/** The standard events of the Event parameter (display name and the value sent). */
const STANDARD_EVENTS: INodePropertyOptions[] = [
	{ name: 'Checkout', value: 'checkout' },
	{
		name: 'Contact (Custom Event)',
		value: 'custom:contact',
		description: 'Sent as event_name custom with content_name contact',
	},
	{ name: 'Lead', value: 'lead' },
	{
		name: 'Partial Lead (Custom Event)',
		value: 'custom:partial_lead',
		description: 'Sent as event_name custom with content_name partial_lead',
	},
	{
		name: 'Schedule (Custom Event)',
		value: 'custom:schedule',
		description: 'Sent as event_name custom with content_name schedule',
	},
	{ name: 'Signup', value: 'signup' },
	{ name: 'Subscribe', value: 'subscribe' },
];

/**
 * Pinterest Conversions API v5 sender. Programmatic rather than declarative: it batches,
 * hashes, claims events in the dedup store and maps Pinterest's per-event results to items.
 */
export class PinterestConversions implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Pinterest Conversions',
		name: 'pinterestConversions',
		icon: { light: 'file:../../icons/pinterest.svg', dark: 'file:../../icons/pinterest.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: eventSubtitle(STANDARD_EVENTS),
		description:
			'Send lead conversions to the Pinterest Conversions API: normalized, hashed and sent exactly once',
		defaults: { name: 'Pinterest Conversions' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'leadCapiPinterestApi', required: true, testedBy: 'leadCapiPinterestApiTest' },
			{
				name: 'leadCapiRedisApi',
				required: true,
				testedBy: 'leadCapiRedisConnectionTest',
				displayOptions: { show: { dedupStore: ['redis'] } },
			},
			{
				name: 'leadCapiOutboxApi',
				required: false,
				testedBy: 'leadCapiOutboxKeyTest',
				displayOptions: { show: { dedupStore: ['redis'], retryLater: ['outbox'] } },
			},
		],
		properties: [
			...eventProperties(
				STANDARD_EVENTS,
				'Partial → custom (partial_lead), lead → lead, contact → custom (contact), schedule → custom (schedule), registration → signup, purchase → checkout',
				{
					placeholder: 'demo_booked',
					description:
						'A Pinterest event name (lead, signup, checkout…) is sent as is; any other name is sent as event_name custom with this name in custom_data.content_name',
				},
			),
			{
				displayName: 'Action Source',
				name: 'actionSource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'App (Android)', value: 'app_android' },
					{ name: 'App (iOS)', value: 'app_ios' },
					{
						name: 'Auto',
						value: 'auto',
						description: 'Web when the lead has a page URL and a user agent, otherwise Offline',
					},
					{ name: 'Offline', value: 'offline' },
					{ name: 'Web', value: 'web' },
				],
				default: 'auto',
			},
			...leadInputProperties,
			...dedupProperties,
			...outboxProperties,
			senderOptions([
				{
					displayName: 'Limited Data Processing',
					name: 'limitedDataProcessing',
					type: 'options',
					options: [
						{
							name: 'Always',
							value: 'always',
							description: 'Flag every event with opt_out_type LDP',
						},
						{
							name: 'Auto',
							value: 'auto',
							description:
								'Flag leads in California, US (and leads whose consent says limited_data_use) with opt_out_type LDP',
						},
						{ name: 'Never', value: 'never', description: 'Send no opt_out_type' },
					],
					default: 'auto',
				},
				{
					displayName: 'Test Mode',
					name: 'testMode',
					type: 'boolean',
					default: false,
					description:
						'Whether to send with ?test=true: Pinterest validates the events and answers as usual but records nothing. Events are not remembered as sent, so turning it off sends them for real.',
				},
			]),
		],
	};

	methods = {
		credentialTest: { ...SENDER_CREDENTIAL_TESTS, leadCapiPinterestApiTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return executeSender(this, pinterestSpec);
	}
}
