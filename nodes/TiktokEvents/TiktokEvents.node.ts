import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import {
	TIKTOK_EVENT_SOURCES,
	tiktokAdapter,
	type TiktokConfig,
	type TiktokEvent,
	type TiktokEventSource,
} from '../../shared/platforms/tiktok';
import { leadCapiTiktokApiTest, SENDER_CREDENTIAL_TESTS } from '../common/credentialTests';
import {
	dedupProperties,
	eventProperties,
	eventSubtitle,
	leadInputProperties,
	senderOptions,
	outboxProperties,
} from '../common/descriptions';
import { executeSender, type SenderSpec } from '../common/executeSender';

const tiktokSpec: SenderSpec<TiktokConfig, TiktokEvent> = {
	adapter: tiktokAdapter,
	credentialName: 'leadCapiTiktokApi',
	readConfig(ctx, credentials, options) {
		const pixelCode = String(credentials.pixelCode ?? '').trim();
		const accessToken = String(credentials.accessToken ?? '');
		const crmEventSetId = String(credentials.crmEventSetId ?? '').trim();
		if (!pixelCode || !accessToken) {
			throw new NodeOperationError(
				ctx.getNode(),
				'The TikTok Events API credential needs a Pixel Code and an Access Token',
			);
		}
		const eventSource = ctx.getNodeParameter('eventSource', 0) as TiktokEventSource;
		if (!(TIKTOK_EVENT_SOURCES as readonly string[]).includes(eventSource)) {
			throw new NodeOperationError(ctx.getNode(), `Unknown event source "${eventSource}"`);
		}
		if (eventSource === 'crm' && !crmEventSetId) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Event Source "CRM" sends to a CRM event set: add its ID to the TikTok Events API credential',
			);
		}
		const leadEventSource =
			eventSource === 'crm' ? String(ctx.getNodeParameter('leadEventSource', 0, '')).trim() : '';
		return {
			pixelCode,
			accessToken,
			crmEventSetId: crmEventSetId || undefined,
			baseUrl: credentials.baseUrl ? String(credentials.baseUrl) : undefined,
			eventSource,
			leadEventSource: leadEventSource || undefined,
			testEventCode: options.testEventCode ? String(options.testEventCode).trim() : undefined,
			limitedDataUse: (options.limitedDataUse as TiktokConfig['limitedDataUse']) ?? 'auto',
		};
	},
};

/** The standard events of the Event parameter (display name and the value sent). */
const STANDARD_EVENTS: INodePropertyOptions[] = [
	{ name: 'Complete Registration', value: 'CompleteRegistration' },
	{ name: 'Contact', value: 'Contact' },
	{ name: 'Purchase', value: 'Purchase' },
	{ name: 'Schedule', value: 'Schedule' },
	{ name: 'Submit Form', value: 'SubmitForm' },
	{ name: 'Subscribe', value: 'Subscribe' },
];

/**
 * TikTok Events API 2.0 sender. Programmatic rather than declarative: it batches, hashes,
 * claims events in the dedup store and maps per-event results back to items.
 */
export class TiktokEvents implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'TikTok Events',
		name: 'tiktokEvents',
		icon: { light: 'file:../../icons/tiktok.svg', dark: 'file:../../icons/tiktok.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: eventSubtitle(STANDARD_EVENTS),
		description:
			'Send lead conversions to the TikTok Events API: normalized, hashed and sent exactly once',
		defaults: { name: 'TikTok Events' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'leadCapiTiktokApi', required: true, testedBy: 'leadCapiTiktokApiTest' },
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
				'Partial → PartialLead (custom event, not optimisable), lead → SubmitForm, contact → Contact, schedule → Schedule, registration → CompleteRegistration, purchase → Purchase',
			),
			{
				displayName: 'Event Source',
				name: 'eventSource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'CRM',
						value: 'crm',
						description:
							'Lead-stage events from a CRM, sent to the CRM event set ID of the credential',
					},
					{
						name: 'Web',
						value: 'web',
						description: 'Website events, sent to the pixel code of the credential',
					},
				],
				default: 'web',
			},
			{
				displayName: 'Lead Event Source',
				name: 'leadEventSource',
				type: 'string',
				default: '',
				placeholder: 'HubSpot',
				description:
					'The CRM your leads live in, sent as lead.lead_event_source. The TikTok lead ID is read from attributes.tiktok_lead_id.',
				displayOptions: { show: { eventSource: ['crm'] } },
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
							description: 'Send limited_data_use: true with every event',
						},
						{
							name: 'Auto',
							value: 'auto',
							description:
								'True for leads in California, US, and leads whose consent says limited_data_use',
						},
						{
							name: 'Never',
							value: 'never',
							description: 'Send limited_data_use: false with every event',
						},
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
						'From Events Manager → Test Events. Events sent with it show up there and are, by third-party accounts, not kept as live data: remove it in production.',
				},
			]),
		],
	};

	methods = {
		credentialTest: { ...SENDER_CREDENTIAL_TESTS, leadCapiTiktokApiTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return executeSender(this, tiktokSpec);
	}
}
