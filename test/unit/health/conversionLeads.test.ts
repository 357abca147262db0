import {
	conversionLeadsByDestination,
	conversionLeadsHealth,
	ledgerStart,
} from '../../../shared/health/conversionLeads';
import type { ConversionLeadsHealth } from '../../../shared/stats/stats';

const NOW_MS = Date.UTC(2026, 11, 1, 12, 0, 0);
const NOW = NOW_MS / 1000;
const DAY = 86_400;

/** A CRM lead's ledger hash as the settle script writes it: created, first event, stages, ids. */
function crmHash(options: {
	createdDaysAgo: number;
	stages: Array<[string, number]>; // [stage, days ago]
	leadId?: boolean;
	sentHoursAgo?: number;
	src?: string;
}): Record<string, string> {
	const hash: Record<string, string> = {
		src: options.src ?? 'crm',
		created: String(NOW - options.createdDaysAgo * DAY),
		first_event: options.stages[0][0],
		first_event_id: 'e'.repeat(64),
		first_time: String(NOW - options.stages[0][1] * DAY),
		sent: String(NOW - (options.sentHoursAgo ?? 1) * 3600),
	};
	for (const [stage, daysAgo] of options.stages) hash[`stage:${stage}`] = String(NOW - daysAgo * DAY);
	if (options.leadId !== false) hash['id:lead_id'] = '123456789012345';
	return hash;
}

/** A healthy integration: 20 leads over 10 days, each day some, 4 of them Qualified within days. */
function healthy(): Array<Record<string, string>> {
	return Array.from({ length: 20 }, (_, i) =>
		crmHash({
			createdDaysAgo: 10 - (i % 10),
			stages: i < 4 ? [['Lead', 10 - (i % 10)], ['Qualified', Math.max(0, 8 - (i % 10))]] : [['Lead', 10 - (i % 10)]],
		}),
	);
}

const byCheck = (health: ConversionLeadsHealth | null) =>
	Object.fromEntries((health?.checks ?? []).map((c) => [c.check, c.pass]));

describe("Meta Conversion Leads health: Meta's checklist against the stage ledger", () => {
	it('a healthy integration passes every check, with the figures behind them', () => {
		const health = conversionLeadsHealth(healthy(), { nowMs: NOW_MS });
		expect(health).toMatchObject({ leads: 20, sampled: false, initial_stage: 'lead', pass: true });
		expect(health!.stages.qualified).toEqual({ leads: 4, share: 0.2, median_days: 2 });
		expect(byCheck(health)).toEqual({
			stages_seen: true,
			days_of_data: true,
			upload_frequency: true,
			leads_with_events: true,
			lead_id_coverage: true,
			stage_within_28_days: true,
			conversion_rate: true,
		});
		for (const check of health!.checks) expect(['meta', 'unconfirmed']).toContain(check.basis);
	});

	it.each<[string, (hashes: Array<Record<string, string>>) => Array<Record<string, string>>, string]>([
		['only the initial stage is sent', (h) => h.map((x) => ({ ...x, 'stage:Qualified': '' })).map(dropEmpty), 'stages_seen'],
		['fewer than 7 days with CRM events', (h) => h.map((x) => crmHash({ createdDaysAgo: 3, stages: x['stage:Qualified'] ? [['Lead', 3], ['Qualified', 2]] : [['Lead', 3]] })), 'days_of_data'],
		['the last upload more than 24 hours ago', (h) => h.map((x) => ({ ...x, sent: String(NOW - 30 * 3600) })), 'upload_frequency'],
		['fewer than 90 % of leads with a lead id', (h) => h.map((x, i) => (i < 3 ? dropLeadId(x) : x)), 'lead_id_coverage'],
		['the later stage reached after 28 days (median)', (h) => h.map((x) => (x['stage:Qualified'] ? { ...x, created: String(NOW - 60 * DAY) } : x)), 'stage_within_28_days'],
		['more than 40 % of leads reach the later stage', (h) => h.map((x, i) => (i < 10 ? { ...x, 'stage:Qualified': String(NOW - DAY) } : x)), 'conversion_rate'],
		['less than 1 % of leads reach the later stage', (h) => [...h.filter((x) => !x['stage:Qualified']), ...Array.from({ length: 90 }, () => crmHash({ createdDaysAgo: 9, stages: [['Lead', 9]] })), crmHash({ createdDaysAgo: 9, stages: [['Lead', 9], ['Qualified', 8]] })], 'conversion_rate'],
	])('fails when %s', (_label, change, failing) => {
		const health = conversionLeadsHealth(change(healthy()), { nowMs: NOW_MS });
		const failed = health!.checks.filter((c) => !c.pass).map((c) => c.check);
		expect(failed).toContain(failing);
		expect(health!.pass).toBe(false);
	});

	it('no lead with a later stage: leads_with_events and the stage checks fail', () => {
		const health = conversionLeadsHealth([crmHash({ createdDaysAgo: 1, stages: [['Lead', 1]] })], { nowMs: NOW_MS });
		expect(byCheck(health)).toMatchObject({
			leads_with_events: false,
			stage_within_28_days: false,
			conversion_rate: false,
		});
	});

	it('counts only CRM leads; a dataset without them has no Conversion Leads health', () => {
		const website = healthy().map((h) => ({ ...h, src: '' }));
		expect(conversionLeadsHealth(website, { nowMs: NOW_MS })).toBeNull();
		expect(conversionLeadsHealth([...website, ...healthy().slice(0, 5)], { nowMs: NOW_MS })!.leads).toBe(5);
	});

	it('groups ledger keys by dataset, hash-tagged or not, and says when it read a sample', () => {
		const start = ledgerStart('leadcapi:acme', 'meta');
		const entries = [
			...healthy().map((fields, i) => ({ key: `${start}111:${String(i).padStart(64, '0')}`, fields })),
			...healthy().slice(0, 3).map((fields, i) => ({ key: `${start}{222}:${String(i).padStart(64, '0')}`, fields })),
			{ key: `${start}333:${'0'.repeat(64)}`, fields: { ...healthy()[0], src: '' } },
		];
		const health = conversionLeadsByDestination(entries, start, { nowMs: NOW_MS, sampled: true });
		expect([...health.keys()]).toEqual(['111', '222']);
		expect(health.get('111')).toMatchObject({ leads: 20, sampled: true });
		expect(health.get('222')!.leads).toBe(3);
	});
});

function dropEmpty(hash: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(hash).filter(([, v]) => v !== ''));
}

function dropLeadId(hash: Record<string, string>): Record<string, string> {
	const { ['id:lead_id']: _gone, ...rest } = hash;
	return rest;
}
