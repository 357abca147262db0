import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import {
	DEDUP_FAIL_CLOSED_NOTE,
	dispatch,
	joinSentences,
	outbox,
	namespacedPrefix,
	readClientKey,
	readLeadRecord,
	recordIdProblem,
	stageOf,
	Transport,
	withRecordFields,
	type HttpExecutor,
	type DedupFailMode,
	type DedupStore,
	type DispatchItem,
	type DispatchMode,
	type EventWindowPolicy,
	type ItemResult,
	type KeptFacts,
	type LeadRecord,
	type PlatformAdapter,
	type UnknownOutcomePolicy,
} from '../../shared';
import { resolveStore } from './dedupStores';
import { n8nExecutor } from './n8nExecutor';
import { perItemParameter } from './parameters';
import { markOwnDestinations } from './workflowScope';
import {
	deliversViaOutbox,
	NO_OUTBOX_KEY_WARNING,
	readDrained,
	resolveSenderOutbox,
} from './outboxes';

/** What a sender node adds to the common path: its adapter, credential and event naming. */
export interface SenderSpec<Config, Payload> {
	adapter: PlatformAdapter<Config, Payload>;
	credentialName: string;
	/**
	 * The platform config from the credential and the node's parameters, read once per run. May
	 * call the platform (e.g. Google Ads: the account's time zone) through `transport`.
	 */
	readConfig(
		ctx: IExecuteFunctions,
		credentials: ICredentialDataDecryptedObject,
		options: IDataObject,
		transport: Transport,
	): Config | Promise<Config>;
	/**
	 * How HTTP requests are made, when not with n8n's plain request helper (`n8nExecutor`): e.g.
	 * signed by an OAuth2 credential whose tokens n8n refreshes.
	 */
	executor?(ctx: IExecuteFunctions): HttpExecutor;
	/**
	 * Turns the chosen event (a standard name or a custom one) into what the adapter expects;
	 * default: as is. (Pinterest, for one, sends custom names as `custom` + a label.)
	 */
	eventName?(chosen: string): string;
	/**
	 * After the dispatch, before results are output: e.g. Google Data Manager records its request
	 * ids for the health report. Must not throw.
	 */
	afterDispatch?(
		results: ItemResult[],
		run: { store: DedupStore | null; keyPrefix: string },
	): Promise<void>;
}

export interface SenderOptions extends IDataObject {
	batchSize?: number;
	dedupTtlDays?: number;
	defaultCountry?: string;
	dryRun?: boolean;
	eventWindowPolicy?: EventWindowPolicy;
	dedupFailMode?: DedupFailMode;
	afterUnknownOutcome?: UnknownOutcomePolicy;
	includePayload?: boolean;
	recordField?: string;
	clientKey?: string;
	stageLedger?: boolean;
	ledgerTtlDays?: number;
	stageOrder?: string;
}

/**
 * The event namer for this run: the Event parameter is read once; only a custom event name
 * (which may be an expression) is read per item.
 */
function eventNamer<Config, Payload>(
	ctx: IExecuteFunctions,
	spec: SenderSpec<Config, Payload>,
): (record: LeadRecord, itemIndex: number) => string {
	const event = ctx.getNodeParameter('event', 0) as string;
	const finish = spec.eventName ?? ((name: string) => name);
	if (event === 'custom') {
		const customName = perItemParameter<unknown>(ctx, 'customEventName');
		return (_record, itemIndex) => finish(String(customName(itemIndex)).trim());
	}
	if (event === 'fromStage') {
		return (record, itemIndex) => {
			const stage = stageOf(record);
			if (stage === undefined) {
				throw new NodeOperationError(ctx.getNode(), 'the lead record has no stage', {
					itemIndex,
				});
			}
			return finish(stage);
		};
	}
	if (event !== 'fromState') return () => finish(event);
	const table = spec.adapter.eventNameByState;
	return (record, itemIndex) => {
		const state = typeof record.state === 'string' ? record.state.trim().toLowerCase() : '';
		const name = (table as Record<string, string | undefined>)[state];
		if (!name) {
			throw new NodeOperationError(
				ctx.getNode(),
				`state "${String(record.state ?? '')}" is not one of ${Object.keys(table).join(', ')}`,
				{ itemIndex },
			);
		}
		return name;
	};
}

function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** Reads each item's lead record: straight from the item, or with the user's field overrides. */
function readItems<Config, Payload>(
	ctx: IExecuteFunctions,
	spec: SenderSpec<Config, Payload>,
	items: INodeExecutionData[],
	options: SenderOptions,
): DispatchItem[] {
	const mapped = ctx.getNodeParameter('leadInput', 0) === 'map';
	const recordField = (options.recordField ?? '').trim();
	const eventName = eventNamer(ctx, spec);
	const fieldsOf = fieldOverrides(ctx);
	return items.map((item, i) => {
		let record = readLeadRecord(item.json, recordField);
		try {
			if (mapped) record = withRecordFields(record ?? {}, fieldsOf(i));
			if (!record) {
				return {
					record: {},
					eventName: '',
					error: recordField
						? `input item has no lead record at "${recordField}"`
						: 'input item is not a lead record object',
				};
			}
			const idProblem = lostDigits(record);
			if (idProblem) return { record, eventName: '', error: idProblem };
			return { record, eventName: eventName(record, i) };
		} catch (error) {
			return { record: record ?? {}, eventName: '', error: errorMessage(error) };
		}
	});
}

