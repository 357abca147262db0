import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import {
	LEDGER_ORIGINAL,
	originalFromLedger,
	stageAdjustment,
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
import {
	dispatchOptions,
	failedItemError,
	fieldOverrides,
	lostDigits,
	outputItems,
	type SenderOptions,
} from '../common/executeSender';
import { perItemParameter } from '../common/parameters';
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
				name: 'From Lead Stage',
				value: 'fromStage',
				description:
					"Per lead, by its CRM stage (the record's stage): a retraction stage (lost, disqualified) retracts, a restatement stage (won) restates with the lead's value; other stages come out skipped (see docs/stages.md)",
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
		displayName: 'Retraction Stages',
		name: 'retractionStages',
		type: 'string',
		default: 'lost, disqualified',
		displayOptions: { show: { operation: ['adjust'], adjustment: ['fromStage'] } },
		description: 'Stages (comma-separated, any case) that retract the conversion',
	},
	{
		displayName: 'Restatement Stages',
		name: 'restatementStages',
		type: 'string',
		default: 'won',
		displayOptions: { show: { operation: ['adjust'], adjustment: ['fromStage'] } },
		description: "Stages (comma-separated, any case) that restate the conversion with the lead's value",
	},
	{
		displayName: 'Original Event',
		name: 'originalEvent',
		type: 'options',
		noDataExpression: true,
		displayOptions: showAdjust,
		options: [
			{ name: 'Contact', value: 'contact' },
			{
				name: 'From Stage Ledger',
				value: LEDGER_ORIGINAL,
				description:
					"The first conversion this node sent for the lead to this conversion action, with its time, as the stage ledger recorded it (Options → Keep a Stage Ledger)",
			},
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
		displayOptions: { show: { operation: ['adjust'] }, hide: { originalEvent: [LEDGER_ORIGINAL] } },
		description:
			"When the original conversion happened (ISO-8601 or epoch). Empty: the lead's occurred_at. Google takes adjustments only up to 54 days after the conversion: older ones come out skipped with the reason.",
	},
];

/** Each item's record and the adjustment it asks for (the node's, or its stage's). */
function readRecords(
	ctx: IExecuteFunctions,
	options: SenderOptions,
	adjustmentOf: (record: DispatchItem['record']) => GoogleAdjustment | string,
	original: string,
): Array<DispatchItem & { adjustment?: GoogleAdjustment }> {
	const mapped = ctx.getNodeParameter('leadInput', 0) === 'map';
	const recordField = (options.recordField ?? '').trim();
	const fieldsOf = fieldOverrides(ctx);
	const conversionTimeOf = perItemParameter<unknown>(ctx, 'conversionTime', '');
	return ctx.getInputData().map((item, i) => {
		let record = readLeadRecord(item.json, recordField);
		if (mapped) record = withRecordFields(record ?? {}, fieldsOf(i));
		if (!record)
			return { record: {}, eventName: '', error: 'input item is not a lead record object' };
		const idProblem = lostDigits(record);
		if (idProblem) return { record, eventName: '', error: idProblem };
		// The conversion's own time: what the window is measured from, and Data Manager's event time.
		const conversionTime =
			original === LEDGER_ORIGINAL ? '' : conversionTimeOf(i);
		// A stage record is timed by stage_at (plan stage): the conversion time goes there too.
		if (conversionTime !== '' && conversionTime !== null && conversionTime !== undefined)
			record = {
				...record,
				occurred_at: conversionTime,
				...(record.stage_at !== undefined ? { stage_at: conversionTime } : {}),
			};
		const adjustment = adjustmentOf(record);
		if (adjustment !== 'retraction' && adjustment !== 'restatement')
			return { record, eventName: '', error: adjustment };
		return {
			record,
			adjustment,
			eventName: adjustmentEventName(adjustment, original, record.value),
		};
	});
}

