import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
import {
	outbox,
	outboxMoveIncrements,
	waitForReady,
	statsBucket,
	statsKey,
	STATS_TTL_MS,
	type DedupStore,
	type DispatchItem,
	type ItemResult,
	type KeptFacts,
	type PlatformAdapter,
} from '../../shared';
import { getRedisClient, redisConfigFromCredentials } from './redisClients';

/** A run's outbox: where to queue and settle, with the key; or why there is none. */
export type RunOutbox =
	| { on: true; store: outbox.OutboxStore; key: outbox.OutboxKey }
	| { on: false; warning?: string };

export const NO_OUTBOX_KEY_WARNING =
	'not queued for a later try: Retry Failed Sends Later needs an Outbox Key credential (or set it to Off); re-run the execution to send it';

/** The key from the leadCapiOutboxApi credential, or undefined when none is set on the node. */
export async function readOutboxKey(ctx: {
	getCredentials(name: string): Promise<ICredentialDataDecryptedObject>;
}): Promise<outbox.OutboxKey | undefined> {
	let credentials: ICredentialDataDecryptedObject;
	try {
		credentials = await ctx.getCredentials('leadCapiOutboxApi');
	} catch {
		return undefined;
	}
	if (!credentials) return undefined;
	return outbox.outboxKey(String(credentials.secret ?? ''));
}

/** How long the outbox waits for its pooled connection to come up (the dedup store's wait). */
const CONNECT_WAIT_MS = 3_000;

/**
 * The Redis connection and key prefix of the node's leadCapiRedisApi credential, once the
 * connection is up: the pooled client queues nothing while disconnected, so the first outbox
 * command after n8n starts (or after Redis restarted) would fail before it connected. When it
 * does not come up in time, the outbox's commands fail with their own message, as before.
 */
export async function outboxStoreOf(
	ctx: { getCredentials(name: string): Promise<ICredentialDataDecryptedObject> },
	prefix?: string,
): Promise<outbox.OutboxStore> {
	const credentials = await ctx.getCredentials('leadCapiRedisApi');
	const { client } = getRedisClient(redisConfigFromCredentials(credentials));
	await waitForReady(client, CONNECT_WAIT_MS).catch(() => undefined);
	return new outbox.OutboxStore(client, prefix);
}

/**
 * The sender's outbox for this run: on with Redis dedup, Retry Failed Sends Later on (the
 * default) and an Outbox Key credential. Without a key, retryable failures say why they were
 * not queued (NO_OUTBOX_KEY_WARNING) and the run goes on as before.
 */
export async function resolveSenderOutbox(
	ctx: IExecuteFunctions,
	keyPrefix: string,
	dryRun: boolean,
): Promise<RunOutbox> {
	if (dryRun || ctx.getNodeParameter('dedupStore', 0) !== 'redis') return { on: false };
	if (ctx.getNodeParameter('retryLater', 0, 'outbox') !== 'outbox') return { on: false };
	const key = await readOutboxKey(ctx as never);
	if (!key) return { on: false, warning: NO_OUTBOX_KEY_WARNING };
	return { on: true, store: await outboxStoreOf(ctx as never, keyPrefix), key };
}

/** An input item emitted by the Lead CAPI Outbox Trigger: a reference to a queued event. */
export function drainedRef(item: INodeExecutionData): outbox.DrainedEvent | undefined {
	const ref = item.json.outbox as IDataObject | undefined;
	if (!ref || typeof ref !== 'object' || typeof ref.event_id !== 'string') return undefined;
	if (typeof ref.platform !== 'string' || typeof ref.destination !== 'string') return undefined;
	return ref as unknown as outbox.DrainedEvent;
}

/** The entries behind drained items, opened, by item index. */
export type OpenedEntries = Map<number, outbox.OutboxEntry>;

/** A built event the dispatch handed over (onRetryable, onDryRunBuilt) with its kept facts. */
export type KeptEvents = Map<number, { payload: unknown; facts: KeptFacts }>;

/**
 * Results the outbox took after the dispatch counted them: item index → what they became
 * (`duplicate`: a drained event whose entry is gone — already delivered by another drain).
 */
export type OutboxMoves = Map<number, 'queued' | 'dead_lettered' | 'duplicate'>;

/**
 * The drained events of a run: the entries opened (index → entry), those moved to dead letters,
 * and those whose entry was gone (index → event id: already delivered by another drain).
 */
export interface DrainedEntries {
	opened: OpenedEntries;
	moves: OutboxMoves;
	gone: Map<number, string>;
}

