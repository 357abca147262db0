import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { meta, metaAdapter } from '../../shared';
import { leadCapiMetaApiTest, SENDER_CREDENTIAL_TESTS } from '../common/credentialTests';
import {
	dedupProperties,
	eventProperties,
	eventSubtitle,
	leadInputProperties,
	senderOptions,
	outboxProperties,
} from '../common/descriptions';
import { executeSender, type SenderSpec } from '../common/executeSender';

const metaSpec: SenderSpec<meta.MetaConfig, meta.MetaServerEvent> = {
	adapter: metaAdapter,
	credentialName: 'leadCapiMetaApi',
	readConfig(ctx, credentials, options) {
		const pixelId = String(credentials.pixelId ?? '').trim();
		const accessToken = String(credentials.accessToken ?? '');
		if (!pixelId || !accessToken) {
			throw new NodeOperationError(
				ctx.getNode(),
				'The Meta Conversions API credential needs a Dataset (Pixel) ID and an Access Token',
			);
		}
		return {
			pixelId,
			accessToken,
			appSecret: credentials.appSecret ? String(credentials.appSecret) : undefined,
			apiVersion: credentials.apiVersion ? String(credentials.apiVersion) : undefined,
			baseUrl: credentials.baseUrl ? String(credentials.baseUrl) : undefined,
			testEventCode: options.testEventCode ? String(options.testEventCode) : undefined,
			...eventSourceConfig(ctx),
			limitedDataUse: (options.limitedDataUse as meta.MetaConfig['limitedDataUse']) ?? 'auto',
		};
	},
};

/**
 * Event Source: Server (website and other server events) or CRM (Meta's Conversion Leads: stage
 * events with action_source system_generated, whatever Action Source says).
 */
function eventSourceConfig(
	ctx: IExecuteFunctions,
): Pick<meta.MetaConfig, 'actionSource' | 'eventSource' | 'leadEventSource'> {
	const eventSource = ctx.getNodeParameter('eventSource', 0, 'server') as 'server' | 'crm';
	if (eventSource !== 'crm') {
		return {
			eventSource,
			actionSource: ctx.getNodeParameter('actionSource', 0) as meta.MetaConfig['actionSource'],
		};
	}
	const leadEventSource = String(ctx.getNodeParameter('leadEventSource', 0, '')).trim();
	if (!leadEventSource) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Event Source "CRM" needs the Lead Event Source: the name of your CRM (e.g. HubSpot)',
		);
	}
	return { eventSource, actionSource: 'system_generated', leadEventSource };
}

/** The standard events of the Event parameter (display name and the value sent). */
const STANDARD_EVENTS: INodePropertyOptions[] = [
		{ name: 'Complete Registration', value: 'CompleteRegistration' },
		{ name: 'Contact', value: 'Contact' },
		{ name: 'Lead', value: 'Lead' },
		{ name: 'Purchase', value: 'Purchase' },
		{ name: 'Schedule', value: 'Schedule' },
		{ name: 'Start Trial', value: 'StartTrial' },
		{ name: 'Submit Application', value: 'SubmitApplication' },
		{ name: 'Subscribe', value: 'Subscribe' },
	];

/**
 * Meta Conversions API sender. Programmatic rather than declarative: it batches, hashes,
 * claims events in the dedup store and maps per-event results back to items.
 */
export class MetaConversions implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Meta Conversions',
		name: 'metaConversions',
		icon: { light: 'file:../../icons/meta.svg', dark: 'file:../../icons/meta.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: eventSubtitle(STANDARD_EVENTS),
		description:
			'Send lead conversions to the Meta Conversions API: normalized, hashed and sent exactly once',
		defaults: { name: 'Meta Conversions' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'leadCapiMetaApi', required: true, testedBy: 'leadCapiMetaApiTest' },
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
				'Partial → PartialLead, lead → Lead, contact → Contact, schedule → Schedule, registration → CompleteRegistration, purchase → Purchase',
			),
			{
				displayName: 'Event Source',
				name: 'eventSource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Server',
						value: 'server',
						description: 'Website and other server events of your leads',
					},
					{
						name: 'CRM (Conversion Leads)',
						value: 'crm',
						description:
							"Stage events of leads from Meta's instant forms, for the Conversion Leads goal: Meta's lead ID, action_source system_generated, event_source crm",
					},
				],
				default: 'server',
			},
			{
				displayName: 'Lead Event Source',
				name: 'leadEventSource',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'HubSpot',
				description:
					"The CRM your leads live in, sent as custom_data.lead_event_source. Meta's lead ID is read from attributes.meta_lead_id.",
				displayOptions: { show: { eventSource: ['crm'] } },
			},
			{
				displayName: 'Action Source',
				name: 'actionSource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'App', value: 'app' },
					{
						name: 'Auto',
						value: 'auto',
						description:
							'Website when the lead has a page URL and a user agent, otherwise System Generated',
					},
					{ name: 'Business Messaging', value: 'business_messaging' },
					{ name: 'Chat', value: 'chat' },
					{ name: 'Email', value: 'email' },
					{ name: 'Other', value: 'other' },
					{ name: 'Phone Call', value: 'phone_call' },
					{ name: 'Physical Store', value: 'physical_store' },
					{ name: 'System Generated', value: 'system_generated' },
					{ name: 'Website', value: 'website' },
				],
				default: 'auto',
				displayOptions: { show: { eventSource: ['server'] } },
			},
			...leadInputProperties,
			...dedupProperties,
			...outboxProperties,
			senderOptions([
				{
					displayName: 'Limited Data Use',
					name: 'limitedDataUse',
					type: 'options',
					options: [
						{
							name: 'Always',
							value: 'always',
							description: 'Flag every event for Limited Data Use (Meta geolocates the state)',
						},
						{
							name: 'Auto',
							value: 'auto',
							description:
								'Flag leads in California, US (and leads whose consent says limited_data_use)',
						},
						{ name: 'Never', value: 'never', description: 'Send data_processing_options: []' },
					],
					default: 'auto',
				},
				{
					displayName: 'Test Event Code',
					name: 'testEventCode',
					type: 'string',
					default: '',
					placeholder: 'TEST12345',
					description:
						'From Events Manager → Test Events. Meta does NOT drop test events: remove it in production.',
				},
			]),
		],
	};

	methods = {
		credentialTest: { ...SENDER_CREDENTIAL_TESTS, leadCapiMetaApiTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return executeSender(this, metaSpec);
	}
}
