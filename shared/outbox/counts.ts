import type { DedupStore } from '../dedup/types';
import type { ItemResult } from '../dispatch/types';
import { outboxMoveIncrements, statsBucket, statsKey, STATS_TTL_MS } from '../stats/stats';
import type { OutboxMoves } from './run';

/**
 * The Health Report's counters for the results the outbox took after the dispatch counted them:
 * one round trip, only when there are any, never fatal. A result counted `failed` (or
 * `skipped`) and then queued, dead-lettered or found already delivered (`duplicate`) is counted
 * there instead; an event only queued (Deliver → Via Outbox: not counted by the dispatch that
 * built it, `countedAs` says nothing) adds to `queued`.
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
