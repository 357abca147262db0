import fc from 'fast-check';
import { captureLogEntry, type LogLocation } from '../../shared/captureLog';
import { decideSend, evaluateRules, type RuleCondition, type RuleSet, type SendPolicy } from '../../shared/rules';
import type { LeadRecord } from '../../shared/types';
import { PROPERTY_SEED, RUNS } from '../support/hostile';

/**
 * Issue 13 point 2: one reading of each rule. For every condition the capture log can answer,
 * evaluating it on the log entry (redactForLog, then boundEntry: what Redis stores) gives the
 * same result as evaluating it on the full record — 10,000 generated leads whose emails come
 * with a display name, `mailto:`, in upper case, IDN (Unicode and punycode), fullwidth, with
 * zero-width characters, as lists, or not as addresses at all.
 *
 * What the log answers (docs/capture.md): state, source.kind and source.form_id (tokens), click
 * ids' presence, contact.email with email_domain_in / is_work_email / exists / not_exists,
 * contact.phone with exists / not_exists, and declared attributes whose values are tokens.
 */

const DECLARED = ['plan', 'tier', 'seats'];
const CLICKS = ['fbclid', 'gclid', 'ttclid', 'msclkid'];

const local = fc.constantFrom('jane', 'j.doe', 'sales+x', 'ana_b');
const domain = fc.constantFrom(
	'acme.com', 'sales.acme.com', 'gmail.com', 'mail.gmail.com', 'yahoo.co.uk', 'münchen.de',
	'xn--mnchen-3ya.de', 'ｇｍａｉｌ.com', 'gmаil.com' /* Cyrillic а */, 'ACME.COM', 'example.org',
);
const emailForm = fc.tuple(local, domain, fc.nat(7)).map(([l, d, form]) => {
	const address = `${l}@${d}`;
	switch (form) {
		case 0: return address;
		case 1: return `Jane Doe <${address}>`;
		case 2: return `mailto:${address}`;
		case 3: return address.toUpperCase();
		case 4: return address.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)); // fullwidth
		case 5: return `${l}\u200b@${d}\u200d`;
		case 6: return ` ${address} `;
		default: return d; // a bare domain in the email field
	}
});
const email = fc.oneof(
	{ weight: 6, arbitrary: emailForm },
	{ weight: 2, arbitrary: fc.array(emailForm, { minLength: 1, maxLength: 3 }) },
	{ weight: 1, arbitrary: fc.constantFrom(undefined, '', '   ', 'not an email', 'jane@', '@acme.com') },
);
const tokenValue = fc.constantFrom('pro', 'enterprise', 'Pro', 'free', '11-50', 'demo', 'gold');

const lead = fc
	.record({
		state: fc.constantFrom('lead', 'partial', 'contact', 'purchase'),
		kind: fc.constantFrom('script', 'typeform', 'webhook'),
		form_id: fc.constantFrom(undefined, 'contact-us', 'Demo_Request', 'pricing'),
		email,
		phone: fc.constantFrom(undefined, '', '+1 415 555 0134', '030 1234567', 'n/a'),
		clicks: fc.subarray(CLICKS),
		plan: fc.option(tokenValue, { nil: undefined }),
		tier: fc.option(tokenValue, { nil: undefined }),
		seats: fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
	})
	.map((g): LeadRecord => {
		const record: Record<string, unknown> = {
			record_id: 'r-1',
			state: g.state,
			source: { kind: g.kind, ...(g.form_id ? { form_id: g.form_id } : {}) },
			contact: { ...(g.email !== undefined ? { email: g.email } : {}), ...(g.phone !== undefined ? { phone: g.phone } : {}) },
			click: Object.fromEntries(g.clicks.map((c) => [c, `${c}_value`])),
			attributes: {
				...(g.plan ? { plan: g.plan } : {}),
				...(g.tier ? { tier: g.tier } : {}),
				...(g.seats !== undefined ? { seats: g.seats } : {}),
			},
		};
		return record as unknown as LeadRecord;
	});

const domainList = fc
	.subarray(['acme.com', 'gmail.com', 'münchen.de', 'xn--mnchen-3ya.de', '@example.org', '*.acme.com', 'ＡＣＭＥ.com'], { minLength: 1 })
	.map((items) => items.join(', '));

