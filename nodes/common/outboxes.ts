import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
import {
	outbox,
	waitForReady,
	type DispatchItem,
	type ItemResult,
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

/**
 * Drained items become prebuilt dispatch items (the sealed event as it was built, under its own
 * event id); one that cannot be opened, is for another destination or has expired fails on its
 * own with the reason (and goes to dead letters when its entry is unusable).
 */
export async function readDrained<Config, Payload>(
	run: RunOutbox,
	adapter: PlatformAdapter<Config, Payload>,
	destination: string,
	items: INodeExecutionData[],
	dispatchItems: DispatchItem[],
	now: number,
): Promise<OpenedEntries> {
	const opened: OpenedEntries = new Map();
	for (let i = 0; i < items.length; i++) {
		const ref = drainedRef(items[i]);
		if (!ref) continue;
		const fail = (error: string) =>
			(dispatchItems[i] = { record: {}, eventName: ref.event_name ?? '', error });
		if (!run.on) {
			fail(
				'an outbox event needs Retry Failed Sends Later → Queue in Outbox, Redis dedup and the Outbox Key credential on this node',
			);
			continue;
		}
		if (ref.platform !== adapter.platform || ref.destination !== destination) {
			fail(
				`this outbox event is for ${ref.platform} ${ref.destination}; this node sends to ${adapter.platform} ${destination}`,
			);
			continue;
		}
		const q = { platform: ref.platform, destination };
		const [sealed] = await run.store.load(q, [ref.event_id]);
		const entry = outbox.openEntry(run.key, q, ref.event_id, sealed);
		if (!entry.ok) {
			if (entry.reason !== 'not_found')
				await run.store.deadLetter(q, ref.event_id, entry.reason, entry.message, now);
			fail(
				entry.reason === 'not_found'
					? 'outbox entry already delivered or removed'
					: `moved to dead letters: ${entry.message}`,
			);
			continue;
		}
		if (entry.entry.deadline <= now) {
			await run.store.deadLetter(q, ref.event_id, 'expired', outbox.EXPIRED_MESSAGE, now);
			fail(`moved to dead letters (expired): ${outbox.EXPIRED_MESSAGE}`);
			continue;
		}
		opened.set(i, entry.entry);
		dispatchItems[i] = {
			record: {},
			eventName: entry.entry.event_name,
			prebuilt: {
				eventId: entry.entry.event_id,
				eventTime: entry.entry.event_time,
				payload: entry.entry.payload,
			},
		};
	}
	return opened;
}

const nextTryText = (ms: number) => new Date(ms).toISOString();

/** Deliver → Via Outbox: the node builds the events (a dry run) and queues them instead. */
export function deliversViaOutbox(ctx: IExecuteFunctions, run: RunOutbox): boolean {
	return run.on && ctx.getNodeParameter('deliver', 0, 'now') === 'outbox';
}

/**
 * Deliver → Via Outbox, after the dry run that built each event: each built one is queued due
 * now (attempt 0) and output `queued`; the drain sends them in platform-sized batches and dedup
 * keeps them once (an event sent before is dropped there as a duplicate).
 */
export async function queueBuilt(
	run: RunOutbox,
	adapter: PlatformAdapter<unknown, unknown>,
	results: ItemResult[],
	now: number,
): Promise<void> {
	if (!run.on) return;
	for (const r of results) {
		if (!r.dry_run || r.payload === undefined || !r.event_id || !r.event_time) continue;
		const payload = r.payload;
		delete r.payload;
		delete r.dry_run;
		delete r.response;
		r.warnings = r.warnings.filter((w) => !w.startsWith('dry run'));
		const q = { platform: adapter.platform, destination: r.destination };
		try {
			const queued = await outbox.queueEvent(
				run.store,
				run.key,
				q,
				{
					event_id: r.event_id,
					event_name: r.event_name,
					event_time: r.event_time,
					payload,
					attempts: 0,
					deadline: outbox.deadlineOf(r.event_time, adapter.eventTimeWindow.seconds),
					queued_at: now,
				},
				{ now, dueAt: now },
			);
			applyQueued(r, queued);
		} catch (error) {
			r.status = 'failed';
			r.retryable = true;
			r.error = `not queued: the outbox could not be written: ${error instanceof Error ? error.message : String(error)}`;
		}
	}
}

/**
 * After the dispatch: new events that failed retryably are queued (status `queued`, with the
 * next try); drained events are settled (delivered → removed, retryable → queued again,
 * otherwise dead letter). Outbox trouble never loses the result: the item stays failed and says why.
 */
export async function settleOutbox(
	run: RunOutbox,
	adapter: PlatformAdapter<unknown, unknown>,
	results: ItemResult[],
	built: Map<number, unknown>,
	opened: OpenedEntries,
	now: number,
): Promise<void> {
	for (let i = 0; i < results.length; i++) {
		const r = results[i];
		const entry = opened.get(i);
		if (!run.on) {
			if (run.warning && r.status === 'failed' && r.retryable && built.has(i))
				r.warnings.push(run.warning);
			continue;
		}
		const q = { platform: adapter.platform, destination: r.destination };
		try {
			if (entry) {
				const settled = await outbox.settleDrained(run.store, run.key, q, entry, r, { now });
				applyQueued(r, settled);
			} else if (
				r.status === 'failed' &&
				r.retryable &&
				built.has(i) &&
				r.event_id &&
				r.event_time
			) {
				const queued = await outbox.queueEvent(
					run.store,
					run.key,
					q,
					{
						event_id: r.event_id,
						event_name: r.event_name,
						event_time: r.event_time,
						payload: built.get(i),
						attempts: 1,
						deadline: outbox.deadlineOf(r.event_time, adapter.eventTimeWindow.seconds),
						last_error: r.error,
						queued_at: now,
					},
					{ now },
				);
				applyQueued(r, queued);
			}
		} catch (error) {
			r.warnings.push(
				`the outbox could not be written: ${error instanceof Error ? error.message : String(error)}`,
			);
		}
	}
}

function applyQueued(r: ItemResult, settled: outbox.Queued | { delivered: true }): void {
	if ('delivered' in settled) return;
	if (settled.queued) {
		r.status = 'queued';
		r.outbox = { next_try: nextTryText(settled.nextTry), attempts: settled.attempts };
		return;
	}
	r.status = 'failed';
	r.retryable = false;
	r.error = `moved to dead letters (${settled.reason}): ${r.error ?? settled.message}`;
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
