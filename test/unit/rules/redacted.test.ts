import { buildPreview, evaluateRules, type MatchType } from '../../../shared/rules';
import { checkCondition } from './helpers';

/** A capture-log entry: no raw email, phone or name, only what rules need. */
const logged = {
	_redacted: true,
	state: 'partial',
	source: { page_url: 'https://example.com/pricing' },
	contact: { email_domain: 'sales.acme.com', has_phone: true, phone_country: 'us', country: 'us' },
};
const loggedFreeMailNoPhone = {
	_redacted: true,
	state: 'partial',
	contact: { email_domain: 'gmail.com' },
};
const loggedNothing = { _redacted: true, state: 'partial' };

describe('redacted records: email domain types read contact.email_domain', () => {
	test.each<[object, MatchType, string | undefined, boolean, string]>([
		[
			logged,
			'email_domain_in',
			'acme.com',
			true,
			'contact.email has an email domain in "acme.com": yes',
		],
		[
			logged,
			'email_domain_in',
			'globex.io',
			false,
			'contact.email has an email domain in "globex.io": no (domain is sales.acme.com)',
		],
		[logged, 'is_work_email', undefined, true, 'contact.email is a work email: yes'],
		[
			loggedFreeMailNoPhone,
			'is_work_email',
			undefined,
			false,
			'contact.email is a work email: no (gmail.com is a free-mail domain)',
		],
		[
			loggedNothing,
			'is_work_email',
			undefined,
			false,
			'contact.email is a work email: no (field is missing)',
		],
	])('%#: %s', (record, matchType, pattern, passed, reason) => {
		const result = checkCondition(record, 'contact.email', matchType, pattern);
		expect(result).toMatchObject({ passed, reason, evaluable: true });
	});

	it('uses contact.email_domain for a live record without contact.email too', () => {
		expect(
			checkCondition({ contact: { email_domain: 'acme.com' } }, 'contact.email', 'is_work_email')
				.passed,
		).toBe(true);
	});
});

describe('redacted records: exists / not_exists answer from the markers', () => {
	test.each<[object, string, MatchType, boolean]>([
		[logged, 'contact.phone', 'exists', true],
		[logged, 'contact.phone', 'not_exists', false],
		[loggedFreeMailNoPhone, 'contact.phone', 'exists', false],
		[loggedFreeMailNoPhone, 'contact.phone', 'not_exists', true],
		[{ _redacted: true, contact: { has_phone: false } }, 'contact.phone', 'exists', false],
		[logged, 'contact.email', 'exists', true],
		[loggedNothing, 'contact.email', 'not_exists', true],
	])('%#: %s %s → %s', (record, field, matchType, passed) => {
		expect(checkCondition(record, field, matchType)).toMatchObject({ passed, evaluable: true });
	});
});

describe('redacted records: other conditions on PII fields are not evaluable', () => {
	test.each<[string, MatchType, string | undefined, string]>([
		[
			'contact.email',
			'contains',
			'acme',
			'contact.email contains "acme": not evaluable (the capture log keeps no raw email)',
		],
		[
			'contact.email',
			'ends_with',
			'@acme.com',
			'contact.email ends with "@acme.com": not evaluable (the capture log keeps no raw email)',
		],
		[
			'contact.phone',
			'starts_with',
			'+1',
			'contact.phone starts with "+1": not evaluable (the capture log keeps no raw phone number)',
		],
		[
			'contact.first_name',
			'exists',
			undefined,
			'contact.first_name exists: not evaluable (the capture log keeps no raw name)',
		],
		[
			'contact.last_name',
			'not_equals',
			'Test',
			'contact.last_name does not equal "Test": not evaluable (the capture log keeps no raw name)',
		],
		[
			'contact.name',
			'regex',
			'^a',
			'contact.name matches regex /^a/: not evaluable (the capture log keeps no raw name)',
		],
	])('%s %s %j', (field, matchType, pattern, reason) => {
		expect(checkCondition(logged, field, matchType, pattern)).toMatchObject({
			passed: false,
			evaluable: false,
			reason,
		});
	});

	it('counts a not-evaluable condition as not passed, even in OR', () => {
		const evaluation = evaluateRules(
			{
				combinator: 'or',
				conditions: [{ field: 'contact.email', match_type: 'not_contains', pattern: 'test' }],
			},
			logged,
		);
		expect(evaluation.matched).toBe(false);
	});

	it('evaluates the same conditions on a live (unredacted) record', () => {
		const live = { contact: { email: 'jane@acme.com', phone: '+14155552671', first_name: 'Jane' } };
		expect(checkCondition(live, 'contact.email', 'contains', 'acme')).toMatchObject({
			passed: true,
			evaluable: true,
		});
		expect(checkCondition(live, 'contact.phone', 'starts_with', '+1')).toMatchObject({
			passed: true,
			evaluable: true,
		});
		expect(checkCondition(live, 'contact.first_name', 'exists')).toMatchObject({
			passed: true,
			evaluable: true,
		});
	});

	it('keeps non-PII fields of a redacted record evaluable', () => {
		expect(checkCondition(logged, 'source.page_url', 'contains', '/pricing')).toMatchObject({
			passed: true,
			evaluable: true,
		});
		expect(checkCondition(logged, 'contact.country', 'equals', 'US')).toMatchObject({
			passed: true,
			evaluable: true,
		});
	});

	it('reports them separately in the preview', () => {
		const report = buildPreview(
			{
				mode: 'automatic_match',
				rulesApplyTo: 'all',
				rules: {
					combinator: 'and',
					conditions: [
						{ field: 'contact.email', match_type: 'is_work_email' },
						{ field: 'contact.email', match_type: 'contains', pattern: 'sales' },
					],
				},
			},
			[
				{ id: '3-0', at: 3, record: logged },
				{ id: '2-0', at: 2, record: loggedFreeMailNoPhone },
			],
			{ now: 10 },
		);
		expect(report.conditions.map((c) => [c.passed, c.failed, c.not_evaluable])).toEqual([
			[1, 1, 0],
			[0, 0, 2],
		]);
		expect(report.matched).toBe(0);
		expect(report.not_evaluable_note).toMatch(
			/^2 of 2 captures could not be checked against condition 2 \(contact\.email contains\): the capture log keeps no raw email, phone or name/,
		);
	});
});
