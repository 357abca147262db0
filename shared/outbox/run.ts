import type { KeptFacts, PlatformAdapter } from '../dispatch/types';
import type { OutboxKey } from './crypto';
import type { OutboxEntry, OutboxStore } from './store';

/**
 * The state a sender's run passes from one outbox stage to the next (drained.ts → the dispatch →
 * queueBuilt.ts or settleRun.ts → counts.ts, put together by finish.ts). Framework-free: the
 * node reads its credentials and parameters into a RunOutbox and hands over plain JSON items.
 */

/** A run's outbox: where to queue and settle, with the key; or why there is none. */
export type RunOutbox =
	| { on: true; store: OutboxStore; key: OutboxKey }
	| { on: false; warning?: string };

/** What the outbox needs of the platform: its name and how long it accepts an event. */
export type OutboxPlatform = Pick<
	PlatformAdapter<unknown, unknown>,
	'platform' | 'eventTimeWindow'
>;

/** The entries behind drained items, opened, by item index. */
export type OpenedEntries = Map<number, OutboxEntry>;

/** A built event the dispatch handed over (onRetryable, or buildForOutbox's onBuilt) with its kept facts. */
export type KeptEvents = Map<number, { payload: unknown; facts: KeptFacts }>;

/** What a result became in the outbox, after the dispatch counted it. */
export type OutboxMove = 'queued' | 'dead_lettered' | 'duplicate';

/**
 * Results the outbox took after the dispatch counted them: item index → what they became
 * (`duplicate`: a drained event whose entry is gone — already delivered by another drain).
 */
export type OutboxMoves = Map<number, OutboxMove>;

/**
 * The drained events of a run: the entries opened (index → entry), those moved to dead letters,
 * and those whose entry was gone (index → event id: already delivered by another drain).
 */
export interface DrainedEntries {
	opened: OpenedEntries;
	moves: OutboxMoves;
	gone: Map<number, string>;
}

/** A run with no drained events. */
export const noDrained = (): DrainedEntries => ({
	opened: new Map(),
	moves: new Map(),
	gone: new Map(),
});