/** One item per result (failed ones to the error output when On Error uses it: outputItems). */
function output(
	ctx: IExecuteFunctions,
	results: ItemResult[],
	adjustments: Array<GoogleAdjustment | undefined>,
): INodeExecutionData[][] {
	return [
		outputItems(ctx, 'google', results).map((item, i) => ({
			...item,
			json: { ...item.json, adjustment: adjustments[i] } as unknown as IDataObject,
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
	const fromLedger = original === LEDGER_ORIGINAL;
	if (api === 'googleAdsApi') {
		const config = await googleSpec.readConfig(ctx, credentials, options, transport);
		const adapterFor = (event: string) =>
			googleAdjustmentAdapter(adjustment, event, Date.now, clientKey);
		const adapter = fromLedger ? originalFromLedger(adapterFor) : adapterFor(original);
		return { adapter: adapter as PlatformAdapter<unknown, unknown>, config, transport };
	}
	const config = await dataManagerSpec.readConfig(ctx, credentials, options, transport);
	const adapterFor = (event: string) =>
		dataManagerRestatementAdapter(googleDataManagerAdapter, event, Date.now, clientKey);
	const adapter = fromLedger ? originalFromLedger(adapterFor) : adapterFor(original);
	return { adapter: adapter as PlatformAdapter<unknown, unknown>, config, transport };
}

const list = (text: unknown) =>
	String(text ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter((s) => s !== '');

/** What an item whose stage asks for no adjustment reports (skipped, nothing sent). */
const STAGE_NOT_ADJUSTED = 'no adjustment for this stage: ';

/**
 * Adjust: retractions and restatements of conversions already sent, identified by the original
 * event's transaction (order) id and deduplicated per lead, original event and value.
 *  - Google Ads API: uploadConversionAdjustments (RETRACTION, RESTATEMENT), partial failure on;
 *  - Data Manager: restatements as the original event with the new value; retractions refused
 *    per item (Data Manager has none), naming the Google Ads API option.
 * Adjustments of conversions older than Google's window are skipped with the reason
 * (docs/platforms/google-data-manager.md §7). With Adjustment "From Lead Stage" each lead's
 * stage picks its adjustment; with Original Event "From Stage Ledger" the original conversion
 * is the one the stage ledger holds for the lead (docs/stages.md).
 */
export async function executeAdjust(
	ctx: IExecuteFunctions,
	api: GoogleApi,
): Promise<INodeExecutionData[][]> {
	const options = ctx.getNodeParameter('options', 0, {}) as SenderOptions;
	const chosen = ctx.getNodeParameter('adjustment', 0) as GoogleAdjustment | 'fromStage';
	const original = ctx.getNodeParameter('originalEvent', 0) as string;
	const stages =
		chosen === 'fromStage'
			? {
					retraction: list(ctx.getNodeParameter('retractionStages', 0, '')),
					restatement: list(ctx.getNodeParameter('restatementStages', 0, '')),
				}
			: undefined;
	const items = readRecords(
		ctx,
		options,
		(record) =>
			stages
				? (stageAdjustment(record, stages) ??
					`${STAGE_NOT_ADJUSTED}stage "${String(record.stage ?? '')}" is neither a retraction stage (${stages.retraction.join(', ')}) nor a restatement stage (${stages.restatement.join(', ')})`)
				: chosen,
		original,
	);
	const results = new Array<ItemResult>(items.length);
	items.forEach((item, i) => {
		if (item.adjustment === undefined && item.error?.startsWith(STAGE_NOT_ADJUSTED)) {
			results[i] = {
				status: 'skipped',
				platform: 'google',
				destination: '',
				event_name: '',
				match_keys: [],
				warnings: [],
				error: item.error,
			};
		}
	});
	const dryRun = Boolean(options.dryRun);
	let store: Awaited<ReturnType<typeof resolveStore>>['store'] = null;
	let keyPrefix = '';
	for (const adjustment of ['restatement', 'retraction'] as const) {
		// Items that failed to read go with the node's own adjustment (or the first group).
		const indices = items
			.map((_item, i) => i)
			.filter((i) =>
				results[i] === undefined &&
				(items[i].adjustment ?? (chosen === 'fromStage' ? 'restatement' : chosen)) === adjustment,
			);
		if (indices.length === 0) continue;
		const group = indices.map((i) => items[i]);
		if (adjustment === 'retraction' && api === 'dataManager') {
			refuseRetractions(group, original).forEach((r, k) => (results[indices[k]] = r));
			continue;
		}
		const { adapter, config, transport } = await setup(ctx, api, adjustment, original, options);
		if (!keyPrefix) {
			const resolved = dryRun
				? { store: null, keyPrefix: undefined }
				: await resolveStore(ctx, ctx.getNodeParameter('dedupStore', 0) as 'redis' | 'memory' | 'off');
			store = resolved.store;
			try {
				keyPrefix = namespacedPrefix(resolved.keyPrefix, options.clientKey);
			} catch (error) {
				throw new NodeOperationError(ctx.getNode(), (error as Error).message);
			}
		}
		const sent = await dispatch(group, {
			adapter,
			config,
			transport,
			store,
			keyPrefix,
			...dispatchOptions(options),
		});
		sent.forEach((r, k) => (results[indices[k]] = r));
	}
	if (api === 'dataManager') await recordDataManagerRequests(store, keyPrefix, results);
	await markOwnDestinations(ctx, store, keyPrefix, readClientKey(options.clientKey), results);
	if (!ctx.continueOnFail()) {
		const index = results.findIndex((r) => r.status === 'failed');
		if (index >= 0) throw failedItemError(ctx, 'google', results, index);
	}
	return output(
		ctx,
		results,
		items.map((item) => item.adjustment ?? (chosen === 'fromStage' ? undefined : chosen)),
	);
}