/** A drained event whose outbox entry no longer exists: not sent here. */
const ALREADY_DELIVERED = 'outbox entry already delivered or removed';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Fails a dispatch item on its own, with the reason. */
const failItem = (dispatchItems: DispatchItem[], i: number, eventName: string, error: string) =>
	(dispatchItems[i] = { record: {}, eventName, error });

/** The drained items this node can send; the others fail with the reason. */
function sendableRefs(
	run: RunOutbox,
	platform: string,
	destination: string,
	items: INodeExecutionData[],
	dispatchItems: DispatchItem[],
): Array<{ index: number; ref: outbox.DrainedEvent }> {
	const wanted: Array<{ index: number; ref: outbox.DrainedEvent }> = [];
	items.forEach((item, i) => {
		const ref = drainedRef(item);
		if (!ref) return;
		const name = ref.event_name ?? '';
		if (!run.on)
			failItem(
				dispatchItems,
				i,
				name,
				'an outbox event needs Retry Failed Sends Later → Queue in Outbox, Redis dedup and the Outbox Key credential on this node',
			);
		else if (ref.platform !== platform || ref.destination !== destination)
			failItem(
				dispatchItems,
				i,
				name,
				`this outbox event is for ${ref.platform} ${ref.destination}; this node sends to ${platform} ${destination}`,
			);
		else wanted.push({ index: i, ref });
	});
	return wanted;
}

/** A drained entry as a dispatch item: its event as built, and the ledger write it keeps. */
function prebuiltItem(entry: outbox.OutboxEntry): DispatchItem {
	const ledger = entry.ledger;
	return {
		record: ledger?.stage !== undefined ? { stage: ledger.stage } : {},
		eventName: entry.event_name,
		prebuilt: {
			eventId: entry.event_id,
			eventTime: entry.event_time,
			payload: entry.payload,
			...(ledger ? { ledger } : {}),
		},
	};
}

/**
 * Drained items become prebuilt dispatch items (the sealed event as it was built, under its own
 * event id, with the ledger write it keeps); one that cannot be opened, is for another
 * destination or has expired fails on its own with the reason (and goes to dead letters when its
 * entry is unusable). All entries are read in one round trip, dead letters written in one more.
 */
export async function readDrained<Config, Payload>(
	run: RunOutbox,
	adapter: PlatformAdapter<Config, Payload>,
	destination: string,
	items: INodeExecutionData[],
	dispatchItems: DispatchItem[],
	now: number,
): Promise<DrainedEntries> {
	const opened: OpenedEntries = new Map();
	const moves: OutboxMoves = new Map();
	const gone = new Map<number, string>();
	const wanted = sendableRefs(run, adapter.platform, destination, items, dispatchItems);
	if (!run.on || wanted.length === 0) return { opened, moves, gone };
	const q = { platform: adapter.platform, destination };
	let entries;
	try {
		const ids = wanted.map((w) => w.ref.event_id);
		entries = await outbox.openDrained(run.store, run.key, q, ids, now);
	} catch (error) {
		for (const { index, ref } of wanted)
			failItem(
				dispatchItems,
				index,
				ref.event_name ?? '',
				`the outbox could not be read (${errorText(error)}): the event stays queued and comes due again`,
			);
		return { opened, moves, gone };
	}
	const writes = new outbox.OutboxWrites();
	wanted.forEach(({ index, ref }, k) => {
		const entry = entries[k];
		if (entry.ok) {
			opened.set(index, entry.entry);
			dispatchItems[index] = prebuiltItem(entry.entry);
			return;
		}
		const name = ref.event_name ?? '';
		if (entry.reason === 'not_found') {
			// Nothing is sent (the item is held back as failed), then reported as a duplicate.
			failItem(dispatchItems, index, name, ALREADY_DELIVERED);
			gone.set(index, ref.event_id);
			return;
		}
		writes.dead(q, ref.event_id, entry.reason, entry.message);
		moves.set(index, 'dead_lettered');
		failItem(
			dispatchItems,
			index,
			name,
			`moved to dead letters (${entry.reason}): ${entry.message}`,
		);
	});
	try {
		await writes.flush(run.store, now);
	} catch (error) {
		for (const index of moves.keys()) {
			moves.delete(index);
			dispatchItems[index].error =
				`${dispatchItems[index].error} — not written (${errorText(error)}): it comes due again`;
		}
	}
	return { opened, moves, gone };
}

const nextTryText = (ms: number) => new Date(ms).toISOString();

/** Deliver → Via Outbox: the node builds the events (a dry run) and queues them instead. */
export function deliversViaOutbox(ctx: IExecuteFunctions, run: RunOutbox): boolean {
	return run.on && ctx.getNodeParameter('deliver', 0, 'now') === 'outbox';
}

