import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import {
	dispatch,
	namespacedPrefix,
	readClientKey,
	readLeadRecord,
	Transport,
	withRecordFields,
	type DispatchItem,
	type ItemResult,
	type PlatformAdapter,
} from '../../shared';
import {
	RETRACTION_UNSUPPORTED,
	adjustmentEventName,
	dataManagerRestatementAdapter,
	googleAdjustmentAdapter,
	googleDataManagerAdapter,
	type GoogleAdjustment,
} from '../../shared/platforms/google';
import { resolveStore } from '../common/dedupStores';
import { markOwnDestinations } from '../common/workflowScope';
import { dispatchOptions, failedItemError, lostDigits, type SenderOptions } from '../common/executeSender';
import { DATA_MANAGER_CREDENTIAL, dataManagerSpec } from './dataManager';
import { GOOGLE_ADS_CREDENTIAL, googleAdsExecutor } from './executor';
import { googleSpec } from './googleAdsApi';
import { recordDataManagerRequests } from './requestLog';

export type GoogleApi = 'dataManager' | 'googleAdsApi';

const showAdjust = { show: { operation: ['adjust'] } };

/** The parameters only the Adjust operation has. */
export const adjustProperties: INodeProperties[] = [
	{
		displayName: 'Adjustment',
		name: 'adjustment',
		type: 'options',
		noDataExpression: true,
		displayOptions: showAdjust,
		options: [
			{
				name: 'Restatement (New Value)',
				value: 'restatement',
				description:
					"Change the value of a conversion already sent (e.g. won for a new amount): the lead's value.amount and value.currency",
			},
			{
				name: 'Retraction (Remove)',
				value: 'retraction',
				description:
					'Remove a conversion (lead lost or refunded). Only through the Google Ads API option (an allow-listed developer token): Data Manager has no retraction, its items come out skipped with the reason.',
			},
		],
		default: 'restatement',
	},
	{
		displayName: 'Original Event',
		name: 'originalEvent',
		type: 'options',
		noDataExpression: true,
		displayOptions: showAdjust,
		options: [
			{ name: 'Contact', value: 'contact' },
			{ name: 'Lead', value: 'lead' },
			{ name: 'Partial Lead', value: 'partial_lead' },
			{ name: 'Purchase', value: 'purchase' },
			{ name: 'Registration', value: 'registration' },
			{ name: 'Schedule', value: 'schedule' },
		],
		default: 'lead',
		description:
			'The event the conversion was sent as (with this node, this Customer ID and conversion action): its transaction ID is what Google adjusts',
	},
	{
		displayName: 'Conversion Time',
		name: 'conversionTime',
		type: 'string',
		default: '',
		placeholder: '2026-11-01T10:00:00Z',
		displayOptions: showAdjust,
		description:
			"When the original conversion happened (ISO-8601 or epoch). Empty: the lead's occurred_at. Google takes adjustments only up to 54 days after the conversion: older ones come out skipped with the reason.",
	},
];

function readRecords(
	ctx: IExecuteFunctions,
	options: SenderOptions,
	adjustment: GoogleAdjustment,
	original: string,
): DispatchItem[] {
	const mapped = ctx.getNodeParameter('leadInput', 0) === 'map';
	const recordField = (options.recordField ?? '').trim();
	return ctx.getInputData().map((item, i) => {
		let record = readLeadRecord(item.json, recordField);
		if (mapped) {
			const fields = ctx.getNodeParameter('fieldOverrides.field', i, []) as Array<{
				path: string;
				value: unknown;
			}>;
			record = withRecordFields(record ?? {}, fields);
		}
		if (!record)
			return { record: {}, eventName: '', error: 'input item is not a lead record object' };
		const idProblem = lostDigits(record);
		if (idProblem) return { record, eventName: '', error: idProblem };
		// The conversion's own time: what the window is measured from, and Data Manager's event time.
		const conversionTime = ctx.getNodeParameter('conversionTime', i, '') as unknown;
		if (conversionTime !== '' && conversionTime !== null && conversionTime !== undefined)
			record = { ...record, occurred_at: conversionTime };
		return { record, eventName: adjustmentEventName(adjustment, original, record.value) };
	});
}

