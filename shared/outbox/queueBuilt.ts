import type { ItemResult } from '../dispatch/types';
import { applyQueued, entryOf, errorText } from './apply';
import { entryAad, OutboxWrites, planQueue, refusedMessage, type Queued } from './outbox';
import type { KeptEvents, OutboxMoves, OutboxPlatform, RunOutbox } from './run';

/**
 * Deliver → Via Outbox, after the dispatch built each event (mode `buildForOutbox`): each built
 * one is queued due now (attempt 0) and output `queued`, all in one write; the drain sends them
 * in platform-sized batches and dedup keeps them once (an event sent before is dropped there as
 * a duplicate). When the write fails, each is `failed`, `retryable`, with the reason.
 */
export async function queueBuilt(
	run: RunOutbox,
	adapter: OutboxPlatform,
	results: ItemResult[],
	kept: KeptEvents,
	now: number,
): Promise<OutboxMoves> {
	const moves: OutboxMoves = new Map();
	if (!run.on) return moves;
	const writes = new OutboxWrites();
	const planned = new Map<number, Queued>();
	const queueOf = (r: ItemResult) => ({ platform: adapter.platform, destination: r.destination });
	results.forEach((r, i) => {
		const built = kept.get(i);
		if (!built || !r.event_id || !r.event_time) return;
		// A queued item carries no payload (it is sealed in the outbox), whatever Include Payload says.
		delete r.payload;
		const q = queueOf(r);
		const entry = entryOf(r, adapter, built, 0, now);
		planned.set(i, planQueue(run.key, q, entry, { now, dueAt: now }, writes));
	});
	let refused: Map<string, 'budget' | 'memory'>;
	try {
		refused = await writes.flush(run.store, now);
	} catch (error) {
		for (const i of planned.keys()) notQueued(results[i], error);
		return moves;
	}
	for (const [i, queued] of planned) {
		const r = results[i];
		const why = refused.get(entryAad(queueOf(r), r.event_id!));
		if (why) atBound(r, refusedMessage(run.store, queueOf(r), why));
		else moves.set(i, applyQueued(r, queued) ?? 'queued');
	}
	return moves;
}

/** A built event the outbox refused at its bound: failed, retryable, saying which bound and the fix. */
export function atBound(r: ItemResult, message: string): void {
	r.status = 'failed';
	r.retryable = true;
	r.error = r.error ? `${r.error}; ${message}` : message;
}

/** A built event the outbox could not take: failed, retryable (a re-run builds and queues it again). */
function notQueued(r: ItemResult, error: unknown): void {
	r.status = 'failed';
	r.retryable = true;
	r.error = `not queued: the outbox could not be written: ${errorText(error)}`;
}
