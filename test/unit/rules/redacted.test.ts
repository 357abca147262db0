import { captureLogEntry, type LogLocation } from '../../../shared/captureLog';
import {
	buildPreview,
	decideSend,
	evaluateRules,
	type MatchType,
	type RuleCondition,
	type SendPolicy,
} from '../../../shared/rules';
import type { LeadRecord } from '../../../shared/types';
import { checkCondition } from './helpers';

/**
 * Capture-log entries as the log writes them (captureLogEntry: allow-list, bounds, `_reduced`),
 * read by the one rule evaluator: the live answer, or "not evaluable" with the reason — never a
 * different answer (shared/rules/redacted.ts, docs/capture.md "What the preview can answer").
 */
const live: LeadRecord = {
	record_id: 'r-1',
	state: 'partial',
	occurred_at: '2026-11-30T10:00:00Z',
	stage: 'qualified',
	stage_at: '2026-11-30T10:00:00Z',
	lead_created_at: '2026-11-20T10:00:00Z',
	source: { kind: 'script', page_url: 'https://example.com/pricing?utm_source=fb' },
	contact: {
		email: 'Jane Doe <jane@sales.acme.com>',
		phone: '+1 415 555 0134',
		first_name: 'Jane',
		country: 'US',
		region: 'CA',
		city: 'San Francisco',
	},
	client: { country: 'US', region: 'California', ip: '203.0.113.9' },
	value: { amount: 120, currency: 'USD' },
	attributes: { plan: 'enterprise', utm_source: 'fb', message: 'call me' },
};
const logged = (record: LeadRecord = live, location?: LogLocation) =>
	captureLogEntry(record, { attributes: ['plan', 'approved'], location }).record;

const both = (record: LeadRecord, field: string, matchType: MatchType, pattern?: string, location?: LogLocation) => ({
	live: checkCondition(record, field, matchType, pattern),
	log: checkCondition(logged(record, location), field, matchType, pattern),
});

describe('capture-log entries: the fields kept exactly answer as live', () => {
	test.each<[string, MatchType, string | undefined, boolean]>([
		['state', 'equals', 'partial', true],
		['source.page_url', 'contains', '/pricing', true],
		['contact.country', 'equals', 'us', true],
		['client.country', 'in_list', 'DE, US', true],
		['value.amount', 'greater_than', '100', true],
		['value.currency', 'equals', 'eur', false],
		['stage', 'in_list', 'qualified, won', true],
		['stage_at', 'greater_than', '2026-11-29', true],
		['days_since_lead_created', 'greater_than', '7', true],
		['attributes.plan', 'equals', 'enterprise', true],
		['attributes.utm_source', 'equals', 'fb', true],
		['contact.email', 'email_domain_in', 'acme.com', true],
		['contact.email', 'is_work_email', undefined, true],
		['contact.phone', 'exists', undefined, true],
		['contact.first_name', 'not_exists', undefined, false],
		['contact.last_name', 'not_exists', undefined, true],
		['attributes.approved', 'exists', undefined, false],
	])('%s %s %j → %s', (field, matchType, pattern, passed) => {
		const { live: onLive, log } = both(live, field, matchType, pattern);
		expect(onLive.passed).toBe(passed);
		expect(log).toMatchObject({ passed, evaluable: true });
	});
});

