import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { SENDER_CREDENTIAL_TESTS } from '../common/credentialTests';
import {
	dedupProperties,
	eventProperties,
	eventSubtitleExpression,
	optionNameExpression,
	leadInputProperties,
	senderOptions,
	outboxProperties,
} from '../common/descriptions';
import { executeSender } from '../common/executeSender';
import { adjustProperties, executeAdjust } from './adjust';
import {
	DATA_MANAGER_CREDENTIAL,
	dataManagerProperties,
	dataManagerSpec,
	executeRequestStatus,
} from './dataManager';
import { GOOGLE_ADS_CREDENTIAL } from './executor';
import { googleSpec } from './googleAdsApi';
import { searchConversionActions } from './listSearch';

/** Shown only when sending (hidden for Get Request Status). */
const whenSending = (properties: INodeProperties[]): INodeProperties[] =>
	properties.map((p) => ({
		...p,
		displayOptions: {
			...p.displayOptions,
			hide: { ...p.displayOptions?.hide, operation: ['getRequestStatus'] },
		},
	}));

/** Not shown for Adjust (which names the original event instead). */
const withoutAdjust = (properties: INodeProperties[]): INodeProperties[] =>
	properties.map((p) => ({
		...p,
		displayOptions: {
			...p.displayOptions,
			hide: { ...p.displayOptions?.hide, operation: ['adjust'] },
		},
	}));

const API_OPTIONS = [
	{
		name: 'Data Manager API (Recommended)',
		value: 'dataManager',
		description:
			"Google's primary API for conversion imports: sign in with Google, no developer token. Needed by everyone whose developer token did not import offline conversions between December 2025 and May 2026.",
	},
	{
		name: 'Google Ads API (Allow-Listed Developer Tokens)',
		value: 'googleAdsApi',
		description:
			'Uses uploadClickConversions (and uploadConversionAdjustments, the only way to retract a conversion) with a developer token. Since 2026-06-15 Google accepts imports only from tokens allow-listed by earlier use; others get CUSTOMER_NOT_ALLOWLISTED_FOR_THIS_FEATURE.',
	},
];

/** The standard events of the Event parameter (display name and the value sent). */
const STANDARD_EVENTS: INodePropertyOptions[] = [
	{ name: 'Contact', value: 'contact' },
	{ name: 'Lead', value: 'lead' },
	{ name: 'Partial Lead', value: 'partial_lead' },
	{ name: 'Purchase', value: 'purchase' },
	{ name: 'Registration', value: 'registration' },
	{ name: 'Schedule', value: 'schedule' },
];

