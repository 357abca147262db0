import { claimBatch } from './claim';
import { prepareEvent } from './prepare';
import type { Candidate, RunState } from './runState';
import { applySendOutcomes, sendChunk, type SettlePlan } from './send';
import { settleBatch, startSettleRetry } from './settle';

/**
 * One platform-sized batch through claim → prepare → send → settle: two round trips to the
 * store (claim, settle) and one request to the platform (more when isolating bad events).
 */
export async function runBatch<Config, Payload>(
	run: RunState<Config, Payload>,
	batch: Candidate[],
): Promise<void> {
	const claimedAt = run.clock();
	const { claimed, token, state } = await claimBatch(run, batch);
	const plan: SettlePlan = { commit: [], release: [] };
	const chunk: Candidate[] = [];
	const payloads: Payload[] = [];
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
		chunk.push(c);
		payloads.push(payload);
	}
	if (payloads.length > 0) applySendOutcomes(run, chunk, await sendChunk(run, payloads), plan);
	if (run.options.store && token) {
		await settleBatch(run, { batch, claimed, token }, plan, startSettleRetry(claimedAt));
	}
}
