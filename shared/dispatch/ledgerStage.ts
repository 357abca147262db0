import type { DedupStore } from '../dedup/types';
import { assessStage } from '../ledger/assess';
import { ledgerWriteFor, parseLedger, stageOf } from '../ledger/entry';
import type { LedgerWrite } from '../ledger/types';
import type { Candidate, RunState } from './runState';
import { errorMessage } from './runState';
import type { SettlePlan } from './types';

/**
 * The ledger's pipeline stage, between claim and prepare, over what the claim read of each
 * claimed event's ledger (in the claim's round trip, atomically with the claim, so no other run
 * writes the same stage meanwhile). Each candidate gets its lead's entry (`ledger`, for builders
 * such as Google adjustments); a stage the ledger has already (sent by a run whose dedup key has
 * since expired) becomes a duplicate and its claim is freed; skipped and out-of-order stages are
 * warned about and still sent. Returns the candidates to build and send. An unreadable ledger
 * never blocks a send: dedup still guards it, and the items say what was not checked.
 */
export async function consultLedger(
	run: RunState<unknown, unknown>,
	claimed: Candidate[],
	plan: SettlePlan,
): Promise<Candidate[]> {
	const store = run.options.store;
	const withLedger = claimed.filter((c) => c.ledgerKey !== undefined);
	if (!run.ledger || !store || withLedger.length === 0) return claimed;
	await readUnread(store, withLedger);
	const dropped = new Set<Candidate>();
	for (const c of withLedger) {
		const read = c.ledgerRead;
		c.ledgerRead = undefined;
		const r = run.results[c.index];
		if (read instanceof Error) {
			r.warnings.push(
				`the stage ledger could not be read (${errorMessage(read)}): sent under dedup alone, stage order not checked`,
			);
			continue;
		}
		c.ledger = parseLedger(read);
		if (stageOf(c.item.record) === undefined) continue;
		const verdict = assessStage(c.ledger, c.item.eventName, c.eventTime, run.ledger.stageOrder);
		if (verdict.alreadySent) {
			r.status = 'duplicate';
			r.dedup = 'sent_before';
			r.warnings.push('the stage ledger has this stage for this lead already: not sent again');
			plan.release.push(c.key);
			dropped.add(c);
			continue;
		}
		r.warnings.push(...verdict.warnings);
	}
	return dropped.size === 0 ? claimed : claimed.filter((c) => !dropped.has(c));
}

/**
 * The ledgers a store did not read with the claims (one that does not take
 * ClaimOptions.ledgerKeys): one readLedger round trip for them.
 */
async function readUnread(store: DedupStore, candidates: Candidate[]): Promise<void> {
	const unread = candidates.filter((c) => c.ledgerRead === undefined);
	if (unread.length === 0) return;
	try {
		const hashes = await store.readLedger(unread.map((c) => c.ledgerKey!));
		unread.forEach((c, i) => (c.ledgerRead = hashes[i] ?? null));
	} catch (error) {
		const failed = error instanceof Error ? error : new Error(String(error));
		for (const c of unread) c.ledgerRead = failed;
	}
}

/**
 * What sending candidate `c` adds to its lead's ledger — the one reading of a sent event for the
 * ledger, for direct sends and for the write an outbox entry keeps (`sentAt` omitted: a kept write
 * gets its `sent` when the drain sends it). Undefined without a ledger.
 */
export function candidateLedgerWrite(
	run: RunState<unknown, unknown>,
	c: Candidate,
	sentAt?: number,
): LedgerWrite | undefined {
	if (!run.ledger || c.ledgerKey === undefined) return undefined;
	return ledgerWriteFor({
		key: c.ledgerKey,
		gateKey: c.key,
		ttlMs: run.ledger.ttlMs,
		record: c.item.record,
		eventName: c.item.eventName,
		eventId: c.eventId,
		eventTime: c.eventTime,
		adjustment: run.adapter.adjusts === true,
		...(sentAt !== undefined ? { sentAt } : {}),
		crm: run.adapter.stageTimed?.(run.config) === true,
		leadIdAttribute: run.adapter.leadIdAttribute,
	});
}
