import { parseTimeMs } from '../events/eventTime';
import type { LedgerEntry } from '../ledger/types';

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
