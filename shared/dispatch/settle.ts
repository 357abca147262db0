import { storeTimedOut } from '../dedup/types';
import { settleLedgerWrites } from './keep';
import { errorMessage, statsOf, type Candidate, type RunState } from './runState';
import type { SettlePlan, ItemResult } from './types';

/** Where a batch's settle stands: when its claims were made, what its retries waited, whether to count it. */
export interface SettleRetry {
	claimedAt: number;
	slept: number;
	delay: number;
	count: boolean;
}

/** The batch a settle is for: all its events (counted), the claimed ones, their token. */
export interface SettleBatch {
	batch: Candidate[];
	claimed: Candidate[];
	token: string;
	/** Keys committed already, while the sender split the batch. */
	committed?: ReadonlySet<string>;
}

export const startSettleRetry = (claimedAt: number): SettleRetry => ({
	claimedAt,
	slept: 0,
	delay: 200,
	count: true,
});

/**
 * Stage 5, settle: commits what the platform acknowledged, releases what was not sent, and
 * counts the batch — one round trip. When the store fails after the platform acknowledged
 * events, it is tried again (see waitToSettleAgain) before the events are left with a warning.
 */
export async function settleBatch(
	run: RunState<unknown, unknown>,
	target: SettleBatch,
	plan: SettlePlan,
	retry: SettleRetry,
): Promise<void> {
	const store = run.options.store!;
	try {
		const settled = await store.settleBatch(target.token, {
			commit: plan.commit,
			release: plan.release,
			hold: plan.hold,
			committedTtlMs: run.committedTtlMs,
			ledger: settleLedgerWrites(run, target.claimed, plan.commit),
			stats: retry.count
				? statsOf(
						run,
						target.batch.map((c) => run.results[c.index]),
					)
				: undefined,
		});
		if (settled.notOwned.length > 0) warnNotOwned(run, target.claimed, new Set(settled.notOwned));
	} catch (error) {
		const message = errorMessage(error);
		const mustRecord = plan.commit.length > 0 || (plan.hold?.length ?? 0) > 0;
		if (mustRecord && (await waitToSettleAgain(run, retry, storeTimedOut(error)))) {
			return settleBatch(run, target, plan, retry);
		}
		warnUnsettled(
			run,
			target.claimed.filter((c) => !target.committed?.has(c.key)),
			message,
		);
	}
}

function warnNotOwned(
	run: RunState<unknown, unknown>,
	claimed: Candidate[],
	lost: Set<string>,
): void {
	for (const c of claimed) {
		const r = run.results[c.index];
		// Only an event this run sent (or may have) can have been sent twice.
		const mayHaveSent = r.status === 'sent' || r.status === 'duplicate' || r.dedup === 'held';
		if (lost.has(c.key) && mayHaveSent) {
			r.warnings.push(
				"this run's claim had expired before it settled: another run may have sent this event too",
			);
		}
	}
}

function warnUnsettled(
	run: RunState<unknown, unknown>,
	claimed: Candidate[],
	message: string,
): void {
	for (const c of claimed) {
		const r = run.results[c.index];
		// The claim was not freed: it is held until it expires.
		if (r.dedup === 'released') r.dedup = 'claimed';
		r.warnings.push(
			r.status === 'sent'
				? `${message}: sent, but not recorded as sent; its claim expires and a re-run could send it again`
				: r.dedup === 'held'
					? `${message}: could not record it as held; its claim expires and a re-run could send it again`
					: `${message}: could not free the claim; a retry can send it after the claim expires`,
		);
	}
}

/**
 * After a failed settle of acknowledged events (Redis restarting, failing over, paused): waits
 * a little and says whether to try again — for as long as this run's claims last. Until then no
 * other run can send those events, so recording them late is still exactly once; giving up at
 * once would let the next re-run send them a second time.
 */
export async function waitToSettleAgain(
	run: RunState<unknown, unknown>,
	retry: SettleRetry,
	timedOut: boolean,
): Promise<boolean> {
	// A settle that timed out may still run once Redis answers: the batch is counted once.
	if (timedOut) retry.count = false;
	// The claims last while the lease does (renewed in the background, as far as the store
	// answers). Its own sleeps count too, so an injected clock that stands still cannot spin it.
	const until = run.lease?.expiresAt() ?? retry.claimedAt + run.claimTtlMs;
	const now = Math.max(run.clock(), retry.claimedAt + retry.slept);
	if (now + retry.delay >= until) return false;
	await run.sleep(retry.delay);
	retry.slept += retry.delay;
	retry.delay = Math.min(retry.delay * 2, 2_000);
	return true;
}

/** Counters for results no settle counted: one round trip, never fatal. */
export async function recordStatsAlone(
	run: RunState<unknown, unknown>,
	counted: ItemResult[],
): Promise<void> {
	if (!run.options.store || counted.length === 0) return;
	try {
		await run.options.store.recordStats(statsOf(run, counted));
	} catch {
		// Health counters must never fail a dispatch; the store error shows elsewhere.
	}
}