describe('capture-log entries: reduced or unkept fields cannot be answered, and say why', () => {
	test.each<[LeadRecord, string, MatchType, string | undefined, RegExp]>([
		[live, 'contact.email', 'contains', 'acme', /the capture log keeps no raw email/],
		[live, 'contact.phone', 'starts_with', '+1', /the capture log keeps no raw phone number/],
		[live, 'contact.first_name', 'equals', 'jane', /the capture log keeps no name/],
		[
			{ ...live, source: { page_url: 'https://example.com/blog/spring-sale?ref=x' } },
			'source.page_url',
			'contains',
			'spring-sale',
			/the page URL was scrubbed of personal-looking parts/,
		],
		[live, 'contact.city', 'equals', 'san francisco', /Location in Capture Log/],
		[live, 'contact.region', 'equals', 'ca', /Location in Capture Log/],
		[live, 'client.ip', 'exists', undefined, /the capture log does not keep client\.ip/],
		[live, 'attributes.message', 'exists', undefined, /only the attributes listed in the trigger's Capture Log Attributes/],
		[live, 'contact.email_domain', 'equals', 'sales.acme.com', /the capture log's own summary, not a lead field/],
		[live, 'previous_stage', 'equals', 'mql', /stage ledger/],
		[{ ...live, lead_created_at: undefined }, 'days_since_lead_created', 'greater_than', '7', /stage ledger/],
		[{ ...live, stage: 'Closed Won' }, 'stage', 'equals', 'closed won', /only as one short token/],
		[{ ...live, value: { amount: [10, 20] } }, 'value.amount', 'greater_than', '15', /only as one number/],
	])('%#: %s %s', (record, field, matchType, pattern, why) => {
		const result = checkCondition(logged(record), field, matchType, pattern);
		expect(result).toMatchObject({ passed: false, evaluable: false });
		expect(result.unanswerable).toMatch(why);
	});

	it('answers exists / not_exists on a reduced field from its live shape', () => {
		const scrubbed = { ...live, source: { page_url: 'https://example.com/u/jane-doe' } };
		expect(logged(scrubbed).source?.page_url).toBe('https://example.com/u/_');
		expect(checkCondition(logged(scrubbed), 'source.page_url', 'exists')).toMatchObject({ passed: true, evaluable: true });
		expect(checkCondition(logged(scrubbed), 'source.page_url', 'not_exists')).toMatchObject({ passed: false, evaluable: true });
		expect(checkCondition(logged(), 'contact.city', 'exists')).toMatchObject({ passed: true, evaluable: true });
	});

	it('keeps location as configured: None, Country, Country and Region, Country, Region and City', () => {
		const answers = (location: LogLocation) =>
			['contact.country', 'client.country', 'contact.region', 'contact.city'].map(
				(field) => checkCondition(logged(live, location), field, 'in_list', 'us, ca, san francisco').evaluable,
			);
		expect(answers('none')).toEqual([false, false, false, false]);
		expect(answers('country')).toEqual([true, true, false, false]);
		expect(answers('region')).toEqual([true, true, true, false]);
		expect(answers('city')).toEqual([true, true, true, true]);
		expect(logged(live, 'none').contact).not.toHaveProperty('phone_country');
		expect(logged(live).contact).toMatchObject({ country: 'US', phone_country: 'us' });
	});

	it('says so for an entry of an earlier version (no _reduced)', () => {
		const old = { _redacted: true, state: 'partial', source: { page_url: 'https://example.com/blog/_' } };
		expect(checkCondition(old, 'source.page_url', 'contains', '/blog').unanswerable).toMatch(/earlier version/);
	});
});

describe('capture-log entries: rule sets and send decisions', () => {
	const scrubbed = logged({ ...live, state: 'partial', source: { page_url: 'https://example.com/blog/spring-sale' } });
	const page: RuleCondition = { field: 'source.page_url', match_type: 'contains', pattern: 'spring-sale' };
	const work: RuleCondition = { field: 'contact.email', match_type: 'is_work_email' };
	const free: RuleCondition = { field: 'contact.email', match_type: 'email_domain_in', pattern: 'gmail.com' };

	it('an AND with a failing answerable condition is decided; otherwise undetermined', () => {
		expect(evaluateRules({ combinator: 'and', conditions: [page, free] }, scrubbed)).toMatchObject({
			matched: false,
		});
		expect(evaluateRules({ combinator: 'and', conditions: [page, free] }, scrubbed).undetermined).toBeUndefined();
		expect(evaluateRules({ combinator: 'and', conditions: [page, work] }, scrubbed).undetermined).toMatch(
			/^condition 1 \(source\.page_url\): the page URL was scrubbed/,
		);
	});

	it('an OR with a passing answerable condition is decided; otherwise undetermined', () => {
		expect(evaluateRules({ combinator: 'or', conditions: [page, work] }, scrubbed)).toMatchObject({ matched: true });
		expect(evaluateRules({ combinator: 'or', conditions: [page, work] }, scrubbed).undetermined).toBeUndefined();
		expect(evaluateRules({ combinator: 'or', conditions: [page, free] }, scrubbed).undetermined).toBeDefined();
	});

	it('a pass after a field the log does not keep is uncertain when the live budget may have run out', () => {
		const long = { ...live, client: { ...live.client, user_agent: 'x'.repeat(1_900) } };
		const conditions: RuleCondition[] = [
			{ field: 'client.user_agent', match_type: 'contains', pattern: 'y' },
			{ field: 'client.user_agent', match_type: 'contains', pattern: 'z' },
			{ field: 'attributes.plan', match_type: 'equals', pattern: 'enterprise' },
		];
		const onLive = evaluateRules({ combinator: 'or', conditions }, long);
		expect(onLive.results[2]).toMatchObject({ passed: false, overBudget: true });
		const onLog = evaluateRules({ combinator: 'or', conditions }, logged(long));
		expect(onLog.results[2]).toMatchObject({ passed: false, evaluable: false });
		expect(onLog.results[2].unanswerable).toMatch(/rule budget ran out/);
		expect(onLog.undetermined).toBeDefined();
	});

	it('a send mode reading a state the log reduced cannot answer', () => {
		const crm = logged({ ...live, state: 'Closed Won' });
		expect(decideSend({ mode: 'automatic_completed' }, { ...live, state: 'Closed Won' }).send).toBe(true);
		expect(decideSend({ mode: 'automatic_completed' }, crm)).toMatchObject({ send: false, undetermined: expect.stringMatching(/^state: /) });
		expect(decideSend({ mode: 'automatic_partial' }, crm)).toMatchObject({ send: true });
	});

	it('manual approval on an attribute the log does not keep cannot answer; a declared one can', () => {
		const approved = { ...live, attributes: { ...live.attributes, approved: 'yes', ok: 'yes' } };
		expect(decideSend({ mode: 'manual' }, logged(approved))).toMatchObject({ send: true });
		expect(decideSend({ mode: 'manual', approvalField: 'attributes.ok' }, logged(approved)).undetermined).toMatch(
			/Capture Log Attributes/,
		);
	});

	it('the preview counts the undetermined captures apart, with the reasons and examples', () => {
		const policy: SendPolicy = {
			mode: 'automatic_match',
			rulesApplyTo: 'all',
			rules: { combinator: 'and', conditions: [page, work] },
		};
		const entries = [
			{ id: '5-0', at: 5, record: scrubbed },
			{ id: '4-0', at: 4, record: logged({ ...live, source: { page_url: 'https://example.com/spring-sale-2026' } }) },
			{ id: '3-0', at: 3, record: logged({ ...live, contact: { email: 'jane@gmail.com' } }) },
		];
		// 4-0 keeps its URL exactly (not a name slug: it has digits): answered, matched.
		const report = buildPreview(policy, entries, { now: 10 });
		expect(report).toMatchObject({ considered: 3, matched: 1, cannot_answer: 1 });
		expect(report.cannot_answer_reasons).toEqual({
			'condition 1 (source.page_url): the page URL was scrubbed of personal-looking parts in the capture log (path segments, query values; only utm_* parameters are kept)': 1,
		});
		expect(report.summary).toBe(
			'would have matched 1 of 3 capture-ready leads in the last 7 days; for 1 of them the capture log cannot tell (cannot_answer_reasons), so they are not in either count',
		);
		expect(report.examples.cannot_answer.map((e) => e.id)).toEqual(['5-0']);
		expect(report.examples.misses.map((e) => e.id)).toEqual(['3-0']);
		expect(report.conditions[0]).toMatchObject({ passed: 1, failed: 1, not_evaluable: 1 });
		expect(report.not_evaluable_note).toMatch(/cannot_answer, never as a match or a miss/);
	});
});
