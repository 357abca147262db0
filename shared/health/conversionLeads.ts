import { parseLedger } from '../ledger/entry';
import type { ConversionLeadsCheck, ConversionLeadsHealth } from '../stats/stats';


/**
 * Meta Conversion Leads health: Meta's own list of what a CRM integration needs, checked against
 * what the stage ledger holds for a dataset's CRM leads (docs/platforms/meta-conversion-leads.md,
 * *Health check*). Counts, names and times only: the ledger holds no personal data.
 */

const DAY_S = 86_400;
/** Meta's partner guide: "Wait for 7 days of CRM event" before configuring the funnel. */
export const CL_MIN_DAYS_OF_DATA = 7;
/** Meta's FAQ: "upload data at least once per day". */
export const CL_MAX_HOURS_BETWEEN_UPLOADS = 24;
/** Meta's FAQ: the stage to optimize for "occurs within 28 days of leads being generated". */
export const CL_STAGE_WITHIN_DAYS = 28;
/** Meta's FAQ: "an approximate conversion rate between 1% and 40%". */
export const CL_CONVERSION_RATE = { min: 0.01, max: 0.4 };
/** Ours (Meta names no figure): the share of leads that carry Meta's lead id. */
export const CL_MIN_LEAD_ID_SHARE = 0.9;

const fold = (name: string) => name.trim().toLowerCase();
const round3 = (n: number) => Math.round(n * 1000) / 1000;

