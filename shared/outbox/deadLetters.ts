import type { DeadLetter, OutboxQueue, OutboxStore } from './store';

/**
 * Which dead letters Replay or Purge act on: the event ids given, those older than an age, or
 * all of them — an explicit choice, never what an empty field means.
 */
export type DeadLetterSelection =
	| { by: 'ids'; ids: string[] }
	| { by: 'age'; olderThanMs: number }
	| { by: 'all' };

/** What Replay or Purge did on one queue, in counts. */
export interface DeadLetterAction {
	platform: string;
	destination: string;
	/** Dead letters of the queue before the action. */
	found: number;
	/** Those the selection took. */
	selected: number;
	/** Those replayed (back in the queue, due now) or purged. */
	done: number;
	/** Dead letters left in the queue after it. */
	left: number;
}

/** The ids of a queue's dead letters that a selection takes. */
export function selectedIds(
	dead: DeadLetter[],
	selection: DeadLetterSelection,
	now: number,
): string[] {
	if (selection.by === 'all') return dead.map((d) => d.event_id);
	if (selection.by === 'age')
		return dead.filter((d) => now - d.at >= selection.olderThanMs).map((d) => d.event_id);
	const wanted = new Set(selection.ids);
	return dead.filter((d) => wanted.has(d.event_id)).map((d) => d.event_id);
}

/** Replays or purges the selected dead letters of one queue and says what it did. */
export async function actOnDeadLetters(
	store: OutboxStore,
	q: OutboxQueue,
	action: 'replay' | 'purge',
	selection: DeadLetterSelection,
	now: number,
): Promise<DeadLetterAction> {
	const dead = await store.deadLetters(q, now);
	const ids = selectedIds(dead, selection, now);
	const done =
		ids.length === 0
			? 0
			: action === 'replay'
				? await store.replay(q, ids, now)
				: await store.purge(q, ids);
	// Replay and Purge both take every selected dead letter out of the dead letters (a replay
	// without a sealed entry to put back only drops it), so what is left follows from the read.
	return { ...q, found: dead.length, selected: ids.length, done, left: dead.length - ids.length };
}

/** A selection in words, for the output and an empty result. */
export function selectionText(selection: DeadLetterSelection): string {
	if (selection.by === 'all') return 'all dead letters';
	if (selection.by === 'age')
		return `dead letters older than ${selection.olderThanMs / 86_400_000} days`;
	return `${selection.ids.length} event id${selection.ids.length === 1 ? '' : 's'}`;
}