const condition: fc.Arbitrary<RuleCondition> = fc.oneof(
	fc.record({ field: fc.constant('contact.email'), match_type: fc.constant('email_domain_in' as const), pattern: domainList }),
	fc.record({ field: fc.constant('contact.email'), match_type: fc.constantFrom('is_work_email' as const, 'exists' as const, 'not_exists' as const) }),
	fc.record({ field: fc.constant('contact.phone'), match_type: fc.constantFrom('exists' as const, 'not_exists' as const) }),
	fc.record({ field: fc.constantFrom('state', 'source.kind', 'source.form_id'), match_type: fc.constantFrom('equals' as const, 'not_equals' as const, 'starts_with' as const, 'contains' as const), pattern: fc.constantFrom('lead', 'script', 'contact', 'demo', 'p') }),
	fc.record({ field: fc.constantFrom('state', 'source.form_id'), match_type: fc.constantFrom('in_list' as const, 'not_in_list' as const), pattern: fc.constantFrom('lead, partial', 'contact-us, pricing', 'purchase') }),
	fc.record({ field: fc.constantFrom(...CLICKS.map((c) => `click.${c}`)), match_type: fc.constantFrom('exists' as const, 'not_exists' as const) }),
	fc.record({ field: fc.constantFrom('attributes.plan', 'attributes.tier'), match_type: fc.constantFrom('equals' as const, 'in_list' as const, 'exists' as const, 'not_exists' as const, 'contains' as const), pattern: fc.constantFrom('pro', 'enterprise, gold', 'o') }),
	fc.record({ field: fc.constant('attributes.seats'), match_type: fc.constantFrom('greater_than' as const, 'less_than' as const), pattern: fc.constantFrom('10', '100') }),
);

describe('one reading of each rule: the capture-log entry answers as the full record does', () => {
	it(`${RUNS.toLocaleString('en-US')} leads, every answerable condition: same result on the log entry and on the record`, () => {
		let compared = 0;
		let passedOnBoth = 0;
		fc.assert(
			fc.property(lead, fc.array(condition, { minLength: 1, maxLength: 6 }), (record, conditions) => {
				const entry = captureLogEntry(record, { attributes: DECLARED }).record;
				for (const c of conditions) {
					const ruleSet = { combinator: 'and' as const, conditions: [c] };
					const onRecord = evaluateRules(ruleSet, record).results[0];
					const onLog = evaluateRules(ruleSet, entry).results[0];
					compared++;
					if (onRecord.passed) passedOnBoth++;
					if (!onLog.evaluable || onLog.passed !== onRecord.passed) {
						throw new Error(
							`${c.field} ${c.match_type} ${c.pattern ?? ''}: record ${onRecord.passed} (${onRecord.reason}), log ${onLog.passed} evaluable=${onLog.evaluable} (${onLog.reason}); record ${JSON.stringify(record)}; entry ${JSON.stringify(entry)}`,
						);
					}
				}
			}),
			{ numRuns: RUNS, seed: PROPERTY_SEED },
		);
		// Not vacuous: both outcomes occur.
		expect(passedOnBoth).toBeGreaterThan(compared / 10);
		expect(compared - passedOnBoth).toBeGreaterThan(compared / 10);
		console.log(`rule on log vs record: ${RUNS} leads, ${compared} conditions compared, ${passedOnBoth} passed on both, 0 differences`);
	});
});

/*
 * The fields the log keeps reduced, or as configured (issue 13, the last review): page URLs with
 * personal-looking paths and queries, other parameters and fragments; location (contact and
 * client) under each Location in Capture Log; value and currency in every form; event, stage and
 * lead-creation times (ISO, epoch, junk) and days_since_lead_created; stage names; fields as
 * lists, padded with spaces, as numbers; undeclared attributes and fields the log never keeps;
 * long values that use up the rule budget. Rule sets of up to 6 conditions (AND and OR), so a
 * condition's budget depends on the ones before it. For each condition: evaluable on the entry ⇒
 * the same result as on the record. For each rule set and send policy: determined on the entry ⇒
 * the same decision as on the record.
 */
