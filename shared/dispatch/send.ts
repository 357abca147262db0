import { WITHHELD } from '../platforms/isolate';
import { applyLeaseLoss } from './leaseHooks';
import { isUnknownOutcome, unknownOutcomeWarning } from './outcome';
import { errorMessage, type Candidate, type RunState } from './runState';
import type { SendHooks, SendOutcome, SettlePlan } from './types';

/** Lets pending I/O (a request just started, a response that arrived) run between CPU work. */
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Stage 4, send: one chunk through the platform's sender (which isolates bad events where the
 * platform refuses whole batches, see isolate.ts). An adapter that throws or answers for the
 * wrong number of events fails the chunk, retryable: its events are never marked as sent.
 */
export async function sendChunk<Config, Payload>(
	run: RunState<Config, Payload>,
	payloads: Payload[],
	hooks?: SendHooks,
): Promise<SendOutcome[]> {
	const asked = askedToWait(run);
	try {
		const sending = run.adapter.sendChunk(payloads, run.config, asked.transport, hooks);
		// Handled below; this keeps a fast rejection from counting as unhandled meanwhile.
		sending.catch(() => undefined);
		// Let the request go out before this thread builds the next batch.
		await yieldToIo();
		const outcomes = await sending;
		if (outcomes.length !== payloads.length) {
			throw new Error(`got ${outcomes.length} results for ${payloads.length} events`);
		}
		return asked.onto(outcomes);
	} catch (error) {
		const message = errorMessage(error);
		return payloads.map(() => ({
			status: 'failed' as const,
			error: `${run.adapter.platform}: unexpected error while sending: ${message}`,
			retryable: true,
		}));
	}
}

/**
 * The run's transport for one chunk, noting how long the platform asked to wait (Retry-After,
 * or a retry delay its error map read) on requests that failed for good; `onto` puts the longest
 * on the chunk's retryable failures, so the outbox does not try them again before then. A
 * stand-in transport without `observed` is used as it is.
 */
function askedToWait(run: RunState<unknown, unknown>): {
	transport: RunState<unknown, unknown>['transport'];
	onto(outcomes: SendOutcome[]): SendOutcome[];
} {
	let longest: number | undefined;
	const transport =
		typeof run.transport?.observed === 'function'
			? run.transport.observed((result) => {
					if (!result.ok && result.retryAfterMs !== undefined)
						longest = Math.max(longest ?? 0, result.retryAfterMs);
				})
			: run.transport;
	return {
		transport,
		onto: (outcomes) =>
			longest === undefined
				? outcomes
				: outcomes.map((o) =>
						(o.status === 'failed' || o.status === 'skipped') && o.retryable && o !== WITHHELD
							? { ...o, retryAfterMs: Math.max(o.retryAfterMs ?? 0, longest!) }
							: o,
					),
	};
}

/**
 * Writes each event's send outcome on its result and sorts its key: acknowledged events
 * (`sent`, platform-side `duplicate`) to commit — unless committed already while the sender
 * split the chunk (`committed`) — and the rest to release. Events withheld because the run lost
 * their claim say so (applyLeaseLoss).
 */
export function applySendOutcomes(
	run: RunState<unknown, unknown>,
	chunk: Candidate[],
	outcomes: SendOutcome[],
	into: SettlePlan,
	committed: ReadonlySet<string> = new Set(),
): void {
	chunk.forEach((c, i) => {
		const r = run.results[c.index];
		const outcome = outcomes[i];
		if (outcome === WITHHELD) return applyLeaseLoss(run, c, run.lease?.lossOf(c.key), into);
		if (outcome.response !== undefined) r.response = outcome.response;
		if (outcome.status === 'sent' || outcome.status === 'duplicate') {
			r.status = outcome.status;
			if (outcome.warning) r.warnings.push(outcome.warning);
			if (!committed.has(c.key)) into.commit.push(c.key);
			return;
		}
		if (outcome.status === 'skipped') {
			r.status = 'skipped';
			r.error = outcome.reason;
		} else {
			r.status = 'failed';
			r.error = outcome.error;
			if (isUnknownOutcome(outcome)) return applyUnknownOutcome(run, c, into);
		}
		r.retryable = outcome.retryable;
		into.release.push(c.key);
		// Its claim is freed by the settle (which says so if it cannot).
		if (r.dedup === 'claimed') r.dedup = 'released';
	});
}

/**
 * A send whose outcome is unknown: the item says so. Where the run resends unknown outcomes (the
 * platform drops a resend of the same id, or the user chose Resend) its claim is released and a
 * retry resends it with the same id; elsewhere it is held — marked `u` for as long as a sent
 * marker — so no re-run sends it again unless told to.
 */
function applyUnknownOutcome(
	run: RunState<unknown, unknown>,
	c: Candidate,
	into: SettlePlan,
): void {
	const r = run.results[c.index];
	r.outcome_unknown = true;
	// Only a claim of this run can become a held marker (not with dedup off, or bypassed).
	const hold = !run.resendUnknown && r.dedup === 'claimed';
	const next = run.resendUnknown ? 'resend' : hold ? 'hold' : 'unheld';
	r.warnings.push(unknownOutcomeWarning(run.adapter, next));
	if (!hold) {
		r.retryable = true;
		into.release.push(c.key);
		if (r.dedup === 'claimed') r.dedup = 'released';
		return;
	}
	r.retryable = false;
	(into.hold ??= []).push(c.key);
	if (r.dedup === 'claimed') r.dedup = 'held';
}
