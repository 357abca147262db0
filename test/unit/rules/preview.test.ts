import { redactForLog } from '../../../shared/captureLog';
import {
	buildPreview,
	decideSend,
	type PreviewEntry,
	type RuleSet,
	type SendPolicy,
} from '../../../shared/rules';
import { captureWeek } from '../../support/captureWeek';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

function entry(at: number, record: object, seq = 0): PreviewEntry {
	return { id: `${at}-${seq}`, at, record: loggedEntry(record) };
}

/**
 * A capture-log entry written by hand: what it holds is held exactly, and `_reduced` says the live
 * lead had an email (when the entry keeps its domain) and a phone (has_phone), which the log never keeps.
 */
function loggedEntry(record: object): object {
	const { contact } = record as { contact?: { email_domain?: string; has_phone?: boolean } };
	const reduced: Record<string, number[]> = {};
	if (contact?.email_domain) reduced['contact.email'] = [3, 24];
	if (contact?.has_phone) reduced['contact.phone'] = [3, 15];
	return { _redacted: true, ...record, _reduced: reduced };
}

const pricingOrWork: RuleSet = {
	combinator: 'or',
	conditions: [
		{ field: 'source.page_url', match_type: 'contains', pattern: '/pricing' },
		{ field: 'contact.email', match_type: 'is_work_email' },
	],
};
const qualifiedPartials: SendPolicy = { mode: 'automatic_match', rules: pricingOrWork };

describe('buildPreview: the window', () => {
	const entries = [
		entry(NOW - 7 * DAY - 1, { state: 'lead' }), // just outside: ignored, not counted
		entry(NOW - 7 * DAY, { state: 'lead' }), // exactly 7 days old: inside
		entry(NOW - 3 * DAY, { state: 'partial' }),
		entry(NOW - 1000, { state: 'lead' }),
		entry(NOW + 5000, { state: 'lead' }), // a skewed clock: inside
		entry(NOW - 30 * DAY, { state: 'lead' }),
	];

	it('counts only entries of the last 7 days, the boundary included', () => {
		const report = buildPreview({ mode: 'automatic_completed' }, entries, { now: NOW });
		expect(report).toMatchObject({ window_days: 7, considered: 4, matched: 3, truncated: false });
		expect(report.summary).toBe('would have matched 3 of 4 capture-ready leads in the last 7 days');
	});

	it('uses another window when asked', () => {
		const report = buildPreview({ mode: 'automatic_completed' }, entries, {
			now: NOW,
			windowDays: 30,
		});
		expect(report.summary).toBe(
			'would have matched 5 of 6 capture-ready leads in the last 30 days',
		);
		expect(
			buildPreview({ mode: 'automatic_partial' }, entries, { now: NOW, windowDays: 1 }).summary,
		).toBe('would have matched 2 of 2 capture-ready leads in the last 1 day');
	});

	it('reports an empty window plainly', () => {
		const report = buildPreview(qualifiedPartials, [], { now: NOW });
		expect(report).toMatchObject({
			considered: 0,
			matched: 0,
			rules_evaluated: 0,
			examples: { matches: [], misses: [] },
		});
		expect(report.summary).toBe('would have matched 0 of 0 capture-ready leads in the last 7 days');
		expect(report.not_evaluable_note).toBeUndefined();
	});

	it('passes the truncated flag through', () => {
		expect(
			buildPreview({ mode: 'automatic_completed' }, entries, { now: NOW, truncated: true })
				.truncated,
		).toBe(true);
	});
});

describe('buildPreview: examples and per-condition counts', () => {
	// oldest first, as a reader might hand them over; the report must still be newest first
	const entries = Array.from({ length: 10 }, (_, i) =>
		entry(NOW - (10 - i) * 3_600_000, {
			state: i % 2 ? 'partial' : 'lead',
			source: { page_url: i % 4 === 1 ? 'https://x.io/pricing' : 'https://x.io/blog' },
			contact: { email_domain: i === 3 ? 'acme.com' : 'gmail.com' },
		}),
	);
	const report = buildPreview(qualifiedPartials, entries, { now: NOW });

	it('counts matches and the condition hits over the entries the rules ran on', () => {
		// completed i = 0,2,4,6,8 are sent; partials 1,5,9 on /pricing and 3 at acme.com qualify; 7 not
		expect(report.considered).toBe(10);
		expect(report.matched).toBe(9);
		expect(report.rules_evaluated).toBe(5);
		expect(report.conditions).toEqual([
			{
				index: 0,
				field: 'source.page_url',
				match_type: 'contains',
				pattern: '/pricing',
				passed: 3,
				failed: 2,
				not_evaluable: 0,
				over_budget: 0,
			},
			{
				index: 1,
				field: 'contact.email',
				match_type: 'is_work_email',
				passed: 1,
				failed: 4,
				not_evaluable: 0,
				over_budget: 0,
			},
		]);
	});

	it('shows up to 3 matches and misses, newest first, with the live reason', () => {
		const ids = (list: Array<{ id: string }>) => list.map((e) => e.id);
		expect(ids(report.examples.matches)).toEqual([entries[9].id, entries[8].id, entries[6].id]);
		expect(ids(report.examples.misses)).toEqual([entries[7].id]);
		const miss = report.examples.misses[0];
		expect(miss.at).toBe(new Date(entries[7].at).toISOString());
		expect(miss.record).toBe(entries[7].record);
		expect(miss.reason).toBe(decideSend(qualifiedPartials, entries[7].record).reason);
		expect(miss.reason).toBe('partial capture not qualified: none of the 2 conditions matched');
	});

	it('takes another number of examples when asked', () => {
		const more = buildPreview(qualifiedPartials, entries, { now: NOW, examples: 5 });
		expect(more.examples.matches).toHaveLength(5);
		expect(
			buildPreview(qualifiedPartials, entries, { now: NOW, examples: 0 }).examples.matches,
		).toEqual([]);
	});

	it('orders equal times by stream id', () => {
		const same = [
			entry(NOW - 10, { state: 'lead' }, 1),
			entry(NOW - 10, { state: 'lead' }, 7),
			entry(NOW - 10, { state: 'lead' }, 3),
		];
		const { examples } = buildPreview({ mode: 'automatic_completed' }, same, { now: NOW });
		expect(examples.matches.map((e) => e.id)).toEqual([
			`${NOW - 10}-7`,
			`${NOW - 10}-3`,
			`${NOW - 10}-1`,
		]);
	});

	it('has no conditions for modes without rules', () => {
		const booking = buildPreview({ mode: 'booking' }, entries, { now: NOW });
		expect(booking).toMatchObject({ matched: 0, rules_evaluated: 0, conditions: [] });
	});
});

