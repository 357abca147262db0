import type { ClaimOutcome, DedupStore } from '../dedup/types';
import { joinSentences } from '../sentences';
import type { Lease } from './lease';
import { errorMessage, type Candidate, type RunState } from './runState';
import type { DedupState } from './types';

/**
 * Follows the store's own message on items failed closed: what happened and what to change.
 * (A node shows the store's message as the headline and this as the description.)
 */
export const DEDUP_FAIL_CLOSED_NOTE =
	'Nothing was sent (dedup fails closed). Retry the execution once the store answers; or, to send without dedup while it is down, set Options → If Dedup Store Is Unavailable → Send Anyway.';

/** How long a dispatch waits for another run's live claim on the same event to settle. */
export const DEFAULT_IN_FLIGHT_WAIT_MS = 10_000;

/** What the claim stage gives a batch: the events this run may send, under which token. */
export interface Claim {
	claimed: Candidate[];
	/** The owner token of the claims (none without a store, or when it was bypassed). */
	token?: string;
	state: DedupState;
}

/**
 * Stage 3, claim: one round trip for the batch; events sent before become duplicates; events
 * another run holds are waited for (bounded). A store that fails fails the batch closed, or —
 * fail open — lets it be sent unclaimed.
 */
export async function claimBatch(
	run: RunState<unknown, unknown>,
	batch: Candidate[],
): Promise<Claim> {
	const { store, lease } = { store: run.options.store, lease: run.lease };
	if (!store || !lease) return { claimed: batch, state: 'off' };
	const keys = batch.map((c) => c.key);
	const claimedAt = run.clock();
	let outcomes: ClaimOutcome[];
	try {
		outcomes = (await store.claimBatch(keys, run.claimTtlMs, lease.token)).outcomes;
	} catch (error) {
		return claimFailed(run, store, batch, lease.token, errorMessage(error));
	}
	const claimed: Candidate[] = [];
	const waiting = applyClaimOutcomes(run, batch, outcomes, claimed);
	// From now on the run renews these claims for as long as it works on them.
	lease.hold(
		claimed.map((c) => c.key),
		claimedAt,
	);
	await waitForOtherRuns(run, { store, lease }, waiting, claimed);
	return { claimed, token: lease.token, state: 'claimed' };
}

/** A claim the store did not answer: fail closed (nothing sent) or open (sent unclaimed). */
function claimFailed(
	run: RunState<unknown, unknown>,
	store: DedupStore,
	batch: Candidate[],
	token: string,
	message: string,
): Claim {
	// A claim that timed out (Redis paused or stalled) still runs once Redis answers and claims
	// these events for no live run: a re-run would find them "in flight" for the whole claim TTL.
	// Free them right behind it (same connection, so in that order); best effort.
	if (/timed out/i.test(message)) {
		const release = batch.map((c) => c.key);
		store
			.settleBatch(token, { commit: [], release, committedTtlMs: run.committedTtlMs })
			.catch(() => undefined);
	}
	if ((run.options.failMode ?? 'closed') === 'closed') {
		for (const c of batch) {
			const r = run.results[c.index];
			r.status = 'failed';
			r.retryable = true;
			r.dedup = 'unavailable';
			r.error = joinSentences(message, DEDUP_FAIL_CLOSED_NOTE);
		}
		return { claimed: [], state: 'claimed' };
	}
	for (const c of batch) {
		run.results[c.index].warnings.push(
			`${message}; sent without a claim (fail open), relying on the platform's own event_id deduplication`,
		);
	}
	return { claimed: batch, state: 'bypassed' };
}

/** Adds the claimed events to `claimed`, marks those sent before; returns those in flight elsewhere. */
export function applyClaimOutcomes(
	run: RunState<unknown, unknown>,
	group: Candidate[],
	found: ClaimOutcome[],
	claimed: Candidate[],
): Candidate[] {
	const still: Candidate[] = [];
	group.forEach((c, i) => {
		if (found[i] === 'claimed') claimed.push(c);
		else if (found[i] === 'in_flight') still.push(c);
		else {
			const r = run.results[c.index];
			r.status = 'duplicate';
			r.dedup = 'sent_before';
			r.warnings.push('already sent by an earlier run: not sent again');
		}
	});
	return still;
}

/**
 * Another run holds a live claim: a duplicate delivery racing this one, or a run that crashed
 * after claiming. Waits (bounded) for it to settle: "sent" makes the event a duplicate, a
 * released or expired claim is claimed here. Only the contended keys cost extra round trips;
 * what is still held at the end fails, retryable, `in_flight`.
 */
async function waitForOtherRuns(
	run: RunState<unknown, unknown>,
	{ store, lease }: { store: DedupStore; lease: Lease },
	waiting: Candidate[],
	claimed: Candidate[],
): Promise<void> {
	const waitMs = run.options.inFlightWaitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS;
	let waited = 0;
	let delay = 200;
	while (waiting.length > 0 && waited + delay <= waitMs) {
		await run.sleep(delay);
		waited += delay;
		delay = Math.min(delay * 2, 2_000);
		try {
			const claimedAt = run.clock();
			const before = claimed.length;
			const keys = waiting.map((c) => c.key);
			const again = await store.claimBatch(keys, run.claimTtlMs, lease.token);
			waiting = applyClaimOutcomes(run, waiting, again.outcomes, claimed);
			lease.hold(
				claimed.slice(before).map((c) => c.key),
				claimedAt,
			);
		} catch {
			break;
		}
	}
	for (const c of waiting) {
		const r = run.results[c.index];
		r.status = 'failed';
		r.retryable = true;
		r.dedup = 'in_flight';
		r.error = `another run claimed this event and has not settled it within ${Math.round(waitMs / 1000)} s; nothing was sent here. If that run crashed, its claim expires within ${Math.round(run.claimTtlMs / 1000)} s and a retry sends the event`;
	}
}