const person = fc.constantFrom('jane-doe', 'Quelinda.Vantressor', 'jane.doe%40example.com', '+1 415 555 0134', 'peter');
const pathPart = fc.oneof(
	fc.constantFrom('pricing', 'blog', 'spring-sale', 'enterprise', 'contact', 'account', 'u', 'post-1', 'PRICING'),
	person,
);
const pageUrl = fc.oneof(
	{ weight: 8, arbitrary: fc
		.tuple(
			fc.constantFrom('https://www.example.com', 'http://Example.com:8080', 'https://shop.example.de'),
			fc.array(pathPart, { maxLength: 4 }),
			fc.subarray(['utm_source=fb', 'utm_term=jane.doe%40example.com', 'utm_campaign=spring', 'ref=pricing', 'email=jane%40x.com', 'utm_content=Quelinda']),
			fc.constantFrom('', '#pricing', '#jane'),
		)
		.map(([origin, parts, query, hash]) => `${origin}/${parts.join('/')}${query.length ? `?${query.join('&')}` : ''}${hash}`) },
	{ weight: 1, arbitrary: fc.constantFrom(undefined, '', 'not a url', 'ftp://example.com/pricing', ['https://a.example/pricing', 'https://b.example/x']) },
	{ weight: 1, arbitrary: fc.nat(1_900).map((n) => `https://www.example.com/${'p'.repeat(n)}/pricing`) },
);
const placeOf = <T>(values: T[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: fc.constant(undefined) });
const country = placeOf(['US', 'us', 'Germany', 'DE ', 'XX', 'jane.doe@example.com', 'United States', ['US', 'DE'], 49]);
const region = placeOf(['CA', 'California', 'Bavaria', 'ON', 'Quelinda', '  Texas', 'NY-1234567']);
const city = placeOf(['Berlin', 'San Francisco', 'St. Louis', 'Zürich', 'Jane Doe Street 5', 'Quelinda', ['Paris', 'Lyon'], '']);
const amount = fc.oneof(
	fc.constantFrom(undefined, 0, 99, 99.5, -5, 1_200_000, '1,200.50', '99', ' 42 ', 'free', '+1 415 555 0134', Number.NaN, [10, 20]),
	fc.integer({ min: -100, max: 5_000 }),
);
const currency = fc.constantFrom(undefined, 'EUR', 'usd', 'US$', ' GBP', 'euro', ['EUR', 'USD']);
const time = fc.constantFrom(
	undefined,
	'2026-11-30T10:00:00Z',
	'2026-11-01T08:30:00.000Z',
	'2026-10-15',
	'2026-11-30 10:00:00+01:00',
	1_764_500_000_000,
	'1764500000000',
	'yesterday',
	'  2026-11-20T00:00:00Z ',
	['2026-11-30T10:00:00Z', '2026-11-01T00:00:00Z'],
);
const stageName = fc.constantFrom(undefined, 'qualified', 'won', 'Closed Won', 'MQL', 'sql', ' demo ', 'jane', 7);
const locations: LogLocation[] = ['none', 'country', 'region', 'city'];

