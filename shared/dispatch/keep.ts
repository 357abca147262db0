import { stageOf } from '../ledger';
import { candidateLedgerWrite } from './ledgerStage';
import type { LedgerWrite } from '../ledger/types';
import type { Candidate, RunState } from './runState';
import type { KeptFacts, SendOutcome } from './types';

/**
 * What an event that may be sent later (the outbox) keeps from this dispatch: the platform's
 * Retry-After, and the stage-ledger write its send will make — made now by the ledger's own
 * candidateLedgerWrite from the record, which a later send no longer has (a drained event carries no
 * record). A drained event passes on what it kept.
 */
export function keptFacts(
	run: RunState<unknown, unknown>,
	c: Candidate,
	outcome?: SendOutcome,
): KeptFacts {
	const retryAfterMs =
		outcome && (outcome.status === 'failed' || outcome.status === 'skipped')
			? outcome.retryAfterMs
			: undefined;
	const kept: KeptFacts = retryAfterMs !== undefined ? { retryAfterMs } : {};
	if (c.item.prebuilt) {
		if (c.item.prebuilt.ledger) kept.ledger = c.item.prebuilt.ledger;
		return kept;
	}
	const write = candidateLedgerWrite(run, c);
	if (!write) return kept;
	const stage = stageOf(c.item.record);
	kept.ledger = {
		key: write.key,
		set: write.set,
		setIfAbsent: write.setIfAbsent,
		...(stage !== undefined ? { stage } : {}),
	};
	return kept;
}

/**
 * The ledger writes of the events a settle commits (each gated by its commit): built from the
 * record for events of this run (candidateLedgerWrite), then as kept for drained ones — so a
 * stage sent via the outbox leaves the same ledger entry as a direct send.
 */
export function settleLedgerWrites(
	run: RunState<unknown, unknown>,
	candidates: readonly Candidate[],
	commit: readonly string[],
): LedgerWrite[] | undefined {
	if (!run.ledger) return undefined;
	const committing = new Set(commit);
	const sentAt = Math.floor(run.clock() / 1000);
	const writes: LedgerWrite[] = [];
	for (const c of candidates) {
		if (c.item.prebuilt || !committing.has(c.key)) continue;
		const write = candidateLedgerWrite(run, c, sentAt);
		if (write) writes.push(write);
	}
	for (const c of candidates) {
		const kept = c.item.prebuilt?.ledger;
		if (!kept || !committing.has(c.key)) continue;
		writes.push({
			key: kept.key,
			gateKey: c.key,
			ttlMs: run.ledger.ttlMs,
			set: { ...kept.set, sent: String(sentAt) },
			setIfAbsent: kept.setIfAbsent,
		});
	}
	return writes.length > 0 ? writes : undefined;
}
