import { settleLedgerWrites } from './keep';
import type { LeaseLoss } from './lease';
import type { Candidate, RunState } from './runState';
import type { SettlePlan, SendHooks, SendOutcome } from './types';

/**
 * What the send stage lets a splitting sender (sendIsolating) do under the run's lease: before
 * each further request, send only the events whose claims the run still holds; commit each part
 * the platform accepted at once (one round trip), so a long split never leaves accepted events
 * unrecorded while it goes on. Keys committed here are added to `committed`.
 */
export function leaseHooks(
	run: RunState<unknown, unknown>,
	chunk: Candidate[],
	committed: Set<string>,
): SendHooks {
	const lease = run.lease!;
	return {
		admit: async (indices) => {
			const kept = new Set(await lease.confirm(indices.map((i) => chunk[i].key)));
			return indices.filter((i) => kept.has(chunk[i].key));
		},
		partAccepted: async (indices, outcomes) => {
			const keys = indices.filter((_, k) => acknowledged(outcomes[k])).map((i) => chunk[i].key);
			await commitEarly(run, keys, committed, chunk);
		},
	};
}

export const acknowledged = (outcome: SendOutcome) =>
	outcome.status === 'sent' || outcome.status === 'duplicate';

/** Commits accepted keys now; what fails here is left to the batch's settle, which retries. */
async function commitEarly(
	run: RunState<unknown, unknown>,
	keys: string[],
	committed: Set<string>,
	chunk: Candidate[],
) {
	const { store } = run.options;
	if (!store || !run.lease || keys.length === 0) return;
	try {
		const settled = await store.settleBatch(run.lease.token, {
			commit: keys,
			release: [],
			committedTtlMs: run.committedTtlMs,
			ledger: settleLedgerWrites(run, chunk, keys),
		});
		const notOwned = new Set(settled.notOwned);
		const done = keys.filter((key) => !notOwned.has(key));
		for (const key of done) committed.add(key);
		run.lease.letGo(done);
	} catch {
		// The batch's settle commits them, trying again for as long as the lease lasts.
	}
}

/**
 * An event the run did not send because it no longer held its claim: what happened, on its
 * result. A claim the run could not renew is released (if it is still the run's) so that a
 * retry can send the event; the others belong to another run now, or to nobody.
 */
export function applyLeaseLoss(
	run: RunState<unknown, unknown>,
	c: Candidate,
	loss: LeaseLoss | undefined,
	plan: SettlePlan,
): void {
	const r = run.results[c.index];
	r.response = undefined;
	if (loss?.kind === 'sent') {
		r.status = 'duplicate';
		r.dedup = 'sent_before';
		r.warnings.push(
			"this run's claim lapsed before it sent this event, and another run sent it meanwhile: not sent here",
		);
		return;
	}
	r.status = 'failed';
	r.retryable = true;
	r.dedup = 'lease_lost';
	if (loss?.kind === 'taken') {
		r.error =
			"this run's claim on this event lapsed before it was sent, and another run claimed it: not sent here (that run sends it; a retry finds it sent, or sends it if that run failed)";
	} else if (loss?.kind === 'expired') {
		r.error =
			"this run's claim on this event lapsed before it was sent (not renewed in time): not sent here; a retry sends it";
	} else {
		const message = loss?.kind === 'unconfirmed' ? loss.message : 'the dedup store did not answer';
		r.error = `${message}: this run could not renew its claim on this event, so it did not send it (another run may hold it by now); a retry sends it`;
		plan.release.push(c.key);
	}
}