/** Lead Fields → Map Fields: the fields to set on an item's record (evaluated per item only when they hold expressions). */
export function fieldOverrides(
	ctx: IExecuteFunctions,
): (itemIndex: number) => ReadonlyArray<{ path: string; value: unknown }> {
	return perItemParameter<Array<{ path: string; value: unknown }>>(ctx, 'fieldOverrides.field', []);
}

/**
 * A numeric record id beyond 2^53 (from another node's JSON: its digits are already lost) fails
 * its item with the reason, instead of colliding with the records that rounded to the same number.
 */
export function lostDigits(record: LeadRecord): string | undefined {
	return typeof record.record_id === 'number'
		? (recordIdProblem(record.record_id) ?? undefined)
		: undefined;
}

function summary(results: ItemResult[]): string {
	const counts: Record<string, number> = {};
	for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
	return Object.entries(counts)
		.map(([status, n]) => `${n} ${status}`)
		.join(', ');
}

/** n8n's own name for the setting that outputs failed items instead of stopping (1.x and 2.x). */
const ON_ERROR_ADVICE =
	'To get one result per item instead of this error, set Settings → On Error → Continue (using error output).';

/** What to do about an item held after an unknown outcome (docs/dedup.md#unknown-outcomes). */
const HELD_NEXT =
	"The platform may have this event: it is held, so retrying the execution does not send it again. Check the platform's events manager for its event ID; to send it anyway, re-run with Options → After an Unknown Outcome → Resend.";

/**
 * The error a failed item raises when On Error is "Stop Workflow": headlined by what failed (the
 * dedup store when it was unavailable, else the platform and the item), described by what this
 * run did and what to change.
 */
export function failedItemError(
	ctx: IExecuteFunctions,
	platform: string,
	results: ItemResult[],
	index: number,
	runSummary = summary(results),
): NodeApiError | NodeOperationError {
	const failed = results[index];
	const error = failed.error ?? 'unknown error';
	const storeDown = failed.dedup === 'unavailable' && error.endsWith(DEDUP_FAIL_CLOSED_NOTE);
	const message = storeDown
		? error.slice(0, -DEDUP_FAIL_CLOSED_NOTE.length).trim()
		: `${platform}: item ${index} failed: ${error}`;
	const next = storeDown
		? DEDUP_FAIL_CLOSED_NOTE
		: failed.dedup === 'held'
			? HELD_NEXT
			: failed.retryable
				? 'Events that were sent are recorded, so retrying the execution sends only the ones not sent yet.'
				: 'Events that were sent are recorded and are not sent twice; correct what the message names for this item.';
	const notQueued = failed.warnings.includes(NO_OUTBOX_KEY_WARNING)
		? `This event was ${NO_OUTBOX_KEY_WARNING}`
		: undefined;
	const description = joinSentences(
		storeDown ? undefined : error,
		notQueued,
		`This run: ${runSummary}`,
		next,
		ON_ERROR_ADVICE,
	);
	if (!storeDown && failed.response && typeof failed.response === 'object') {
		return new NodeApiError(ctx.getNode(), failed.response as JsonObject, {
			itemIndex: index,
			message,
			description,
		});
	}
	return new NodeOperationError(ctx.getNode(), message, { itemIndex: index, description });
}

const SEND = { kind: 'send' } as const satisfies DispatchMode<never>;
const DRY_RUN = { kind: 'dryRun' } as const satisfies DispatchMode<never>;

/** What the sender options say about a dispatch (the same for every operation that sends). */
export function dispatchOptions(options: SenderOptions) {
	return {
		failMode: options.dedupFailMode ?? 'closed',
		afterUnknownOutcome: options.afterUnknownOutcome ?? 'auto',
		committedTtlMs: Math.max(1, Number(options.dedupTtlDays ?? 30)) * 86_400_000,
		eventWindowPolicy: options.eventWindowPolicy ?? 'skip',
		defaultCountry: options.defaultCountry || undefined,
		clientKey: readClientKey(options.clientKey),
		batchSize: options.batchSize,
		mode: options.dryRun ? DRY_RUN : SEND,
		includePayload: Boolean(options.includePayload),
		ledger:
			options.stageLedger === false
				? undefined
				: {
						ttlMs: Math.max(90, Number(options.ledgerTtlDays ?? 180)) * 86_400_000,
						stageOrder: String(options.stageOrder ?? '')
							.split(',')
							.map((s) => s.trim())
							.filter((s) => s !== ''),
					},
	} as const;
}

