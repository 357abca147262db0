import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import {
	conversionActionResourceName,
	fetchGoogleAdsTimeZone,
	googleAdapter,
	isValidTimeZone,
	normalizeCustomerId,
	type GoogleAdsConfig,
	type GoogleClickConversion,
} from '../../shared/platforms/google';
import { leadCapiRedisConnectionTest } from '../common/credentialTests';
import {
	dedupProperties,
	eventProperties,
	eventSubtitle,
	leadInputProperties,
	senderOptions,
} from '../common/descriptions';
import { executeSender, type SenderSpec } from '../common/executeSender';
import { GOOGLE_ADS_CREDENTIAL, googleAdsExecutor, readConnection } from './executor';
import { searchConversionActions } from './listSearch';

const googleSpec: SenderSpec<GoogleAdsConfig, GoogleClickConversion> = {
	adapter: googleAdapter,
	credentialName: GOOGLE_ADS_CREDENTIAL,
	executor: googleAdsExecutor,
	async readConfig(ctx, credentials, options, transport) {
		if (!credentials.oauthTokenData) {
			throw new NodeOperationError(
				ctx.getNode(),
				'The Google Ads Conversions credential is not connected: open it and sign in with Google',
			);
		}
		const connection = readConnection(ctx, credentials);
		const customerId = normalizeCustomerId(ctx.getNodeParameter('customerId', 0));
		if (!customerId) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Customer ID must be a Google Ads account ID: 10 digits, dashes allowed (e.g. 123-456-7890)',
			);
		}
		const conversionAction = conversionActionResourceName(
			customerId,
			ctx.getNodeParameter('conversionAction', 0, '', { extractValue: true }),
		);
		if (!conversionAction) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Conversion Action must be an action from the list or its numeric ID (Goals → Conversions → the action → ctId in the URL)',
			);
		}

		let timeZone = String(options.accountTimeZone ?? '').trim();
		if (timeZone && !isValidTimeZone(timeZone)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Account Time Zone "${timeZone}" is not an IANA time zone name (e.g. America/New_York)`,
			);
		}
		if (!timeZone) {
			const found = await fetchGoogleAdsTimeZone(connection, customerId, transport);
			if (!found.ok) {
				throw new NodeApiError(ctx.getNode(), (found.response ?? {}) as JsonObject, {
					message: `Could not read the time zone of Google Ads account ${customerId}: ${found.message}`,
					description:
						'conversionDateTime must carry the account\'s time zone. Check the credential, the Customer ID and (for manager accounts) the Login Customer ID, or set the "Account Time Zone" option to skip this call.',
				});
			}
			timeZone = found.timeZone;
		}

		return {
			...connection,
			customerId,
			conversionAction,
			timeZone,
			validateOnly: Boolean(options.validateOnly),
		};
	},
};

/** The standard events of the Event parameter (display name and the value sent). */
const STANDARD_EVENTS: INodePropertyOptions[] = [
	{ name: 'Contact', value: 'contact' },
	{ name: 'Lead', value: 'lead' },
	{ name: 'Partial Lead', value: 'partial_lead' },
	{ name: 'Purchase', value: 'purchase' },
	{ name: 'Registration', value: 'registration' },
	{ name: 'Schedule', value: 'schedule' },
];

/**
 * Google Ads click conversion upload, including enhanced conversions for leads (hashed email and
 * phone). Programmatic rather than declarative: it batches, hashes, claims events in the dedup
 * store and maps per-row partial failures back to items.
 */
export class GoogleAdsConversions implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Google Ads Conversions',
		name: 'googleAdsConversions',
		icon: { light: 'file:../../icons/google.svg', dark: 'file:../../icons/google.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: eventSubtitle(STANDARD_EVENTS),
		description:
			'Upload lead conversions to Google Ads (click conversions and enhanced conversions for leads), hashed and sent exactly once',
		defaults: { name: 'Google Ads Conversions' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'leadCapiGoogleAdsOAuth2Api', required: true },
			{
				name: 'leadCapiRedisApi',
				required: true,
				testedBy: 'leadCapiRedisConnectionTest',
				displayOptions: { show: { dedupStore: ['redis'] } },
			},
		],
		properties: [
			{
				displayName:
					'Google counts what the conversion action says, not an event name: use one "Import → Conversions from clicks" action per lead state (one node per action)',
				name: 'conversionActionNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Customer ID',
				name: 'customerId',
				type: 'string',
				default: '',
				required: true,
				placeholder: '123-456-7890',
				description:
					'The Google Ads account that owns the conversion action (shown top right in Google Ads). Dashes are removed.',
			},
			{
				displayName: 'Conversion Action',
				name: 'conversionAction',
				type: 'resourceLocator',
				default: { mode: 'list', value: '' },
				required: true,
				description:
					'The "Import → Conversions from clicks" action the leads count as. It is also the destination of event IDs and dedup keys.',
				modes: [
					{
						displayName: 'From List',
						name: 'list',
						type: 'list',
						placeholder: 'Select a conversion action...',
						typeOptions: { searchListMethod: 'searchConversionActions', searchable: true },
					},
					{
						displayName: 'By ID',
						name: 'id',
						type: 'string',
						placeholder: '987654321',
						validation: [
							{
								type: 'regex',
								properties: {
									regex: '^\\d+$',
									errorMessage: 'Digits only: the ctId of the action in Goals → Conversions',
								},
							},
						],
					},
				],
			},
			...eventProperties(
				STANDARD_EVENTS,
				'Label for results and event IDs: partial → partial_lead, lead → lead, contact → contact, schedule → schedule, registration → registration, purchase → purchase',
			),
			...leadInputProperties,
			...dedupProperties,
			senderOptions([
				{
					displayName: 'Account Time Zone',
					name: 'accountTimeZone',
					type: 'string',
					default: '',
					placeholder: 'America/New_York',
					description:
						"IANA time zone of the Google Ads account. Leave empty to read it from the account once per run; conversion times carry this zone's offset.",
				},
				{
					displayName: 'Validate Only',
					name: 'validateOnly',
					type: 'boolean',
					default: false,
					description:
						'Whether Google should only validate the conversions (test mode): nothing is recorded, and valid items come out as skipped, so a later real run sends them',
				},
			]),
		],
	};

	methods = {
		credentialTest: { leadCapiRedisConnectionTest },
		listSearch: { searchConversionActions },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return executeSender(this, googleSpec);
	}
}
