import { storeTimedOut, type ClaimBatchResult, type ClaimOptions, type DedupStore } from '../dedup/types';
import { joinSentences } from '../sentences';
import { heldReason } from './outcome';
import type { Lease } from './lease';
import { errorMessage, type Candidate, type RunState } from './runState';
import type { DedupState } from './types';

/**
 * Follows the store's own message on items failed closed: what happened and what to change.
 * (A node shows the store's message as the headline and this as the description.)
 */
export const DEDUP_FAIL_CLOSED_NOTE =
	'Nothing was sent (dedup fails closed). Retry the execution once the store answers; or, to send without dedup while it is down, set Options → If Dedup Store Is Unavailable → Send Anyway.';

/** The longest a dispatch waits for another run's live claim on the same event by default. */
export const MAX_IN_FLIGHT_WAIT_MS = 120_000;

/**
 * How long a dispatch waits for another run's live claim on the same event to settle: the
 * claim lease plus 2 s (32 s with the default 30 s lease), at most 120 s. A live run renews its
 * claims and settles them; a crashed run's claims expire within one lease of its last renewal,
 * so a retry started right after a crash waits them out and sends the events, instead of
 * failing them `in_flight`.
 */
export function inFlightWaitFor(claimTtlMs: number): number {
	return Math.min(claimTtlMs + 2_000, MAX_IN_FLIGHT_WAIT_MS);
}

/** What the claim stage gives a batch: the events this run may send, under which token. */
export interface Claim {
	claimed: Candidate[];
	/** The owner token of the claims (none without a store, or when it was bypassed). */
	token?: string;
	state: DedupState;
}

/**
 * Stage 3, claim: one round trip for the batch, which also reads the stage ledger of each event
 * claimed (when the run keeps one: `Candidate.ledgerRead`); events sent before become
 * duplicates; events another run holds are waited for (bounded). A store that fails fails the
 * batch closed, or — fail open — lets it be sent unclaimed.
 */
export async function claimBatch(
	run: RunState<unknown, unknown>,
	batch: Candidate[],
): Promise<Claim> {
	const { store, lease } = { store: run.options.store, lease: run.lease };
	if (!store || !lease) return { claimed: batch, state: 'off' };
	const keys = batch.map((c) => c.key);
	const claimedAt = run.clock();
	let found: ClaimBatchResult;
	try {
		found = await store.claimBatch(keys, run.claimTtlMs, lease.token, claimOptions(run, batch));
	} catch (error) {
		return claimFailed(run, store, batch, lease.token, error);
	}
	const claimed: Candidate[] = [];
	const waiting = applyClaimOutcomes(run, batch, found, claimed);
	// From now on the run renews these claims for as long as it works on them.
	lease.hold(
		claimed.map((c) => c.key),
		claimedAt,
	);
	await waitForOtherRuns(run, { store, lease }, waiting, claimed);
	return { claimed, token: lease.token, state: 'claimed' };
}

/**
 * Held keys are taken (and their events resent) only where the run resends unknown outcomes; the
 * ledger of each event claimed is read with its claim when the run keeps a ledger.
 */
const claimOptions = (run: RunState<unknown, unknown>, group: Candidate[]): ClaimOptions =>
	run.ledger
		? { takeHeld: run.resendUnknown, ledgerKeys: group.map((c) => c.ledgerKey) }
		: { takeHeld: run.resendUnknown };

/** A claim the store did not answer: fail closed (nothing sent) or open (sent unclaimed). */
function claimFailed(
	run: RunState<unknown, unknown>,
	store: DedupStore,
	batch: Candidate[],
	token: string,
	error: unknown,
): Claim {
	const message = errorMessage(error);
	// A claim that timed out (Redis paused or stalled) still runs once Redis answers and claims
	// these events for no live run: a re-run would find them "in flight" for the whole claim TTL.
	// Free them right behind it (same connection, so in that order); best effort.
	if (storeTimedOut(error)) {
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

/**
 * Adds the claimed events to `claimed` (with what the claim read of their ledger), marks those
 * sent before; returns those in flight elsewhere.
 */
function applyClaimOutcomes(
	run: RunState<unknown, unknown>,
	group: Candidate[],
	found: ClaimBatchResult,
	claimed: Candidate[],
): Candidate[] {
	const still: Candidate[] = [];
	const { outcomes, ledger } = found;
	group.forEach((c, i) => {
		if (outcomes[i] === 'claimed') {
			if (ledger) c.ledgerRead = ledger[i];
			claimed.push(c);
		} else if (outcomes[i] === 'in_flight') still.push(c);
		else if (outcomes[i] === 'held') markHeld(run, c);
		else {
			const r = run.results[c.index];
			r.status = 'duplicate';
			r.dedup = 'sent_before';
			r.warnings.push('already sent by an earlier run: not sent again');
		}
	});
	return still;
}

/** Why an event is still in flight after the wait, and when a retry sends it. */
function inFlightMessage(waitMs: number, claimTtlMs: number): string {
	const head = `another run claimed this event and has not settled it within ${Math.round(waitMs / 1000)} s; nothing was sent here.`;
	const lease = Math.round(claimTtlMs / 1000);
	return waitMs >= claimTtlMs
		? `${head} That run is alive (it kept renewing its ${lease} s claim): retry after it has finished, and the event is sent if it did not send it`
		: `${head} If that run crashed, its claim expires within ${lease} s of its last renewal: retry after that and the event is sent`;
}

/**
 * An event an earlier run sent without an answer and held (the platform may count a resend
 * twice): not sent again; the item says what happened and how to resend it.
 */
function markHeld(run: RunState<unknown, unknown>, c: Candidate): void {
	const r = run.results[c.index];
	r.status = 'skipped';
	r.dedup = 'held';
	r.outcome_unknown = true;
	r.retryable = false;
	r.error = heldReason(run.adapter.platform);
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
	const waitMs = run.options.inFlightWaitMs ?? inFlightWaitFor(run.claimTtlMs);
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
			const again = await store.claimBatch(keys, run.claimTtlMs, lease.token, claimOptions(run, waiting));
			waiting = applyClaimOutcomes(run, waiting, again, claimed);
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
		r.error = inFlightMessage(waitMs, run.claimTtlMs);
	}
}
