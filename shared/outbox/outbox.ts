import { nextTryDelayMs } from './backoff';
import { open, OutboxDecryptError, seal, type OutboxKey } from './crypto';
import type { DeadReason, OutboxEntry, OutboxQueue, OutboxStore } from './store';

/** Binds a sealed entry to its queue and event id: moved elsewhere, it no longer opens. */
export const entryAad = (q: OutboxQueue, id: string) => `${q.platform}|${q.destination}|${id}`;

export const EXPIRED_MESSAGE =
	"the platform's event-time window passed while the event waited in the outbox: not sent late";

/** What happened to an event handed to the outbox. */
export type Queued =
	| { queued: true; nextTry: number; attempts: number }
	| { queued: false; reason: DeadReason; message: string };

/**
 * Queues a failed event for its next try (backoff with jitter, Retry-After honoured), or — when
 * that try would fall past the platform's window — dead-letters it as `expired`.
 */
export async function queueEvent(
	store: OutboxStore,
	key: OutboxKey,
	q: OutboxQueue,
	entry: OutboxEntry,
	options: { now: number; retryAfterMs?: number; random?: () => number; dueAt?: number },
): Promise<Queued> {
	const nextTry = options.dueAt ?? options.now + nextTryDelayMs(entry.attempts, options);
	const sealed = seal(key, entry, entryAad(q, entry.event_id));
	if (nextTry >= entry.deadline) {
		await store.enqueue(q, entry.event_id, sealed, nextTry);
		await store.deadLetter(q, entry.event_id, 'expired', EXPIRED_MESSAGE, options.now);
		return { queued: false, reason: 'expired', message: EXPIRED_MESSAGE };
	}
	await store.enqueue(q, entry.event_id, sealed, nextTry);
	return { queued: true, nextTry, attempts: entry.attempts };
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
				await store.deadLetter(q, id, dead.reason, dead.message, options.now);
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
 * skipped with "retry later" (Google's too-recent answers) → queued again with one more attempt (or `expired` past its window); anything else → dead
 * letter `rejected` with the platform's message.
 */
export async function settleDrained(
	store: OutboxStore,
	key: OutboxKey,
	q: OutboxQueue,
	entry: OutboxEntry,
	sent: DrainedSend,
	options: { now: number; retryAfterMs?: number; random?: () => number },
): Promise<Queued | { delivered: true }> {
	if (sent.status === 'sent' || sent.status === 'duplicate') {
		await store.remove(q, entry.event_id);
		return { delivered: true };
	}
	if ((sent.status === 'failed' || sent.status === 'skipped') && sent.retryable) {
		const next = { ...entry, attempts: entry.attempts + 1, last_error: sent.error };
		return queueEvent(store, key, q, next, options);
	}
	const message = sent.error ?? `not sent (${sent.status})`;
	await store.deadLetter(q, entry.event_id, 'rejected', message, options.now);
	return { queued: false, reason: 'rejected', message };
}