function output(results: ItemResult[], adjustment: GoogleAdjustment): INodeExecutionData[][] {
	return [
		results.map((result, i) => ({
			json: { ...result, adjustment } as unknown as IDataObject,
			pairedItem: { item: i },
		})),
	];
}

/** Data Manager has no retraction: every item is skipped with the reason, nothing is sent. */
function refuseRetractions(items: DispatchItem[], original: string): ItemResult[] {
	return items.map((item) => ({
		status: 'skipped',
		platform: 'google',
		destination: '',
		event_name: `retraction:${original}`,
		match_keys: [],
		warnings: [],
		error: item.error ?? RETRACTION_UNSUPPORTED,
	}));
}

/** The adapter, credential and config of this run's API. */
async function setup(
	ctx: IExecuteFunctions,
	api: GoogleApi,
	adjustment: GoogleAdjustment,
	original: string,
	options: SenderOptions,
): Promise<{ adapter: PlatformAdapter<unknown, unknown>; config: unknown; transport: Transport }> {
	const credentialName = api === 'googleAdsApi' ? GOOGLE_ADS_CREDENTIAL : DATA_MANAGER_CREDENTIAL;
	const transport = new Transport({ executor: googleAdsExecutor(ctx, credentialName) });
	const credentials = await ctx.getCredentials(credentialName);
	const clientKey = readClientKey(options.clientKey);
	if (api === 'googleAdsApi') {
		const config = await googleSpec.readConfig(ctx, credentials, options, transport);
		const adapter = googleAdjustmentAdapter(adjustment, original, Date.now, clientKey);
		return { adapter: adapter as PlatformAdapter<unknown, unknown>, config, transport };
	}
	const config = await dataManagerSpec.readConfig(ctx, credentials, options, transport);
	const adapter = dataManagerRestatementAdapter(
		googleDataManagerAdapter,
		original,
		Date.now,
		clientKey,
	);
	return { adapter: adapter as PlatformAdapter<unknown, unknown>, config, transport };
}

/**
 * Adjust: retractions and restatements of conversions already sent, identified by the original
 * event's transaction (order) id and deduplicated per lead, original event and value.
 *  - Google Ads API: uploadConversionAdjustments (RETRACTION, RESTATEMENT), partial failure on;
 *  - Data Manager: restatements as the original event with the new value; retractions refused
 *    per item (Data Manager has none), naming the Google Ads API option.
 * Adjustments of conversions older than Google's window are skipped with the reason
 * (docs/platforms/google-data-manager.md §7).
 */
export async function executeAdjust(
	ctx: IExecuteFunctions,
	api: GoogleApi,
): Promise<INodeExecutionData[][]> {
	const options = ctx.getNodeParameter('options', 0, {}) as SenderOptions;
	const adjustment = ctx.getNodeParameter('adjustment', 0) as GoogleAdjustment;
	const original = ctx.getNodeParameter('originalEvent', 0) as string;
	const items = readRecords(ctx, options, adjustment, original);
	if (adjustment === 'retraction' && api === 'dataManager')
		return output(refuseRetractions(items, original), adjustment);
	const { adapter, config, transport } = await setup(ctx, api, adjustment, original, options);
	const dryRun = Boolean(options.dryRun);
	const resolved = dryRun
		? { store: null, keyPrefix: undefined }
		: await resolveStore(ctx, ctx.getNodeParameter('dedupStore', 0) as 'redis' | 'memory' | 'off');
	let keyPrefix: string;
	try {
		keyPrefix = namespacedPrefix(resolved.keyPrefix, options.clientKey);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message);
	}
	const results = await dispatch(items, {
		adapter,
		config,
		transport,
		store: resolved.store,
		keyPrefix,
		...dispatchOptions(options),
	});
	if (api === 'dataManager') await recordDataManagerRequests(resolved.store, keyPrefix, results);
	await markOwnDestinations(ctx, resolved.store, keyPrefix, readClientKey(options.clientKey), results);
	if (!ctx.continueOnFail()) {
		const index = results.findIndex((r) => r.status === 'failed');
		if (index >= 0) throw failedItemError(ctx, 'google', results, index);
	}
	return output(results, adjustment);
}
