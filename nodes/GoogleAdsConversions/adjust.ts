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
} from '../../shared';
import {
	RETRACTION_UNSUPPORTED,
	adjustmentEventName,
	dataManagerRestatementAdapter,
	googleDataManagerAdapter,
	type DataManagerAdjustment,
} from '../../shared/platforms/google';
import { resolveStore } from '../common/dedupStores';
import { markOwnDestinations } from '../common/workflowScope';
import { dispatchOptions, failedItemError, lostDigits, type SenderOptions } from '../common/executeSender';
import { DATA_MANAGER_CREDENTIAL, dataManagerSpec } from './dataManager';
import { googleAdsExecutor } from './executor';

const showAdjust = { show: { api: ['dataManager'], operation: ['adjust'] } };

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
					'Remove a conversion (lead lost or refunded). Data Manager does not support it: items come out skipped with the reason.',
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
			'The event the conversion was sent as (with this node, this Customer ID and Conversion Action ID): its transaction ID is what Google adjusts',
	},
];

function readRecords(
	ctx: IExecuteFunctions,
	options: SenderOptions,
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
		return { record, eventName: adjustmentEventName('restatement', original, record.value) };
	});
}

function output(results: ItemResult[], adjustment: DataManagerAdjustment): INodeExecutionData[][] {
	return [
		results.map((result, i) => ({
			json: { ...result, adjustment } as unknown as IDataObject,
			pairedItem: { item: i },
		})),
	];
}

/**
 * Adjust: restatements go out as the original event (its transaction id) with the new value,
 * deduplicated per lead, original event and value; retractions are refused per item, since
 * Data Manager has none (docs/platforms/google-data-manager.md §7).
 */
export async function executeAdjust(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const options = ctx.getNodeParameter('options', 0, {}) as SenderOptions;
	const adjustment = ctx.getNodeParameter('adjustment', 0) as DataManagerAdjustment;
	const original = ctx.getNodeParameter('originalEvent', 0) as string;
	const items = readRecords(ctx, options, original);
	if (adjustment === 'retraction') {
		return output(
			items.map((item) => ({
				status: 'skipped',
				platform: 'google',
				destination: '',
				event_name: `retraction:${original}`,
				match_keys: [],
				warnings: [],
				error: item.error ?? RETRACTION_UNSUPPORTED,
			})),
			adjustment,
		);
	}
	const transport = new Transport({ executor: googleAdsExecutor(ctx, DATA_MANAGER_CREDENTIAL) });
	const credentials = await ctx.getCredentials(DATA_MANAGER_CREDENTIAL);
	const config = await dataManagerSpec.readConfig(ctx, credentials, options, transport);
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
		adapter: dataManagerRestatementAdapter(
			googleDataManagerAdapter,
			original,
			Date.now,
			readClientKey(options.clientKey),
		),
		config,
		transport,
		store: resolved.store,
		keyPrefix,
		...dispatchOptions(options),
	});
	await markOwnDestinations(ctx, resolved.store, keyPrefix, readClientKey(options.clientKey), results);
	if (!ctx.continueOnFail()) {
		const index = results.findIndex((r) => r.status === 'failed');
		if (index >= 0) throw failedItemError(ctx, 'google', results, index);
	}
	return output(results, adjustment);
}
