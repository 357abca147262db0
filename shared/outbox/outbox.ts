import { nextTryDelayMs } from './backoff';
import { open, OutboxDecryptError, seal, type OutboxKey } from './crypto';
import { formatBytes } from '../redis/memory';
import { LAST_ERROR_CHARS, type DeadReason, type OutboxEntry, type OutboxQueue, type OutboxStore, type QueueWrites, type Refused } from './store';

/** Binds a sealed entry to its queue and event id: moved elsewhere, it no longer opens. */
export const entryAad = (q: OutboxQueue, id: string) => `${q.platform}|${q.destination}|${id}`;

export const EXPIRED_MESSAGE =
	"the platform's event-time window passed while the event waited in the outbox: not sent late";

/** What happened to an event handed to the outbox. */
export type Queued =
	| {
			queued: true;
			nextTry: number;
			attempts: number;
			/** Set when the next try is the platform's Retry-After (it asked for longer than the backoff). */
			retryAfterMs?: number;
	  }
	| { queued: false; reason: DeadReason; message: string };

/**
 * The outbox writes of one run, gathered per queue and applied together (OutboxWrites.flush):
 * one script per queue instead of a round trip or two per event.
 */
export class OutboxWrites {
	private readonly byQueue = new Map<string, { q: OutboxQueue; writes: QueueWrites }>();

	private of(q: OutboxQueue): QueueWrites {
		const id = `${q.platform}|${q.destination}`;
		let entry = this.byQueue.get(id);
		if (!entry) {
			entry = { q, writes: { enqueue: [], remove: [], dead: [] } };
			this.byQueue.set(id, entry);
		}
		return entry.writes;
	}

	enqueue(q: OutboxQueue, id: string, sealed: string, dueAt: number, deadline: number): void {
		this.of(q).enqueue.push({ id, sealed, dueAt, deadline });
	}

	remove(q: OutboxQueue, id: string): void {
		this.of(q).remove.push(id);
	}

	dead(q: OutboxQueue, id: string, reason: DeadReason, message: string, sealed?: string): void {
		this.of(q).dead.push({ id, reason, message, ...(sealed ? { sealed } : {}) });
	}

	/** The queues written to, each with its writes. */
	queues(): Array<{ q: OutboxQueue; writes: QueueWrites }> {
		return [...this.byQueue.values()];
	}

	/**
	 * Applies every queue's writes (one script each); throws the first queue's error. Returns
	 * the new entries the outbox refused (at its bound), as `platform|destination|event id` → why.
	 */
	async flush(store: OutboxStore, now: number): Promise<Map<string, Refused['why']>> {
		const refused = new Map<string, Refused['why']>();
		for (const { q, writes } of this.byQueue.values())
			for (const r of await store.apply(q, writes, now)) refused.set(entryAad(q, r.id), r.why);
		this.byQueue.clear();
		return refused;
	}
}

/**
 * Plans a failed event's next try (backoff with jitter, or the platform's Retry-After when it
 * asked for longer), or — when that try would fall past the platform's window — its dead letter
 * as `expired`; the write goes into `writes`.
 */
export function planQueue(
	key: OutboxKey,
	q: OutboxQueue,
	entry: OutboxEntry,
	options: { now: number; retryAfterMs?: number; random?: () => number; dueAt?: number },
	writes: OutboxWrites,
): Queued {
	const nextTry = options.dueAt ?? options.now + nextTryDelayMs(entry.attempts, options);
	const sealed = seal(key, entry, entryAad(q, entry.event_id));
	if (nextTry >= entry.deadline) {
		writes.dead(q, entry.event_id, 'expired', EXPIRED_MESSAGE, sealed);
		return { queued: false, reason: 'expired', message: EXPIRED_MESSAGE };
	}
	writes.enqueue(q, entry.event_id, sealed, nextTry, entry.deadline);
	const honoured =
		options.dueAt === undefined &&
		options.retryAfterMs !== undefined &&
		nextTry - options.now === Math.round(options.retryAfterMs);
	return {
		queued: true,
		nextTry,
		attempts: entry.attempts,
		...(honoured ? { retryAfterMs: Math.round(options.retryAfterMs!) } : {}),
	};
}

