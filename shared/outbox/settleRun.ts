import type { ItemResult } from '../dispatch/types';
import { applyQueued, entryOf, errorText } from './apply';
import { entryAad, OutboxWrites, planQueue, planSettle, refusedMessage, type Queued } from './outbox';
import { atBound } from './queueBuilt';
import type { KeptEvents, OpenedEntries, OutboxMoves, OutboxPlatform, RunOutbox } from './run';

/** What each result the outbox takes will become, once the run's writes are applied. */
type Planned = Map<number, Queued | { delivered: true }>;

/** Without an outbox: retryable failures that could have been queued say why they were not. */
function warnNotQueued(warning: string | undefined, results: ItemResult[], kept: KeptEvents): void {
	if (!warning) return;
	results.forEach((r, i) => {
		if (r.status === 'failed' && r.retryable && kept.has(i)) r.warnings.push(warning);
	});
}

/**
 * Plans the outbox writes of a sent run in `writes`: a drained event is settled (planSettle), a
 * new event that failed retryably and was handed over is queued with its first attempt counted.
 */
function planWrites(
	run: RunOutbox & { on: true },
	adapter: OutboxPlatform,
	results: ItemResult[],
	kept: KeptEvents,
	opened: OpenedEntries,
	now: number,
	writes: OutboxWrites,
): Planned {
	const planned: Planned = new Map();
	results.forEach((r, i) => {
		const entry = opened.get(i);
		const built = kept.get(i);
		const q = { platform: adapter.platform, destination: r.destination };
		const retryAfterMs = built?.facts.retryAfterMs;
		if (entry) {
			planned.set(i, planSettle(run.key, q, entry, r, { now, retryAfterMs }, writes));
		} else if (r.status === 'failed' && r.retryable && built && r.event_id && r.event_time) {
			const first = entryOf(r, adapter, built, 1, now);
			planned.set(i, planQueue(run.key, q, first, { now, retryAfterMs }, writes));
		}
	});
	return planned;
}

/**
 * After a dispatch that sent: new events that failed retryably are queued (status `queued`,
 * with the next try — the platform's Retry-After when it asked for longer than the backoff);
 * drained events are settled (delivered → removed, retryable → queued again, otherwise dead
 * letter). All in one write per queue. Outbox trouble never loses the result: the items stay as
 * the dispatch left them and say why. Returns the results it changed (for the Health Report).
 */
export async function settleOutbox(
	run: RunOutbox,
	adapter: OutboxPlatform,
	results: ItemResult[],
	kept: KeptEvents,
	opened: OpenedEntries,
	now: number,
): Promise<OutboxMoves> {
	const moves: OutboxMoves = new Map();
	if (!run.on) {
		warnNotQueued(run.warning, results, kept);
		return moves;
	}
	const writes = new OutboxWrites();
	const planned = planWrites(run, adapter, results, kept, opened, now, writes);
	let refused: Map<string, 'budget' | 'memory'>;
	try {
		refused = await writes.flush(run.store, now);
	} catch (error) {
		for (const i of planned.keys())
			results[i].warnings.push(`the outbox could not be written: ${errorText(error)}`);
		return moves;
	}
	for (const [i, settled] of planned) {
		const q = { platform: adapter.platform, destination: results[i].destination };
		const why = results[i].event_id && refused.get(entryAad(q, results[i].event_id!));
		if (why) {
			atBound(results[i], refusedMessage(run.store, q, why));
			continue;
		}
		const moved = applyQueued(results[i], settled);
		if (moved) moves.set(i, moved);
	}
	return moves;
}
