import type { ItemResult, KeptFacts } from '../dispatch/types';
import { deadlineOf, type Queued } from './outbox';
import type { OutboxPlatform } from './run';
import { LAST_ERROR_CHARS, type OutboxEntry } from './store';

/** What the outbox writes on the item results it takes: the entry queued, and what became of it. */

/** A drained event whose outbox entry no longer exists: not sent here. */
export const ALREADY_DELIVERED = 'outbox entry already delivered or removed';

export const errorText = (error: unknown) =>
	error instanceof Error ? error.message : String(error);

const nextTryText = (ms: number) => new Date(ms).toISOString();

/** The entry a built event is queued as (attempts: sends tried so far). */
export function entryOf(
	r: ItemResult,
	adapter: OutboxPlatform,
	kept: { payload: unknown; facts: KeptFacts },
	attempts: number,
	now: number,
): OutboxEntry {
	return {
		event_id: r.event_id!,
		event_name: r.event_name,
		event_time: r.event_time!,
		payload: kept.payload,
		attempts,
		deadline: deadlineOf(r.event_time!, adapter.eventTimeWindow.seconds),
		...(attempts > 0 && r.error ? { last_error: r.error.slice(0, LAST_ERROR_CHARS) } : {}),
		queued_at: now,
		...(kept.facts.ledger ? { ledger: kept.facts.ledger } : {}),
	};
}

/** Writes a queue's outcome on the item; says what the item became, when it left `failed`. */
export function applyQueued(
	r: ItemResult,
	settled: Queued | { delivered: true },
): 'queued' | 'dead_lettered' | undefined {
	if ('delivered' in settled) return undefined;
	if (!settled.queued) {
		r.status = 'failed';
		r.retryable = false;
		r.error = `moved to dead letters (${settled.reason}): ${r.error ?? settled.message}`;
		return 'dead_lettered';
	}
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

/**
 * A drained event whose outbox entry was gone when it was read: another drain (or a Replay, or
 * Purge) already took it — delivered under the same event id, so this run sent nothing. It is a
 * `duplicate` (dedup `sent_before`), as a user expects of an event already sent, never `failed`.
 */
export function alreadyDelivered(r: ItemResult, eventId: string): void {
	r.status = 'duplicate';
	r.event_id = eventId;
	r.dedup = 'sent_before';
	delete r.error;
	delete r.retryable;
	r.warnings.push(`${ALREADY_DELIVERED}: not sent again`);
}