/**
 * Why the outbox refused a new event of `q`, in words a user can act on: the outbox, the
 * destination, what is at its bound and the fix (never what the event holds).
 */
export function refusedMessage(store: OutboxStore, q: OutboxQueue, why: Refused['why']): string {
	const where = `the outbox of ${q.platform} destination ${q.destination}`;
	if (why === 'memory')
		return `not queued: ${where} refused a new event: Redis is within the ${store.bounds.headroomPercent} % of maxmemory the outbox leaves to the dedup markers (LEAD_CAPI_REDIS_HEADROOM_PERCENT), so other destinations keep sending. Fix: raise Redis's maxmemory, lower LEAD_CAPI_OUTBOX_MAX_MB, or Purge dead letters; re-run the execution to send it (docs/outbox.md#bounds)`;
	return `not queued: ${where} is full (${formatBytes(store.bounds.maxBytes)} of queued events and dead letters, LEAD_CAPI_OUTBOX_MAX_MB): its new events are refused until it drains; other destinations are not affected. Fix: bring ${q.platform} back (its credential, the Lead CAPI Outbox Trigger's workflow), Replay or Purge its dead letters, or raise LEAD_CAPI_OUTBOX_MAX_MB; re-run the execution to send it (docs/outbox.md#bounds)`;
}

/** planQueue for one event, written at once (a refusal at the bound: not queued, with why). */
export async function queueEvent(
	store: OutboxStore,
	key: OutboxKey,
	q: OutboxQueue,
	entry: OutboxEntry,
	options: { now: number; retryAfterMs?: number; random?: () => number; dueAt?: number },
): Promise<Queued | { queued: false; refused: Refused['why']; message: string }> {
	const writes = new OutboxWrites();
	const queued = planQueue(key, q, entry, options, writes);
	const refused = (await writes.flush(store, options.now)).get(entryAad(q, entry.event_id));
	if (refused) return { queued: false, refused, message: refusedMessage(store, q, refused) };
	return queued;
}

/** The deadline of an event: its time plus the platform's window (ms). */
export const deadlineOf = (eventTimeSeconds: number, windowSeconds: number) =>
	(eventTimeSeconds + windowSeconds) * 1000;

/** Opens a sealed entry, or says why it cannot be (never what it holds). */
export function openEntry(
	key: OutboxKey,
	q: OutboxQueue,
	id: string,
	sealed: string | null,
): { ok: true; entry: OutboxEntry } | { ok: false; reason: DeadReason; message: string } {
	if (!sealed) return { ok: false, reason: 'not_found', message: 'outbox entry no longer exists' };
	try {
		return { ok: true, entry: open<OutboxEntry>(key, sealed, entryAad(q, id)) };
	} catch (error) {
		const message =
			error instanceof OutboxDecryptError ? error.message : 'outbox entry cannot be read';
		return { ok: false, reason: 'undecryptable', message };
	}
}

/**
 * Opens the entries of drained events of one queue: one read (HMGET) for all of them. Each is
 * the entry, or why it cannot be sent (not found, undecryptable, expired — the last two to be
 * dead-lettered by the caller).
 */
export async function openDrained(
	store: OutboxStore,
	key: OutboxKey,
	q: OutboxQueue,
	ids: string[],
	now: number,
): Promise<
	Array<{ ok: true; entry: OutboxEntry } | { ok: false; reason: DeadReason; message: string }>
> {
	const sealed = await store.load(q, ids);
	return ids.map((id, i) => {
		const opened = openEntry(key, q, id, sealed[i]);
		if (opened.ok && opened.entry.deadline <= now)
			return { ok: false, reason: 'expired' as const, message: EXPIRED_MESSAGE };
		return opened;
	});
}

