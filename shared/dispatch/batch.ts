import { consultLedger } from './ledgerStage';
import { claimBatch } from './claim';
import { keptFacts } from './keep';
import { applyLeaseLoss, leaseHooks } from './leaseHooks';
import { prepareEvent } from './prepare';
import type { Candidate, RunState } from './runState';
import { applySendOutcomes, sendChunk } from './send';
import type { SettlePlan, DedupState, SendOutcome } from './types';
import { settleBatch, startSettleRetry } from './settle';

/**
 * One platform-sized batch through claim → prepare → send → settle: two round trips to the
 * store (claim, settle) and one request to the platform; when the sender splits the batch to
 * isolate refused events, each accepted part is committed as soon as it is accepted, and only
 * events whose claims the run still holds are sent (the lease, lease.ts).
 */
export async function runBatch<Config, Payload>(
	run: RunState<Config, Payload>,
	batch: Candidate[],
): Promise<void> {
	const claimedAt = run.clock();
	const { claimed, token, state } = await claimBatch(run, batch);
	const plan: SettlePlan = { commit: [], release: [] };
	const committed = new Set<string>();
	try {
		const toSend = state === 'claimed' ? await consultLedger(run, claimed, plan) : claimed;
		const prepared = prepareChunk(run, toSend, state, plan);
		const chunk = await stillHeld(run, prepared, plan);
		if (chunk.length > 0) {
			const hooks = token ? leaseHooks(run, chunk.candidates, committed) : undefined;
			const outcomes = await sendChunk(run, chunk.payloads, hooks);
			applySendOutcomes(run, chunk.candidates, outcomes, plan, committed);
			handRetryable(run, chunk, outcomes);
		}
		if (run.options.store && token) {
			await settleBatch(
				run,
				{ batch, claimed, token, committed },
				plan,
				startSettleRetry(claimedAt),
			);
		}
	} finally {
		run.lease?.letGo(claimed.map((c) => c.key));
	}
}

/** Hands the built events that failed retryably (not sent) to options.onRetryable. */
function handRetryable<Payload>(
	run: RunState<unknown, Payload>,
	chunk: Chunk<Payload>,
	outcomes: SendOutcome[],
): void {
	const hook = run.options.onRetryable;
	if (!hook) return;
	chunk.candidates.forEach((c, i) => {
		const r = run.results[c.index];
		if (r.status === 'failed' && r.retryable && !r.outcome_unknown && r.dedup !== 'lease_lost') {
			hook(c.index, chunk.payloads[i], keptFacts(run, c, outcomes[i]));
		}
	});
}

/** The events of a batch that were built, with their payloads, in the same order. */
interface Chunk<Payload> {
	candidates: Candidate[];
	payloads: Payload[];
	length: number;
}

/** Stage 2 for a claimed batch: builds each event; one that cannot be built frees its claim. */
function prepareChunk<Payload>(
	run: RunState<unknown, Payload>,
	claimed: Candidate[],
	state: DedupState,
	plan: SettlePlan,
): Chunk<Payload> {
	const chunk: Chunk<Payload> = { candidates: [], payloads: [], length: 0 };
	for (const c of claimed) {
		const payload = prepareEvent(run, c);
		// An event that cannot be built is skipped or failed on its own merits: its claim is
		// freed and it reports no dedup state, exactly as if it had never been claimed.
		if (payload === null) {
			plan.release.push(c.key);
			continue;
		}
		const r = run.results[c.index];
		r.dedup = state;
		if (state === 'off')
			r.warnings.push('dedup is off: a re-run or a retried webhook sends this event again');
		chunk.candidates.push(c);
		chunk.payloads.push(payload);
	}
	chunk.length = chunk.payloads.length;
	return chunk;
}

/**
 * Before the request goes out: only events whose claims the run still holds (a batch may have
 * waited long for another run's claims). Usually no round trip: the lease is renewed in the
 * background, and only a lease past two thirds of its TTL is renewed here first.
 */
async function stillHeld<Payload>(
	run: RunState<unknown, Payload>,
	chunk: Chunk<Payload>,
	plan: SettlePlan,
): Promise<Chunk<Payload>> {
	if (
		!run.lease ||
		chunk.length === 0 ||
		run.results[chunk.candidates[0].index].dedup !== 'claimed'
	) {
		return chunk;
	}
	const held = new Set(await run.lease.confirm(chunk.candidates.map((c) => c.key)));
	if (held.size === chunk.length) return chunk;
	const kept: Chunk<Payload> = { candidates: [], payloads: [], length: 0 };
	chunk.candidates.forEach((c, i) => {
		if (held.has(c.key)) {
			kept.candidates.push(c);
			kept.payloads.push(chunk.payloads[i]);
		} else applyLeaseLoss(run, c, run.lease!.lossOf(c.key), plan);
	});
	kept.length = kept.payloads.length;
	return kept;
}