const reducedLead = fc
	.record({
		base: lead,
		page: pageUrl,
		referrer: fc.constantFrom(undefined, 'https://www.google.com/search?q=jane', 'https://news.example.org/'),
		country,
		region,
		city,
		clientCountry: country,
		clientRegion: region,
		postal: fc.constantFrom(undefined, '10115', 'M1 1AE'),
		amount,
		currency,
		occurred: time,
		stage: stageName,
		stageAt: time,
		created: time,
		previous: stageName,
		utmTerm: fc.constantFrom(undefined, 'crm', 'jane.doe@example.com', 'spring sale', ['a', 'b']),
		undeclared: fc.constantFrom(undefined, 'x', 'enterprise'),
		longPlan: fc.option(fc.nat(1_999).map((n) => `pro${'x'.repeat(n)}`), { nil: undefined, freq: 4 }),
	})
	.map((g): LeadRecord => {
		const r = g.base as unknown as Record<string, unknown>;
		const source = r.source as Record<string, unknown>;
		const contact = r.contact as Record<string, unknown>;
		const attributes = r.attributes as Record<string, unknown>;
		const set = (o: Record<string, unknown>, k: string, v: unknown) => {
			if (v !== undefined) o[k] = v;
		};
		set(source, 'page_url', g.page);
		set(source, 'referrer', g.referrer);
		set(contact, 'country', g.country);
		set(contact, 'region', g.region);
		set(contact, 'city', g.city);
		set(contact, 'postal_code', g.postal);
		if (g.clientCountry !== undefined || g.clientRegion !== undefined) r.client = {};
		set(r.client as Record<string, unknown>, 'country', g.clientCountry);
		set(r.client as Record<string, unknown>, 'region', g.clientRegion);
		if (g.amount !== undefined || g.currency !== undefined) r.value = {};
		set(r.value as Record<string, unknown>, 'amount', g.amount);
		set(r.value as Record<string, unknown>, 'currency', g.currency);
		set(r, 'occurred_at', g.occurred);
		set(r, 'stage', g.stage);
		set(r, 'stage_at', g.stageAt);
		set(r, 'lead_created_at', g.created);
		set(r, 'previous_stage', g.previous);
		set(attributes, 'utm_term', g.utmTerm);
		set(attributes, 'undeclared', g.undeclared);
		if (g.longPlan !== undefined) attributes.plan = g.longPlan;
		return r as unknown as LeadRecord;
	});

const text = (...patterns: string[]) => fc.constantFrom(...patterns);
const reducedCondition: fc.Arbitrary<RuleCondition> = fc.oneof(
	condition,
	fc.record({
		field: fc.constant('source.page_url'),
		match_type: fc.constantFrom('contains' as const, 'not_contains' as const, 'starts_with' as const, 'ends_with' as const, 'equals' as const, 'regex' as const, 'exists' as const, 'not_exists' as const),
		pattern: text('/pricing', 'https://www.example.com/pricing', 'pricing$', 'utm_source=fb', '/blog/spring-sale', '#pricing', 'example.com'),
	}),
	fc.record({
		field: fc.constantFrom('contact.country', 'client.country', 'contact.region', 'client.region', 'contact.city', 'contact.postal_code'),
		match_type: fc.constantFrom('equals' as const, 'in_list' as const, 'not_in_list' as const, 'exists' as const, 'not_exists' as const, 'contains' as const),
		pattern: text('us', 'US, DE', 'germany', 'CA', 'California', 'Berlin', 'san'),
	}),
	fc.record({
		field: fc.constant('value.amount'),
		match_type: fc.constantFrom('greater_than' as const, 'less_than' as const, 'exists' as const, 'equals' as const),
		pattern: text('50', '1000', '99.5', '0'),
	}),
	fc.record({
		field: fc.constant('value.currency'),
		match_type: fc.constantFrom('equals' as const, 'in_list' as const, 'not_exists' as const),
		pattern: text('eur', 'EUR, USD', 'gbp'),
	}),
	fc.record({
		field: fc.constantFrom('occurred_at', 'stage_at', 'lead_created_at'),
		match_type: fc.constantFrom('greater_than' as const, 'less_than' as const, 'exists' as const, 'not_exists' as const),
		pattern: text('2026-11-15T00:00:00Z', '2026-11-30', '1764000000000'),
	}),
	fc.record({
		field: fc.constant('days_since_lead_created'),
		match_type: fc.constantFrom('greater_than' as const, 'less_than' as const, 'exists' as const, 'not_exists' as const),
		pattern: text('7', '30', '0.5'),
	}),
	fc.record({
		field: fc.constantFrom('stage', 'previous_stage'),
		match_type: fc.constantFrom('equals' as const, 'not_equals' as const, 'in_list' as const, 'exists' as const, 'not_exists' as const),
		pattern: text('qualified', 'won, closed won', 'mql'),
	}),
	fc.record({
		field: fc.constantFrom('attributes.utm_term', 'attributes.undeclared', 'attributes.plan', 'source.referrer', 'contact.email_domain', 'client.ip', 'record_id', 'contact.first_name'),
		match_type: fc.constantFrom('equals' as const, 'exists' as const, 'not_exists' as const, 'contains' as const, 'regex' as const),
		pattern: text('crm', 'x', 'pro', 'google', 'acme.com', '^p'),
	}),
);

