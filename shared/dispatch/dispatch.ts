import { runBatch } from './batch';
import { planRun, resolveRepeats } from './plan';
import { prepareDryRun, prepareForOutbox } from './prepare';
import { startRun, type Candidate } from './runState';
import { recordStatsAlone } from './settle';
import type { DispatchItem, DispatchOptions, ItemResult } from './types';

export { DEDUP_FAIL_CLOSED_NOTE } from './claim';

const DEFAULT_CONCURRENCY = 4;

/**
 * items → exactly one result per item, through explicit stages over one run state
 * (runState.ts): plan (ids, repeats, event time) → per platform-sized batch: claim → prepare
 * (identity → platform builder) → send (isolating bad events) → settle.
 *
 * Event ids need no identity work, so each batch is claimed before anything is built and only
 * claimed events are normalized, hashed and built — a re-run of already-sent leads costs almost
 * nothing. A few batches run at a time, so one batch's waits on Redis and on the platform
 * overlap another's CPU work, and only the batches in flight are held in memory.
 *
 * Guarantees: an event is sent only under a claim this run owns (or with the store bypassed in
 * fail-open mode, or dedup off); an event is committed only when the platform acknowledged it;
 * every failure releases its claim so a retry can send it; one bad item never sinks the others;
 * the order of results is the order of the items.
 *
 * options.mode (DispatchMode): a dry run and a build for the outbox stop after prepare — every
 * event built, none claimed or sent; the first previews the request, the second hands each
 * built event to its onBuilt for the outbox to queue.
 */
export async function dispatch<Config, Payload>(
	items: DispatchItem[],
	options: DispatchOptions<Config, Payload>,
): Promise<ItemResult[]> {
	const run = startRun(options, items.length);
	const { candidates, repeats } = planRun(run, items);
	if (candidates.length === 0) {
		resolveRepeats(run, repeats);
		await recordStatsAlone(run, run.results);
		return run.results;
	}
	const mode = options.mode ?? { kind: 'send' };
	if (mode.kind !== 'send') {
		if (mode.kind === 'dryRun') prepareDryRun(run, candidates);
		else prepareForOutbox(run, candidates, mode.onBuilt);
		resolveRepeats(run, repeats);
		return run.results;
	}
	const inBatch = new Uint8Array(items.length);
	for (const c of candidates) inBatch[c.index] = 1;
	try {
		await runBatches(candidates, options, (batch) => runBatch(run, batch));
	} finally {
		run.lease?.stop();
	}
	resolveRepeats(run, repeats);
	// Items that never reached a batch (input errors, skips, repeats) are counted on their own,
	// in one more round trip only when there are any.
	await recordStatsAlone(
		run,
		run.results.filter((_, i) => inBatch[i] === 0),
	);
	return run.results;
}

/** Platform-sized batches, a few at a time; each batch is let go of once it has run. */
async function runBatches(
	candidates: Candidate[],
	options: DispatchOptions<unknown, unknown>,
	each: (batch: Candidate[]) => Promise<void>,
): Promise<void> {
	const limit = options.adapter.maxBatchSize;
	const size = Math.max(1, Math.min(options.batchSize ?? limit, limit));
	const batches: Array<Candidate[] | null> = [];
	for (let start = 0; start < candidates.length; start += size) {
		batches.push(candidates.slice(start, start + size));
	}
	// From here on each batch holds its own candidates.
	candidates.length = 0;
	let next = 0;
	const worker = async () => {
		while (next < batches.length) {
			const index = next++;
			await each(batches[index]!);
			batches[index] = null;
		}
	};
	const workers = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, batches.length));
	await Promise.all(Array.from({ length: workers }, worker));
}