/** The Adjust operation's subtitle: the chosen adjustment by its display name. */
const ADJUSTMENT_LABEL = optionNameExpression(
	'$parameter["adjustment"]',
	adjustProperties.find((p) => p.name === 'adjustment')!.options as INodePropertyOptions[],
	'"Restatement (New Value)"',
);

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
		version: [1, 2],
		defaultVersion: 2,
		subtitle: `={{ $parameter["operation"] === "getRequestStatus" ? "Get request status" : $parameter["operation"] === "adjust" ? "Adjust: " + (${ADJUSTMENT_LABEL}) : ${eventSubtitleExpression(STANDARD_EVENTS)} }}`,
		description:
			'Upload lead conversions to Google Ads (click conversions and enhanced conversions for leads), hashed and sent exactly once',
		defaults: { name: 'Google Ads Conversions' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: DATA_MANAGER_CREDENTIAL,
				required: true,
				displayOptions: { show: { api: ['dataManager'] } },
			},
			{
				name: GOOGLE_ADS_CREDENTIAL,
				required: true,
				displayOptions: { show: { api: ['googleAdsApi'] } },
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
			{
				displayName: 'API',
				name: 'api',
				type: 'options',
				noDataExpression: true,
				options: API_OPTIONS,
				default: 'googleAdsApi',
				displayOptions: { show: { '@version': [1] } },
				description: 'Which Google API uploads the conversions',
			},
			{
				displayName: 'API',
				name: 'api',
				type: 'options',
				noDataExpression: true,
				options: API_OPTIONS,
				default: 'dataManager',
				displayOptions: { show: { '@version': [2] } },
				description: 'Which Google API uploads the conversions',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { api: ['dataManager'] } },
				options: [
					{
						name: 'Send Conversions',
						value: 'send',
						action: 'Send conversions',
						description: 'Upload lead conversions (events:ingest)',
					},
					{
						name: 'Adjust Conversions',
						value: 'adjust',
						action: 'Adjust conversions',
						description:
							'Restate the value of conversions already sent (retractions need the Google Ads API option)',
					},
					{
						name: 'Get Request Status',
						value: 'getRequestStatus',
						action: 'Get request status',
						description:
							'Read how Google processed an accepted request (requestStatus:retrieve): accepted is not yet counted',
					},
				],
				default: 'send',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { api: ['googleAdsApi'] } },
				options: [
					{
						name: 'Send Conversions',
						value: 'send',
						action: 'Send conversions',
						description: 'Upload lead conversions (uploadClickConversions)',
					},
					{
						name: 'Adjust Conversions',
						value: 'adjust',
						action: 'Adjust conversions',
						description:
							'Retract or restate conversions already sent (uploadConversionAdjustments)',
					},
				],
				default: 'send',
			},
			{
				displayName:
					'Google counts what the conversion action says, not an event name: use one "Import → Conversions from clicks" action per lead state (one node per action)',
				name: 'conversionActionNotice',
				type: 'notice',
				default: '',
				displayOptions: { hide: { operation: ['getRequestStatus'] } },
			},
			{
				displayName: 'Customer ID',
				name: 'customerId',
				type: 'string',
				default: '',
				required: true,
				placeholder: '123-456-7890',
				displayOptions: { hide: { operation: ['getRequestStatus'] } },
				description:
					'The Google Ads account that owns the conversion action (shown top right in Google Ads), not its manager. Dashes are removed.',
			},
			...dataManagerProperties,
			...adjustProperties,
			{
				displayName: 'Conversion Action',
				name: 'conversionAction',
				type: 'resourceLocator',
				default: { mode: 'list', value: '' },
				required: true,
				displayOptions: { show: { api: ['googleAdsApi'] } },
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
			...whenSending([
				...withoutAdjust(
					eventProperties(
						STANDARD_EVENTS,
						'Label for results and event IDs: partial → partial_lead, lead → lead, contact → contact, schedule → schedule, registration → registration, purchase → purchase',
					),
				),
				...leadInputProperties,
				...dedupProperties,
				...outboxProperties,
				senderOptions([
					{
						displayName: 'Account Time Zone',
						name: 'accountTimeZone',
						type: 'string',
						default: '',
						placeholder: 'America/New_York',
						displayOptions: { show: { '/api': ['googleAdsApi'] } },
						description:
							"IANA time zone of the Google Ads account. Leave empty to read it from the account once per run; conversion times carry this zone's offset.",
					},
					{
						displayName: 'Partial Lead Conversion Action ID',
						name: 'partialConversionActionId',
						type: 'string',
						default: '',
						placeholder: '987654322',
						description:
							'A separate "Conversions from clicks" action for partial leads (event partial_lead), by ID (the ctId in Goals → Conversions). Empty: partial leads are skipped, because the conversion action above would count them as leads.',
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
			]),
		],
	};

	methods = {
		credentialTest: SENDER_CREDENTIAL_TESTS,
		listSearch: { searchConversionActions },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const api = this.getNodeParameter('api', 0, 'googleAdsApi') as string;
		const operation = this.getNodeParameter('operation', 0, 'send');
		if (operation === 'adjust')
			return executeAdjust(this, api === 'googleAdsApi' ? 'googleAdsApi' : 'dataManager');
		if (api === 'googleAdsApi') return executeSender(this, googleSpec);
		if (operation === 'getRequestStatus') return executeRequestStatus(this);
		return executeSender(this, dataManagerSpec);
	}
}
