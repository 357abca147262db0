import type { DedupStore } from '../dedup/types';
import type { ItemResult } from '../dispatch/types';
import { alreadyDelivered } from './apply';
import { outboxNow } from './clock';
import { countOutboxMoves } from './counts';
import { queueBuilt } from './queueBuilt';
import type { DrainedEntries, KeptEvents, OutboxPlatform, RunOutbox } from './run';
import { settleOutbox } from './settleRun';

/** What a sender's run hands to the outbox after its dispatch. */
export interface FinishInput {
	run: RunOutbox;
	adapter: OutboxPlatform;
	results: ItemResult[];
	/** The built events the dispatch handed over (onRetryable, or buildForOutbox's onBuilt). */
	kept: KeptEvents;
	/** What readDrained found before the dispatch. */
	drained: DrainedEntries;
	/** Deliver → Via Outbox: the dispatch built the events (mode `buildForOutbox`) and sent none. */
	viaOutbox: boolean;
	/** The run's dedup store, for the Health Report's counters (null: none). */
	store: DedupStore | null;
	keyPrefix: string;
	/** When the dispatch ran (its counters' hour). */
	runAt: number;
}

/**
 * The outbox's part after a sender's dispatch: Deliver → Via Outbox queues the built events;
 * otherwise retryable failures are queued and drained events settled; drained events whose
 * entry was gone become duplicates; then the Health Report's counters are corrected for what
 * the outbox took (one round trip, only when it took any).
 */
export async function finishOutbox(input: FinishInput): Promise<void> {
	const { run, adapter, results, kept, drained } = input;
	const counted = input.viaOutbox ? undefined : results.map((r) => r.status as string);
	const now = outboxNow();
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
