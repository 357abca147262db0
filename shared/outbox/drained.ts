import type { DispatchItem } from '../dispatch/types';
import { ALREADY_DELIVERED, errorText } from './apply';
import { openDrained, OutboxWrites, type DrainedEvent } from './outbox';
import { noDrained, type DrainedEntries, type OutboxPlatform, type RunOutbox } from './run';
import type { OutboxEntry, OutboxQueue } from './store';

/**
 * Reading drained events, before the dispatch: the input items the Outbox Trigger emitted (each
 * a reference to a queued event) become prebuilt dispatch items, from their sealed entries.
 */

/** A drained item this run sends: its index and the reference the trigger emitted. */
interface Wanted {
	index: number;
	ref: DrainedEvent;
}

/** An entry as openDrained read it. */
type Opened = Awaited<ReturnType<typeof openDrained>>[number];

/** An input item's JSON as a reference to a queued event (emitted by the Outbox Trigger), or undefined. */
export function drainedRefOf(json: Readonly<Record<string, unknown>>): DrainedEvent | undefined {
	const ref = json.outbox as Record<string, unknown> | undefined;
	if (!ref || typeof ref !== 'object' || typeof ref.event_id !== 'string') return undefined;
	if (typeof ref.platform !== 'string' || typeof ref.destination !== 'string') return undefined;
	return ref as unknown as DrainedEvent;
}

/** Fails a dispatch item on its own, with the reason. */
const failItem = (dispatchItems: DispatchItem[], i: number, eventName: string, error: string) =>
	(dispatchItems[i] = { record: {}, eventName, error });

const NEEDS_OUTBOX =
	'an outbox event needs Retry Failed Sends Later → Queue in Outbox, Redis dedup and the Outbox Key credential on this node';

/** The drained items this run can send (its own queue, with the outbox on); the others fail with the reason. */
function sendableRefs(
	run: RunOutbox,
	q: OutboxQueue,
	inputs: ReadonlyArray<Readonly<Record<string, unknown>>>,
	dispatchItems: DispatchItem[],
): Wanted[] {
	const wanted: Wanted[] = [];
	inputs.forEach((json, index) => {
		const ref = drainedRefOf(json);
		if (!ref) return;
		const name = ref.event_name ?? '';
		if (!run.on) failItem(dispatchItems, index, name, NEEDS_OUTBOX);
		else if (ref.platform !== q.platform || ref.destination !== q.destination)
			failItem(
				dispatchItems,
				index,
				name,
				`this outbox event is for ${ref.platform} ${ref.destination}; this node sends to ${q.platform} ${q.destination}`,
			);
		else wanted.push({ index, ref });
	});
	return wanted;
}

/** A drained entry as a dispatch item: its event as built, and the ledger write it keeps. */
export function prebuiltItem(entry: OutboxEntry): DispatchItem {
	const ledger = entry.ledger;
	return {
		record: ledger?.stage !== undefined ? { stage: ledger.stage } : {},
		eventName: entry.event_name,
		prebuilt: {
			eventId: entry.event_id,
			eventTime: entry.event_time,
			payload: entry.payload,
			...(ledger ? { ledger } : {}),
		},
	};
}

/** The wanted entries, opened in one read; undefined (each item failed, still queued) when the read fails. */
async function openWanted(
	run: RunOutbox & { on: true },
	q: OutboxQueue,
	wanted: Wanted[],
	dispatchItems: DispatchItem[],
	now: number,
): Promise<Opened[] | undefined> {
	try {
		const ids = wanted.map((w) => w.ref.event_id);
		return await openDrained(run.store, run.key, q, ids, now);
	} catch (error) {
		for (const { index, ref } of wanted)
			failItem(
				dispatchItems,
				index,
				ref.event_name ?? '',
				`the outbox could not be read (${errorText(error)}): the event stays queued and comes due again`,
			);
		return undefined;
	}
}

/**
 * One wanted item with its entry: opened → a prebuilt dispatch item; gone → held back (reported
 * a duplicate after the dispatch); unusable → failed, its dead letter planned in `writes`.
 */
function takeEntry(
	drained: DrainedEntries,
	q: OutboxQueue,
	{ index, ref }: Wanted,
	entry: Opened,
	dispatchItems: DispatchItem[],
	writes: OutboxWrites,
): void {
	if (entry.ok) {
		drained.opened.set(index, entry.entry);
		dispatchItems[index] = prebuiltItem(entry.entry);
		return;
	}
	const name = ref.event_name ?? '';
	if (entry.reason === 'not_found') {
		// Nothing is sent (the item is held back as failed), then reported as a duplicate.
		failItem(dispatchItems, index, name, ALREADY_DELIVERED);
		drained.gone.set(index, ref.event_id);
		return;
	}
	writes.dead(q, ref.event_id, entry.reason, entry.message);
	drained.moves.set(index, 'dead_lettered');
	failItem(dispatchItems, index, name, `moved to dead letters (${entry.reason}): ${entry.message}`);
}

/** Writes the planned dead letters; when that fails, those items say so and come due again. */
async function writeDeadLetters(
	run: RunOutbox & { on: true },
	writes: OutboxWrites,
	drained: DrainedEntries,
	dispatchItems: DispatchItem[],
	now: number,
): Promise<void> {
	try {
		await writes.flush(run.store, now);
	} catch (error) {
		for (const index of drained.moves.keys()) {
			drained.moves.delete(index);
			dispatchItems[index].error =
				`${dispatchItems[index].error} — not written (${errorText(error)}): it comes due again`;
		}
	}
}

/**
 * Drained items (`inputs`: each input item's JSON) become prebuilt dispatch items in
 * `dispatchItems` (the sealed event as it was built, under its own event id, with the ledger
 * write it keeps); one that cannot be opened, is for another destination or has expired fails
 * on its own with the reason (and goes to dead letters when its entry is unusable). All entries
 * are read in one round trip, dead letters written in one more.
 */
export async function readDrained(
	run: RunOutbox,
	adapter: OutboxPlatform,
	destination: string,
	inputs: ReadonlyArray<Readonly<Record<string, unknown>>>,
	dispatchItems: DispatchItem[],
	now: number,
): Promise<DrainedEntries> {
	const drained = noDrained();
	const q: OutboxQueue = { platform: adapter.platform, destination };
	const wanted = sendableRefs(run, q, inputs, dispatchItems);
	if (!run.on || wanted.length === 0) return drained;
	const entries = await openWanted(run, q, wanted, dispatchItems, now);
	if (!entries) return drained;
	const writes = new OutboxWrites();
	wanted.forEach((w, k) => takeEntry(drained, q, w, entries[k], dispatchItems, writes));
	await writeDeadLetters(run, writes, drained, dispatchItems, now);
	return drained;
}