describe('buildPreview over a seeded week of captures (as the capture log holds them)', () => {
	it('agrees with the live filter entry by entry', () => {
		const week = captureWeek(NOW, 700);
		const entries = week.map(({ at, record }, i) => ({
			id: `${at}-${i}`,
			at,
			record: redactForLog(record),
		}));
		const report = buildPreview(qualifiedPartials, entries, { now: NOW });
		const expected = week.filter(({ record }) => decideSend(qualifiedPartials, record).send).length;
		expect(report.considered).toBe(700);
		expect(report.matched).toBe(expected);
		expect(report.summary).toBe(
			`would have matched ${expected} of 700 capture-ready leads in the last 7 days`,
		);
		expect(report.not_evaluable_note).toBeUndefined();
	});
});

describe('buildPreview: 100,000 entries', () => {
	it('evaluates every entry in the window and counts exactly', () => {
		const domains = ['gmail.com', 'acme.com', 'yahoo.co.uk', 'sales.globex.io'];
		const pages = ['/pricing', '/blog/a', '/pricing/team', '/contact', '/'];
		const total = 100_000;
		const entries: PreviewEntry[] = [];
		for (let i = 0; i < total; i++) {
			// newest first, one every 7 s: ~8.1 days, so the oldest ~14% fall outside the window
			const at = NOW - i * 7_000;
			entries.push({
				id: `${at}-0`,
				at,
				record: loggedEntry({
					state: i % 3 === 0 ? 'partial' : 'lead',
					source: {
						page_url: `https://www.example.com${pages[i % 5]}?utm_source=${i % 2 ? 'fb' : 'google'}`,
					},
					contact: { email_domain: domains[i % 4], ...(i % 7 === 0 ? { has_phone: true } : {}) },
					value: { amount: i % 1000 },
					attributes: { utm_source: i % 2 ? 'fb' : 'google', employees: String(i % 500) },
				}),
			});
		}
		const policy: SendPolicy = {
			mode: 'automatic_match',
			rulesApplyTo: 'all',
			rules: {
				combinator: 'and',
				conditions: [
					{ field: 'source.page_url', match_type: 'regex', pattern: '/pricing(/|\\?|$)' },
					{ field: 'contact.email', match_type: 'is_work_email' },
					{ field: 'attributes.utm_source', match_type: 'in_list', pattern: 'fb, facebook, ig' },
					{ field: 'value.amount', match_type: 'greater_than', pattern: '99' },
					{ field: 'contact.phone', match_type: 'not_exists' },
				],
			},
		};

		const report = buildPreview(policy, entries, { now: NOW });

		const inWindow = entries.filter((e) => e.at >= NOW - 7 * DAY).length;
		let pricing = 0;
		let work = 0;
		let fb = 0;
		let amount = 0;
		let noPhone = 0;
		let all = 0;
		for (let i = 0; i < inWindow; i++) {
			const p = i % 5 === 0 || i % 5 === 2;
			const w = i % 4 === 1 || i % 4 === 3;
			const f = i % 2 === 1;
			const a = i % 1000 > 99;
			const n = i % 7 !== 0;
			pricing += +p;
			work += +w;
			fb += +f;
			amount += +a;
			noPhone += +n;
			all += +(p && w && f && a && n);
		}
		expect(report.considered).toBe(inWindow);
		expect(inWindow).toBe(Math.floor((7 * DAY) / 7_000) + 1);
		expect(report.matched).toBe(all);
		expect(report.rules_evaluated).toBe(inWindow);
		expect(report.conditions.map((c) => c.passed)).toEqual([pricing, work, fb, amount, noPhone]);
		expect(report.conditions.map((c) => c.passed + c.failed + c.not_evaluable)).toEqual(
			Array(5).fill(inWindow),
		);
		expect(report.summary).toBe(
			`would have matched ${all} of ${inWindow} capture-ready leads in the last 7 days`,
		);
		expect(report.examples.matches.map((e) => e.id)).toHaveLength(3);
		expect(report.examples.misses.map((e) => e.id)).toEqual([
			entries[0].id,
			entries[1].id,
			entries[2].id,
		]);
	});
});