/** The entry a built event is queued as. */
function entryOf(
	r: ItemResult,
	adapter: PlatformAdapter<unknown, unknown>,
	kept: { payload: unknown; facts: KeptFacts },
	attempts: number,
	now: number,
): outbox.OutboxEntry {
	return {
		event_id: r.event_id!,
		event_name: r.event_name,
		event_time: r.event_time!,
		payload: kept.payload,
		attempts,
		deadline: outbox.deadlineOf(r.event_time!, adapter.eventTimeWindow.seconds),
		...(attempts > 0 && r.error ? { last_error: r.error } : {}),
		queued_at: now,
		...(kept.facts.ledger ? { ledger: kept.facts.ledger } : {}),
	};
}

/**
 * Deliver → Via Outbox, after the dry run that built each event: each built one is queued due
 * now (attempt 0) and output `queued`, all in one write; the drain sends them in platform-sized
 * batches and dedup keeps them once (an event sent before is dropped there as a duplicate).
 */
export async function queueBuilt(
	run: RunOutbox,
	adapter: PlatformAdapter<unknown, unknown>,
	results: ItemResult[],
	kept: KeptEvents,
	now: number,
): Promise<OutboxMoves> {
	const moves: OutboxMoves = new Map();
	if (!run.on) return moves;
	const writes = new outbox.OutboxWrites();
	const planned = new Map<number, outbox.Queued>();
	results.forEach((r, i) => {
		const built = kept.get(i);
		if (!r.dry_run || !built || !r.event_id || !r.event_time) return;
		delete r.payload;
		delete r.dry_run;
		delete r.response;
		r.warnings = r.warnings.filter((w) => !w.startsWith('dry run'));
		const q = { platform: adapter.platform, destination: r.destination };
		planned.set(
			i,
			outbox.planQueue(run.key, q, entryOf(r, adapter, built, 0, now), { now, dueAt: now }, writes),
		);
	});
	try {
		await writes.flush(run.store, now);
	} catch (error) {
		for (const i of planned.keys()) {
			const r = results[i];
			r.status = 'failed';
			r.retryable = true;
			r.error = `not queued: the outbox could not be written: ${errorText(error)}`;
		}
		return moves;
	}
	for (const [i, queued] of planned) moves.set(i, applyQueued(results[i], queued) ?? 'queued');
	return moves;
}

/**
 * After the dispatch: new events that failed retryably are queued (status `queued`, with the
 * next try — the platform's Retry-After when it asked for longer than the backoff); drained
 * events are settled (delivered → removed, retryable → queued again, otherwise dead letter). All
 * in one write per queue. Outbox trouble never loses the result: the items stay as the dispatch
 * left them and say why. Returns the results it changed (for the Health Report's counters).
 */
export async function settleOutbox(
	run: RunOutbox,
	adapter: PlatformAdapter<unknown, unknown>,
	results: ItemResult[],
	kept: KeptEvents,
	opened: OpenedEntries,
	now: number,
): Promise<OutboxMoves> {
	const moves: OutboxMoves = new Map();
	if (!run.on) {
		for (let i = 0; i < results.length; i++) {
			const r = results[i];
			if (run.warning && r.status === 'failed' && r.retryable && kept.has(i))
				r.warnings.push(run.warning);
		}
		return moves;
	}
	const writes = new outbox.OutboxWrites();
	const planned = new Map<number, outbox.Queued | { delivered: true }>();
	for (let i = 0; i < results.length; i++) {
		const r = results[i];
		const entry = opened.get(i);
		const built = kept.get(i);
		const q = { platform: adapter.platform, destination: r.destination };
		const retryAfterMs = built?.facts.retryAfterMs;
		if (entry) {
			planned.set(i, outbox.planSettle(run.key, q, entry, r, { now, retryAfterMs }, writes));
		} else if (r.status === 'failed' && r.retryable && built && r.event_id && r.event_time) {
			planned.set(
				i,
				outbox.planQueue(
					run.key,
					q,
					entryOf(r, adapter, built, 1, now),
					{ now, retryAfterMs },
					writes,
				),
			);
		}
	}
	try {
		await writes.flush(run.store, now);
	} catch (error) {
		for (const i of planned.keys())
			results[i].warnings.push(`the outbox could not be written: ${errorText(error)}`);
		return moves;
	}
	for (const [i, settled] of planned) {
		const moved = applyQueued(results[i], settled);
		if (moved) moves.set(i, moved);
	}
	return moves;
}