function median(values: number[]): number | null {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One lead as the checks read it. */
interface CrmLead {
	createdAt?: number;
	first?: string;
	hasLeadId: boolean;
	sentAt?: number;
	/** Stage (folded) → event time, unix s. */
	stages: Map<string, number>;
}

function readCrmLeads(hashes: ReadonlyArray<Record<string, string>>): CrmLead[] {
	const leads: CrmLead[] = [];
	for (const hash of hashes) {
		if (hash.src !== 'crm') continue;
		const entry = parseLedger(hash);
		if (!entry) continue;
		const sent = Number(hash.sent);
		leads.push({
			createdAt: entry.createdAt,
			first: entry.first ? fold(entry.first.event) : undefined,
			hasLeadId: typeof entry.ids.lead_id === 'string' && entry.ids.lead_id !== '',
			sentAt: Number.isFinite(sent) && sent > 0 ? sent : undefined,
			stages: new Map(Object.entries(entry.stages).map(([name, at]) => [fold(name), at])),
		});
	}
	return leads;
}

/** The most common first event of the leads: their initial stage. */
function initialStage(leads: CrmLead[]): string | null {
	const counts = new Map<string, number>();
	for (const lead of leads)
		if (lead.first) counts.set(lead.first, (counts.get(lead.first) ?? 0) + 1);
	let best: string | null = null;
	for (const [name, n] of counts) if (best === null || n > (counts.get(best) ?? 0)) best = name;
	return best;
}

function stageFigures(leads: CrmLead[]): ConversionLeadsHealth['stages'] {
	const byStage = new Map<string, { leads: number; days: number[] }>();
	for (const lead of leads) {
		for (const [name, at] of lead.stages) {
			const figures = byStage.get(name) ?? { leads: 0, days: [] };
			figures.leads++;
			if (lead.createdAt !== undefined) figures.days.push((at - lead.createdAt) / DAY_S);
			byStage.set(name, figures);
		}
	}
	const out: ConversionLeadsHealth['stages'] = {};
	for (const [name, { leads: n, days }] of [...byStage].sort((a, b) => b[1].leads - a[1].leads)) {
		const m = median(days);
		out[name] = {
			leads: n,
			share: round3(n / leads.length),
			median_days: m === null ? null : round3(m),
		};
	}
	return out;
}

/**
 * The health of one Meta dataset's Conversion Leads integration from its ledger hashes (only
 * the leads a CRM event was sent for: `src: crm`), or null when it has none. `nowMs` is the
 * report's clock; `sampled` when the ledger held more leads than were read.
 */
export function conversionLeadsHealth(
	hashes: ReadonlyArray<Record<string, string>>,
	options: { nowMs: number; sampled?: boolean },
): ConversionLeadsHealth | null {
	const leads = readCrmLeads(hashes);
	if (leads.length === 0) return null;
	const facts = crmFacts(leads, Math.floor(options.nowMs / 1000));
	const checks = conversionLeadsChecks(facts);
	return {
		leads: leads.length,
		sampled: Boolean(options.sampled),
		initial_stage: facts.initial,
		stages: facts.stages,
		pass: checks.every((c) => c.pass),
		checks,
	};
}

/** What the checks read off the ledger's CRM leads (no personal data: names, counts, times). */
interface CrmFacts {
	leads: number;
	initial: string | null;
	stages: ConversionLeadsHealth['stages'];
	later: Array<[string, ConversionLeadsHealth['stages'][string]]>;
	eventDays: number;
	hoursSinceUpload: number | null;
	withLater: number;
	leadIdShare: number;
}

function crmFacts(leads: CrmLead[], now: number): CrmFacts {
	const initial = initialStage(leads);
	const stages = stageFigures(leads);
	const eventDays = new Set<number>();
	for (const lead of leads)
		for (const at of lead.stages.values()) eventDays.add(Math.floor(at / DAY_S));
	const lastUpload = Math.max(0, ...leads.map((l) => l.sentAt ?? 0));
	return {
		leads: leads.length,
		initial,
		stages,
		later: Object.entries(stages).filter(([name]) => name !== initial),
		eventDays: eventDays.size,
		hoursSinceUpload: lastUpload > 0 ? round3((now - lastUpload) / 3600) : null,
		withLater: leads.filter((l) => [...l.stages.keys()].some((s) => s !== initial)).length,
		leadIdShare: round3(leads.filter((l) => l.hasLeadId).length / leads.length),
	};
}

/** Meta's validation list, each check with its threshold and where the threshold comes from. */
function conversionLeadsChecks(f: CrmFacts): ConversionLeadsCheck[] {
	const inTime = f.later.filter(
		([, s]) => s.median_days !== null && s.median_days <= CL_STAGE_WITHIN_DAYS,
	);
	const inRate = f.later.filter(
		([, s]) => s.share >= CL_CONVERSION_RATE.min && s.share <= CL_CONVERSION_RATE.max,
	);
	const names = (list: Array<[string, unknown]>) =>
		list.map(([n]) => `"${n}"`).join(', ') || 'none';
	const { initial, stages, eventDays, hoursSinceUpload, withLater, leadIdShare } = f;
	return [
		{
			check: 'stages_seen',
			pass: initial !== null && f.later.length >= 1,
			value: Object.keys(stages).length,
			threshold: 'the initial lead stage and at least one later stage (every stage, as it changes)',
			basis: 'unconfirmed',
			detail: `stages sent: ${Object.keys(stages)
				.map((n) => `"${n}"`)
				.join(', ')}; initial: ${initial === null ? 'unknown' : `"${initial}"`}`,
		},
		{
			check: 'days_of_data',
			pass: eventDays >= CL_MIN_DAYS_OF_DATA,
			value: eventDays,
			threshold: `CRM events on at least ${CL_MIN_DAYS_OF_DATA} days`,
			basis: 'meta',
			detail: `days (UTC) with CRM events in the ledger: ${eventDays}`,
		},
		{
			check: 'upload_frequency',
			pass: hoursSinceUpload !== null && hoursSinceUpload <= CL_MAX_HOURS_BETWEEN_UPLOADS,
			value: hoursSinceUpload,
			threshold: `an upload at least once a day (the last one at most ${CL_MAX_HOURS_BETWEEN_UPLOADS} hours ago)`,
			basis: 'meta',
			detail:
				hoursSinceUpload === null
					? 'no upload time in the ledger (kept for leads sent since the health check exists)'
					: `last upload ${hoursSinceUpload} hours ago`,
		},
		{
			check: 'leads_with_events',
			pass: withLater >= 1,
			value: withLater,
			threshold: 'leads with an event after the initial stage: at least 1',
			basis: 'unconfirmed',
			detail: `${withLater} of ${f.leads} leads have a stage after the initial one`,
		},
		{
			check: 'lead_id_coverage',
			pass: leadIdShare >= CL_MIN_LEAD_ID_SHARE,
			value: leadIdShare,
			threshold: `at least ${CL_MIN_LEAD_ID_SHARE * 100} % of leads sent with Meta's lead id`,
			basis: 'unconfirmed',
			detail: `${Math.round(leadIdShare * 1000) / 10} % of leads carry attributes.meta_lead_id`,
		},
		{
			check: 'stage_within_28_days',
			pass: inTime.length >= 1,
			value: inTime.length,
			threshold: `a later stage reached within ${CL_STAGE_WITHIN_DAYS} days of the lead (median)`,
			basis: 'meta',
			detail: `later stages within ${CL_STAGE_WITHIN_DAYS} days: ${names(inTime)}`,
		},
		{
			check: 'conversion_rate',
			pass: inRate.length >= 1,
			value: inRate.length,
			threshold: 'a later stage reached by 1 % to 40 % of leads',
			basis: 'meta',
			detail: `later stages in range: ${names(inRate)}`,
		},
	];
}

/** Most ledger hashes one report reads (the health of a larger ledger is a sample: `sampled`). */
export const CL_MAX_LEADS_READ = 20_000;

/** Where a platform's ledgers start under a key prefix: `<prefix>:ledger:meta:`. */
export function ledgerStart(prefix: string, platform: string): string {
	return `${prefix}:ledger:${platform}:`;
}

/**
 * The Conversion Leads health per Meta dataset, from ledger hashes read under
 * `ledgerStart(prefix, 'meta')` (keys `…:<dataset>:<sha256>` or `…:{<dataset>}:<sha256>`).
 * Datasets without CRM leads are left out.
 */
export function conversionLeadsByDestination(
	entries: ReadonlyArray<{ key: string; fields: Record<string, string> }>,
	start: string,
	options: { nowMs: number; sampled?: boolean },
): Map<string, ConversionLeadsHealth> {
	const byDestination = new Map<string, Array<Record<string, string>>>();
	for (const { key, fields } of entries) {
		if (!key.startsWith(start)) continue;
		const rest = key.slice(start.length);
		const cut = rest.lastIndexOf(':');
		if (cut <= 0) continue;
		const destination = rest.slice(0, cut).replace(/^\{(.*)\}$/, '$1');
		const list = byDestination.get(destination) ?? [];
		list.push(fields);
		byDestination.set(destination, list);
	}
	const out = new Map<string, ConversionLeadsHealth>();
	for (const [destination, hashes] of byDestination) {
		const health = conversionLeadsHealth(hashes, options);
		if (health) out.set(destination, health);
	}
	return out;
}