const policyOf = (rules: RuleSet, mode: number): SendPolicy =>
	[
		{ mode: 'automatic_match', rules, rulesApplyTo: 'all' },
		{ mode: 'automatic_match', rules },
		{ mode: 'automatic_completed' },
		{ mode: 'booking' },
		{ mode: 'manual', approvalField: 'attributes.plan' },
	][mode] as SendPolicy;

describe('one reading of each rule, on reduced fields: the entry gives the live answer or says it cannot', () => {
	it(`${RUNS.toLocaleString('en-US')} leads: page URL, location, value, times, stages — never a different answer`, () => {
		let compared = 0;
		let answered = 0;
		let passed = 0;
		let decisions = 0;
		let decided = 0;
		const answeredBy = new Map<string, number>();
		const cannotBy = new Map<string, number>();
		const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
		fc.assert(
			fc.property(
				reducedLead,
				fc.array(reducedCondition, { minLength: 1, maxLength: 6 }),
				fc.constantFrom<'and' | 'or'>('and', 'or'),
				fc.constantFrom(...locations),
				fc.nat(4),
				(record, conditions, combinator, location, mode) => {
					const entry = captureLogEntry(record, { attributes: DECLARED, location }).record;
					const ruleSet: RuleSet = { combinator, conditions };
					const live = evaluateRules(ruleSet, record);
					const logged = evaluateRules(ruleSet, entry);
					const fail = (what: string) => {
						throw new Error(`${what} (location ${location}); rules ${JSON.stringify(ruleSet)}; live ${JSON.stringify(live.results.map((r) => r.reason))}; log ${JSON.stringify(logged.results.map((r) => r.reason))}; record ${JSON.stringify(record)}; entry ${JSON.stringify(entry)}`);
					};
					for (const [i, onLog] of logged.results.entries()) {
						compared++;
						const key = conditions[i].field;
						if (!onLog.evaluable) {
							if (!onLog.unanswerable) fail(`condition ${i + 1} not evaluable without a reason`);
							bump(cannotBy, key);
							continue;
						}
						answered++;
						bump(answeredBy, key);
						if (onLog.passed) passed++;
						if (onLog.passed !== live.results[i].passed) fail(`condition ${i + 1} differs`);
					}
					if (!logged.undetermined && logged.matched !== live.matched) fail('rule set differs');
					const policy = policyOf(ruleSet, mode);
					const onLog = decideSend(policy, entry);
					const onRecord = decideSend(policy, record);
					decisions++;
					if (onLog.undetermined) return;
					decided++;
					if (onLog.send !== onRecord.send) fail(`decision differs: log ${onLog.reason}, live ${onRecord.reason}`);
				},
			),
			{ numRuns: RUNS, seed: PROPERTY_SEED },
		);
		// Not vacuous: most conditions are answered, both ways; every reduced field is answered on
		// some entries and not on others.
		expect(answered).toBeGreaterThan(compared / 2);
		expect(passed).toBeGreaterThan(answered / 10);
		expect(answered - passed).toBeGreaterThan(answered / 10);
		expect(decided).toBeGreaterThan(decisions / 2);
		for (const field of ['source.page_url', 'contact.country', 'contact.region', 'contact.city', 'client.country', 'value.amount', 'value.currency', 'occurred_at', 'stage_at', 'lead_created_at', 'days_since_lead_created', 'stage', 'previous_stage']) {
			expect([field, answeredBy.get(field) ?? 0]).toEqual([field, expect.any(Number)]);
			expect(answeredBy.get(field) ?? 0).toBeGreaterThan(0);
			expect(cannotBy.get(field) ?? 0).toBeGreaterThan(0);
		}
		const cannot = compared - answered;
		console.log(
			`rule on log vs record, reduced fields: ${RUNS} leads, ${compared} conditions compared, ${answered} answered (${passed} passed), ${cannot} cannot answer, 0 differences; ${decisions} send decisions, ${decided} answered, 0 differences`,
		);
	});
});