/** Writes a queue's outcome on the item; says what the item became, when it left `failed`. */
function applyQueued(
	r: ItemResult,
	settled: outbox.Queued | { delivered: true },
): 'queued' | 'dead_lettered' | undefined {
	if ('delivered' in settled) return undefined;
	if (settled.queued) {
		r.status = 'queued';
		r.outbox = { next_try: nextTryText(settled.nextTry), attempts: settled.attempts };
		if (settled.retryAfterMs !== undefined) {
			r.outbox.retry_after_s = Math.ceil(settled.retryAfterMs / 1000);
			r.warnings.push(
				`the platform asked to wait ${r.outbox.retry_after_s} s (Retry-After): the next try is not before then`,
			);
		}
		return 'queued';
	}
	r.status = 'failed';
	r.retryable = false;
	r.error = `moved to dead letters (${settled.reason}): ${r.error ?? settled.message}`;
	return 'dead_lettered';
}

/**
 * A drained event whose outbox entry was gone when it was read: another drain (or a Replay, or
 * Purge) already took it — delivered under the same event id, so this run sent nothing. It is a
 * `duplicate` (dedup `sent_before`), as a user expects of an event already sent, never `failed`.
 */
function alreadyDelivered(r: ItemResult, eventId: string): void {
	r.status = 'duplicate';
	r.event_id = eventId;
	r.dedup = 'sent_before';
	delete r.error;
	delete r.retryable;
	r.warnings.push(`${ALREADY_DELIVERED}: not sent again`);
}

/**
 * The Health Report's counters for the results the outbox took after the dispatch counted them:
 * one round trip, only when there are any, never fatal. A result counted `failed` (or `skipped`)
 * and then queued, dead-lettered or found already delivered (`duplicate`) is counted there instead; an event only queued (Deliver → Via
 * Outbox, not counted by its dry run) adds to `queued`.
 */
export async function countOutboxMoves(
	store: DedupStore | null,
	keyPrefix: string,
	results: ItemResult[],
	moves: OutboxMoves,
	countedAs: (index: number) => string | undefined,
	runAt: number,
): Promise<void> {
	if (!store || moves.size === 0) return;
	const first = results[moves.keys().next().value as number];
	const increments = outboxMoveIncrements(
		[...moves].map(([i, to]) => ({ from: countedAs(i), to })),
	);
	try {
		await store.recordStats({
			key: statsKey(keyPrefix, first.platform, first.destination, statsBucket(runAt), {
				hashTag: store.hashTagKeys,
			}),
			platform: first.platform,
			destination: first.destination,
			increments,
			ttlMs: STATS_TTL_MS,
		});
	} catch {
		// Health counters must never fail a send; the store error shows elsewhere.
	}
}

/**
 * The outbox's part after a sender's dispatch: Deliver → Via Outbox queues the built events;
 * otherwise retryable failures are queued and drained events settled; then the Health Report's
 * counters are corrected for what the outbox took (one round trip, only when it took any).
 */
export async function finishOutbox(input: {
	run: RunOutbox;
	adapter: PlatformAdapter<unknown, unknown>;
	results: ItemResult[];
	kept: KeptEvents;
	drained: DrainedEntries;
	viaOutbox: boolean;
	store: DedupStore | null;
	keyPrefix: string;
	/** When the dispatch ran (its counters' hour). */
	runAt: number;
}): Promise<void> {
	const { run, adapter, results, kept, drained } = input;
	const counted = input.viaOutbox ? undefined : results.map((r) => r.status as string);
	const now = outbox.outboxNow();
	const moves = input.viaOutbox
		? await queueBuilt(run, adapter, results, kept, now)
		: await settleOutbox(run, adapter, results, kept, drained.opened, now);
	for (const [i, to] of drained.moves) moves.set(i, to);
	for (const [i, eventId] of drained.gone) {
		alreadyDelivered(results[i], eventId);
		moves.set(i, 'duplicate');
	}
	await countOutboxMoves(
		input.store,
		input.keyPrefix,
		results,
		moves,
		(i) => counted?.[i],
		input.runAt,
	);
}

/** The platforms an outbox node can be limited to. */
export const PLATFORM_FILTER = [
	{ name: 'All Platforms', value: 'all' },
	{ name: 'Google Ads', value: 'google' },
	{ name: 'Meta', value: 'meta' },
	{ name: 'Microsoft', value: 'microsoft' },
	{ name: 'Pinterest', value: 'pinterest' },
	{ name: 'TikTok', value: 'tiktok' },
];

/** The client key every outbox node shares. */
export const clientKeyProperty = {
	displayName: 'Client Key',
	name: 'clientKey',
	type: 'string' as const,
	default: '',
	placeholder: 'acme',
	description:
		'Agencies: the client key the senders use (Options → Client Key); empty when they use none',
};
