import { readRecordId } from '../events/eventId';
import { parseTimeMs } from '../events/eventTime';
import { parseLedger } from '../ledger/entry';
import { ledgerKey } from '../ledger/keys';
import type { LedgerEntry } from '../ledger/types';
import type { Platform } from '../types';

/**
 * Stage conditions (docs/stages.md) read the record through the one rule path: `stage` and
 * `previous_stage` are record fields (equals / not equals / in list), and
 * `days_since_lead_created` is derived here — the days from `lead_created_at` to the stage's
 * time (`stage_at`, else `occurred_at`). It never reads the clock, so the preview over logged
 * records and the live filter give the same answer for the same record.
 */
export const DAYS_SINCE_LEAD_CREATED = 'days_since_lead_created';

export function daysSinceLeadCreated(record: object): number[] {
	const r = record as { lead_created_at?: unknown; stage_at?: unknown; occurred_at?: unknown };
	const created = parseTimeMs(r.lead_created_at);
	const at = parseTimeMs(r.stage_at) ?? parseTimeMs(r.occurred_at);
	if (created === null || at === null) return [];
	return [Math.round(((at - created) / 86_400_000) * 1000) / 1000];
}

/**
 * The record with what the stage ledger knows filled in where the record is silent: the lead's
 * creation time and the last stage sent before this one (by time). The record's own values win.
 */
export function withLedgerFacts<R extends object>(record: R, entry: LedgerEntry | null): R {
	if (!entry) return record;
	const r = record as { lead_created_at?: unknown; previous_stage?: unknown; stage?: unknown };
	const out: Record<string, unknown> = { ...(record as Record<string, unknown>) };
	if ((r.lead_created_at ?? '') === '' && entry.createdAt) {
		out.lead_created_at = new Date(entry.createdAt * 1000).toISOString();
	}
	if ((r.previous_stage ?? '') === '') {
		const current = typeof r.stage === 'string' ? r.stage.trim().toLowerCase() : '';
		const earlier = Object.entries(entry.stages)
			.filter(([name]) => name.toLowerCase() !== current)
			.sort((a, b) => b[1] - a[1]);
		if (earlier.length > 0) out.previous_stage = earlier[0][0];
	}
	return out as R;
}

/** Where a lead's stage ledger is: the ledger of one destination, as its sender keeps it. */
export interface LedgerScope {
	/** The key prefix with the Client Key already applied (namespacedPrefix). */
	prefix: string;
	platform: Platform;
	/** The sender's destination id: pixel / dataset, ad account, conversion action… */
	destination: string;
	hashTag?: boolean;
}

/** What the ledger said of one record: `found`, `unknown` (no entry), `no_record_id`. */
export type LedgerLookup = 'found' | 'unknown' | 'no_record_id';

/**
 * The records with their stage ledger facts (withLedgerFacts), read in ONE round trip for the
 * whole batch (`read`: the store's readLedger, a pipeline of HGETALL). A record without a
 * record id, or one the ledger does not know, stays as it is: its stage conditions see only
 * its own fields. Errors of `read` propagate: the caller decides (the filter fails closed).
 */
export async function recordsWithLedgerFacts<R extends object>(
	records: ReadonlyArray<R | null>,
	scope: LedgerScope,
	read: (keys: string[]) => Promise<Array<Record<string, string> | null>>,
): Promise<Array<{ record: R | null; lookup: LedgerLookup }>> {
	const keyed = records.map((record) => {
		const id = record ? readRecordId((record as { record_id?: unknown }).record_id) : null;
		return id
			? ledgerKey(scope.prefix, scope.platform, scope.destination, id, { hashTag: scope.hashTag })
			: undefined;
	});
	const keys = keyed.filter((k): k is string => k !== undefined);
	const hashes = keys.length > 0 ? await read(keys) : [];
	let next = 0;
	return records.map((record, i) => {
		if (!record || keyed[i] === undefined) return { record, lookup: 'no_record_id' as const };
		const entry = parseLedger(hashes[next++]);
		return entry
			? { record: withLedgerFacts(record, entry), lookup: 'found' as const }
			: { record, lookup: 'unknown' as const };
	});
}
