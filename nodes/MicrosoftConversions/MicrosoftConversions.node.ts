import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import {
	MICROSOFT_UNKNOWN_CONSENT_DEFAULT,
	microsoftAdapter,
	type MicrosoftConfig,
	type MicrosoftEvent,
} from '../../shared/platforms/microsoft';
import { leadCapiMicrosoftApiTest, SENDER_CREDENTIAL_TESTS } from '../common/credentialTests';
import {
	dedupProperties,
	eventProperties,
	eventSubtitleExpression,
	leadInputProperties,
	senderOptions,
	outboxProperties,
} from '../common/descriptions';
import { executeSender, type SenderSpec } from '../common/executeSender';

const microsoftSpec: SenderSpec<MicrosoftConfig, MicrosoftEvent> = {
	adapter: microsoftAdapter,
	credentialName: 'leadCapiMicrosoftApi',
	readConfig(ctx, credentials, options) {
		const uetTagId = String(credentials.uetTagId ?? '').trim();
		const apiToken = String(credentials.apiToken ?? '').trim();
		if (!uetTagId || !apiToken) {
			throw new NodeOperationError(
				ctx.getNode(),
				'The Microsoft Conversions API credential needs a UET Tag ID and an API Token',
			);
		}
		return {
			uetTagId,
			apiToken,
			baseUrl: credentials.baseUrl ? String(credentials.baseUrl) : undefined,
			eventType: ctx.getNodeParameter('eventType', 0) as MicrosoftConfig['eventType'],
			unknownConsent:
				(options.unknownConsent as MicrosoftConfig['unknownConsent']) ??
				MICROSOFT_UNKNOWN_CONSENT_DEFAULT,
		};
	},
};

/** The standard events of the Event parameter (display name and the value sent). */
const STANDARD_EVENTS: INodePropertyOptions[] = [
	{ name: 'Contact', value: 'contact' },
	{ name: 'Lead', value: 'lead' },
	{ name: 'Partial Lead', value: 'partial_lead' },
	{ name: 'Purchase', value: 'purchase' },
	{ name: 'Schedule', value: 'schedule' },
	{ name: 'Sign Up', value: 'sign_up' },
];

/**
 * Microsoft Advertising UET Conversions API sender. Programmatic rather than declarative: it
 * batches, hashes, claims events in the dedup store and maps per-event results back to items.
 */
export class MicrosoftConversions implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Microsoft Conversions',
		name: 'microsoftConversions',
		icon: { light: 'file:../../icons/microsoft.svg', dark: 'file:../../icons/microsoft.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: `={{ $parameter["eventType"] === "pageLoad" ? "Page load event" : ${eventSubtitleExpression(STANDARD_EVENTS)} }}`,
		description:
			'Send lead conversions to the Microsoft Advertising UET Conversions API: normalized, hashed and sent exactly once',
		defaults: { name: 'Microsoft Conversions' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'leadCapiMicrosoftApi',
				required: true,
				testedBy: 'leadCapiMicrosoftApiTest',
			},
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
				'Partial → partial_lead, lead → lead, contact → contact, schedule → schedule, registration → sign_up, purchase → purchase',
				{
					placeholder: 'qualified_lead',
					description: 'The event action of the UET custom-event conversion goal it counts for',
				},
			),
			{
				displayName: 'Event Type',
				name: 'eventType',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Custom',
						value: 'custom',
						description:
							'A custom event named by the Event parameter, for custom-event conversion goals',
					},
					{
						name: 'Page Load',
						value: 'pageLoad',
						description:
							"A page load of the lead's page URL (source.page_url), for destination-URL goals. Items without a page URL fail.",
					},
				],
				default: 'custom',
			},
			{
				displayName:
					'The event name is the event action of a UET custom-event conversion goal: create a goal per name you send (e.g. action equals "lead")',
				name: 'goalNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { eventType: ['custom'] } },
			},
			...leadInputProperties,
			...dedupProperties,
			...outboxProperties,
			senderOptions([
				{
					displayName: 'Ad Storage Consent When Unknown',
					name: 'unknownConsent',
					type: 'options',
					options: [
						{
							name: "By Region (Microsoft's Default)",
							value: 'auto',
							description:
								"Microsoft's consent-mode default: D for leads in the EEA, the UK or Switzerland and for leads whose country is unknown, G elsewhere",
						},
						{
							name: 'Denied (D)',
							value: 'D',
							description:
								'Leads without any consent signal are sent with adStorageConsent D: no consent is claimed that was not given',
						},
						{
							name: 'Granted (G)',
							value: 'G',
							description:
								'Leads without any consent signal are sent with adStorageConsent G (only where you need no consent or collect it upstream)',
						},
					],
					default: 'auto',
					description:
						'What to send as adStorageConsent for leads whose consent.ad_user_data and consent.ad_personalization are both missing. A denial always sends D; a lead whose ad_user_data is denied is not sent at all.',
				},
			]),
		],
	};

	methods = {
		credentialTest: { ...SENDER_CREDENTIAL_TESTS, leadCapiMicrosoftApiTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return executeSender(this, microsoftSpec);
	}
}