/**
 * The whole execute() of a sender node: read items → dispatch through the core → one output
 * item per input item with pairedItem. With On Error "Stop Workflow" the first failed item raises
 * an error after the batch has been dispatched (the other items were sent and recorded); with
 * "Continue", failed items are output with their error.
 */
export async function executeSender<Config, Payload>(
	ctx: IExecuteFunctions,
	spec: SenderSpec<Config, Payload>,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const options = ctx.getNodeParameter('options', 0, {}) as SenderOptions;
	const dryRun = Boolean(options.dryRun);
	const transport = new Transport({
		executor: spec.executor?.(ctx) ?? n8nExecutor(ctx),
		logger: {
			debug: (message) => ctx.logger.debug(message),
			warn: (message) => ctx.logger.warn(message),
		},
	});
	// What the whole run needs (credentials, the platform config, the dedup store). When it
	// fails, nothing can be sent: with On Error "Continue" every item says why, else the node fails.
	let setup: {
		config: Config;
		store: DedupStore | null;
		keyPrefix: string;
		outbox: outbox.RunOutbox;
	};
	try {
		const credentials = await ctx.getCredentials(spec.credentialName);
		const config = await spec.readConfig(ctx, credentials, options, transport);
		const resolved = dryRun
			? { store: null, keyPrefix: undefined }
			: await resolveStore(
					ctx,
					ctx.getNodeParameter('dedupStore', 0) as 'redis' | 'memory' | 'off',
				);
		let keyPrefix: string;
		try {
			keyPrefix = namespacedPrefix(resolved.keyPrefix, options.clientKey);
		} catch (error) {
			throw new NodeOperationError(ctx.getNode(), errorMessage(error));
		}
		const runOutbox = await resolveSenderOutbox(ctx, keyPrefix, dryRun);
		setup = { config, store: resolved.store, keyPrefix, outbox: runOutbox };
	} catch (error) {
		if (!ctx.continueOnFail()) {
			// n8n's own errors (from readConfig, getCredentials) keep their context as they are.
			const nodeError =
				error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeOperationError(ctx.getNode(), errorMessage(error));
			throw nodeError;
		}
		const message = joinSentences(errorMessage(error), 'Nothing was sent.');
		const failed = items.map(
			() =>
				({
					status: 'failed',
					platform: spec.adapter.platform,
					match_keys: [],
					warnings: [],
					error: message,
				}) satisfies Omit<ItemResult, 'destination' | 'event_name'> as unknown as ItemResult,
		);
		return [outputItems(ctx, spec.adapter.platform, failed)];
	}
	const { config, store, keyPrefix } = setup;
	const dispatchItems = readItems(ctx, spec, items, options);
	// Events drained from the outbox are sent as they were built; retryable failures are queued.
	const destination = spec.adapter.destinationId(config);
	const drained = await readDrained(
		setup.outbox,
		spec.adapter,
		destination,
		items,
		dispatchItems,
		outbox.outboxNow(),
	);
	const kept: outbox.KeptEvents = new Map();
	const keep = (index: number, payload: unknown, facts: KeptFacts) =>
		kept.set(index, { payload, facts });
	// Deliver → Via Outbox (new events only): built here, sent by the drain in batches.
	const viaOutbox = drained.opened.size === 0 && deliversViaOutbox(ctx, setup.outbox);
	const buildForOutbox: DispatchMode<Payload> = { kind: 'buildForOutbox', onBuilt: keep };

	const runAt = Date.now();
	const results = await dispatch(dispatchItems, {
		adapter: spec.adapter,
		config,
		transport,
		store,
		keyPrefix,
		...dispatchOptions(options),
		...(viaOutbox ? { mode: buildForOutbox } : {}),
		onRetryable: keep,
	});
	await outbox.finishOutbox({
		run: setup.outbox,
		adapter: spec.adapter,
		results,
		kept,
		drained,
		viaOutbox,
		store,
		keyPrefix,
		runAt,
	});
	await spec.afterDispatch?.(results, { store, keyPrefix });
	await markOwnDestinations(ctx, store, keyPrefix, readClientKey(options.clientKey), results);

	if (!ctx.continueOnFail()) {
		const index = results.findIndex((r) => r.status === 'failed');
		if (index >= 0) throw failedItemError(ctx, spec.adapter.platform, results, index);
	}

	return [outputItems(ctx, spec.adapter.platform, results)];
}

/**
 * One output item per result, paired with its input. With On Error "Continue (using error
 * output)" a failed item carries its error, so n8n routes it to the node's error output (the
 * other items stay on the success output); with "Continue" every item stays on the one output.
 */
export function outputItems(
	ctx: IExecuteFunctions,
	platform: string,
	results: ItemResult[],
): INodeExecutionData[] {
	const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput';
	// One summary of the run for every failed item's error (not one pass over the run per item).
	const runSummary = toErrorOutput ? summary(results) : '';
	return results.map((result, i) => ({
		json: result as unknown as IDataObject,
		pairedItem: { item: i },
		...(toErrorOutput && result.status === 'failed'
			? { error: failedItemError(ctx, platform, results, i, runSummary) }
			: {}),
	}));
}