/** A due event a drain hands to the senders: a reference, not the event (which stays sealed). */
export interface DrainedEvent {
	platform: OutboxQueue['platform'];
	destination: string;
	event_id: string;
	event_name: string;
	attempts: number;
}

/** What one poll did. */
export interface DrainResult {
	due: DrainedEvent[];
	deadLettered: Array<{
		platform: string;
		destination: string;
		event_id: string;
		reason: DeadReason;
	}>;
}

/** How long a drained event is reserved for the drainer that took it before it comes due again. */
export const DRAIN_LEASE_MS = 5 * 60_000;

/**
 * Takes the due events of every queue (or of one platform), reserving each for this drain:
 * entries that cannot be opened (wrong or rotated key, tampered) and entries past their window
 * go to dead letters with the reason; the others are returned, one reference each.
 */
export async function drainDue(
	store: OutboxStore,
	key: OutboxKey,
	options: { now: number; limit: number; platform?: string; leaseMs?: number },
): Promise<DrainResult> {
	const result: DrainResult = { due: [], deadLettered: [] };
	const writes = new OutboxWrites();
	for (const q of await store.queues()) {
		if (options.platform && q.platform !== options.platform) continue;
		const left = options.limit - result.due.length;
		if (left <= 0) break;
		const taken = await store.claimDue(q, options.now, left, options.leaseMs ?? DRAIN_LEASE_MS);
		for (const { id, sealed } of taken) {
			const opened = openEntry(key, q, id, sealed);
			const dead = !opened.ok
				? opened
				: opened.entry.deadline <= options.now
					? { reason: 'expired' as const, message: EXPIRED_MESSAGE }
					: undefined;
			if (dead) {
				writes.dead(q, id, dead.reason, dead.message);
				result.deadLettered.push({ ...q, event_id: id, reason: dead.reason });
				continue;
			}
			const entry = (opened as { entry: OutboxEntry }).entry;
			result.due.push({
				platform: q.platform,
				destination: q.destination,
				event_id: id,
				event_name: entry.event_name,
				attempts: entry.attempts,
			});
		}
		await writes.flush(store, options.now);
	}
	return result;
}

/** The result of sending a drained event, as the sender reports it. */
export interface DrainedSend {
	status: 'sent' | 'duplicate' | 'skipped' | 'expired' | 'failed' | 'queued';
	retryable?: boolean;
	error?: string;
}

/**
 * After a drained event was sent: delivered (or already there) → removed; failed retryably, or
 * skipped with "retry later" (Google's too-recent answers) → queued again with one more attempt
 * (the platform's Retry-After honoured; `expired` past its window); anything else → dead letter
 * `rejected` with the platform's message. The write goes into `writes`.
 */
export function planSettle(
	key: OutboxKey,
	q: OutboxQueue,
	entry: OutboxEntry,
	sent: DrainedSend,
	options: { now: number; retryAfterMs?: number; random?: () => number },
	writes: OutboxWrites,
): Queued | { delivered: true } {
	if (sent.status === 'sent' || sent.status === 'duplicate') {
		writes.remove(q, entry.event_id);
		return { delivered: true };
	}
	if ((sent.status === 'failed' || sent.status === 'skipped') && sent.retryable) {
		const next = { ...entry, attempts: entry.attempts + 1, last_error: sent.error?.slice(0, LAST_ERROR_CHARS) };
		return planQueue(key, q, next, options, writes);
	}
	const message = sent.error ?? `not sent (${sent.status})`;
	writes.dead(q, entry.event_id, 'rejected', message);
	return { queued: false, reason: 'rejected', message };
}

/** planSettle for one event, written at once. */
export async function settleDrained(
	store: OutboxStore,
	key: OutboxKey,
	q: OutboxQueue,
	entry: OutboxEntry,
	sent: DrainedSend,
	options: { now: number; retryAfterMs?: number; random?: () => number },
): Promise<Queued | { delivered: true }> {
	const writes = new OutboxWrites();
	const settled = planSettle(key, q, entry, sent, options, writes);
	await writes.flush(store, options.now);
	return settled;
}
