import fc from 'fast-check';
import { boundEntry, redactForLog } from '../../shared/captureLog';
import { evaluateRules, type RuleCondition } from '../../shared/rules';
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
				const entry = boundEntry(redactForLog(record, { attributes: DECLARED })).record;
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
