import { MAX_REGEX_INPUT_LENGTH, validateRuleSet, type RuleSet } from '../../../shared/rules';
import { checkCondition } from './helpers';

const ruleSet = (pattern: string): RuleSet => ({
	combinator: 'and',
	conditions: [{ field: 'attributes.note', match_type: 'regex', pattern }],
});

describe('regex: valid patterns match as JavaScript RegExp with flags u (+ i)', () => {
	test.each<[string, string, boolean | undefined, boolean]>([
		['/pricing/enterprise', '/pricing/(enterprise|team)$', undefined, true],
		['utm_source=FB', 'utm_source=fb', undefined, true],
		['utm_source=FB', 'utm_source=fb', true, false],
		['order-12345', '^order-\\d{5}$', undefined, true],
		['order-1234', '^order-\\d{5}$', undefined, false],
		['😀 party', '^.\\s', undefined, true], // one astral character is one "." in Unicode mode
		['Ünïcödé', '^\\p{L}+$', undefined, true],
		['a/b', '/', undefined, true],
	])('%j matches /%s/ (case_sensitive=%j) → %s', (note, pattern, caseSensitive, passed) => {
		expect(validateRuleSet(ruleSet(pattern))).toEqual([]);
		expect(
			checkCondition({ attributes: { note } }, 'attributes.note', 'regex', pattern, caseSensitive)
				.passed,
		).toBe(passed);
	});
});

describe('regex: patterns that do not compile', () => {
	test.each([
		['(unclosed', /Unterminated group/],
		['[a-', /Unterminated character class|Invalid/],
		['\\-', /Invalid escape/],
		['a{2,1}', /numbers out of order/],
	])('%j', (pattern, message) => {
		const [problem] = validateRuleSet(ruleSet(pattern));
		expect(problem).toMatch(/^condition 1 \(attributes\.note regex\): pattern does not compile: /);
		expect(problem).toMatch(message);
		const result = checkCondition(
			{ attributes: { note: 'anything' } },
			'attributes.note',
			'regex',
			pattern,
		);
		expect(result.passed).toBe(false);
		expect(result.reason).toMatch(/: no \(pattern does not compile: /);
	});
});

describe('regex: catastrophic patterns are refused before they run', () => {
	test.each([
		['(a+)+$', 'nested quantifier (a+)+'],
		['(.*a){20}', 'nested quantifier (.*a){20}'],
		['([a-z]+)*$', 'nested quantifier ([a-z]+)*'],
		['(\\w+\\s?)*$', 'nested quantifier (\\w+\\s?)*'],
		['(a*)*b', 'nested quantifier (a*)*'],
		['(?:x{2,})+', 'nested quantifier (?:x{2,})+'],
		['^(([a-z])+.)+[A-Z]([a-z])+$', 'nested quantifier'],
		['(a|aa)+$', 'alternatives in (a|aa)+'],
		['(\\w|\\d)*x', 'alternatives in (\\w|\\d)*'],
		['(a|A)+b', 'alternatives in (a|A)+'],
		['(a)\\1', 'backreferences are not allowed'],
		['(?<q>["\'])\\k<q>', 'backreferences are not allowed'],
		['a'.repeat(501), 'longer than 500 characters (501)'],
	])('%j', (pattern, why) => {
		const [problem] = validateRuleSet(ruleSet(pattern));
		expect(problem).toContain(`pattern refused: ${why}`);
		// and at evaluation, on the input that would hang an unguarded engine, at once
		const started = Date.now();
		const result = checkCondition(
			{ attributes: { note: `${'a'.repeat(5000)}!` } },
			'attributes.note',
			'regex',
			pattern,
		);
		expect(Date.now() - started).toBeLessThan(1000);
		expect(result.passed).toBe(false);
		expect(result.reason).toContain(`(pattern refused: ${why}`);
	});

	test.each([
		'(a|b)+',
		'(?:\\s|,)+',
		'(.|\\n)*',
		'(\\p{L}|\\d)+',
		'^https?://[^/]+/pricing',
		'[(a+)+]',
	])('leaves the safe pattern %j alone', (pattern) => {
		expect(validateRuleSet(ruleSet(pattern))).toEqual([]);
	});
});

describe('regex: huge inputs', () => {
	it('tests only the first 2,000 characters of a 1 MB value, and says so', () => {
		const note = `${'x'.repeat(MAX_REGEX_INPUT_LENGTH - 7)}pricing${'y'.repeat(1_048_576 - MAX_REGEX_INPUT_LENGTH)}`;
		expect(note).toHaveLength(1_048_576);
		const hit = checkCondition({ attributes: { note } }, 'attributes.note', 'regex', 'pricing');
		const miss = checkCondition(
			{ attributes: { note: `${note}needle` } },
			'attributes.note',
			'regex',
			'needle',
		);
		expect(hit.passed).toBe(true);
		expect(hit.reason).toBe(
			'attributes.note matches regex /pricing/: yes (tested the first 2000 of 1048576 characters)',
		);
		expect(miss.passed).toBe(false);
		expect(miss.reason).toBe(
			'attributes.note matches regex /needle/: no (tested the first 2000 of 1048582 characters)',
		);
	});

	it('tests a polynomial pattern on as many characters as its worst case allows, and says so', () => {
		// a.*b is n² on a run of "a"s: unanchored, it is tested on the first 53 characters …
		const note = 'a'.repeat(MAX_REGEX_INPUT_LENGTH);
		const cut = checkCondition({ attributes: { note } }, 'attributes.note', 'regex', 'a.*b');
		expect(cut.passed).toBe(false);
		expect(cut.reason).toBe(
			'attributes.note matches regex /a.*b/: no (tested the first 53 of 2000 characters)',
		);
		// … anchored with ^, one .* is linear and sees the whole value.
		const anchored = checkCondition(
			{ attributes: { note: `${note.slice(0, 1900)}b` } },
			'attributes.note',
			'regex',
			'^a.*b',
		);
		expect(anchored.reason).toBe('attributes.note matches regex /^a.*b/: yes');
		// short values run whole
		expect(
			checkCondition({ attributes: { note: 'xaxxb' } }, 'attributes.note', 'regex', '.*a.*b')
				.passed,
		).toBe(true);
	});

	it('runs `.*pricing.*` as `pricing`: leading and trailing parts that may match nothing are dropped', () => {
		const note = `${'a'.repeat(1990)}/pricing`;
		const result = checkCondition(
			{ attributes: { note } },
			'attributes.note',
			'regex',
			'.*pricing.*',
		);
		expect(result.reason).toBe('attributes.note matches regex /.*pricing.*/: yes');
	});
});

describe("regex: too costly for one lead's budget", () => {
	test.each([
		['a.*b.*c', /2 variable-length quantifiers .*n\^3 steps .*could test only 14 characters/],
		['^(?:a?){30}a{30}$', /30 optional parts .*2\^30 × n\^1 steps/],
		['(a?a?)+b(x?y?)+c', /\(x\?y\?\)\+ repeats without bound around a choice/],
	])('%j is refused with what to change', (pattern, why) => {
		const [problem] = validateRuleSet(ruleSet(pattern));
		expect(problem).toMatch(/^condition 1 \(attributes\.note regex\): pattern refused: /);
		expect(problem).toMatch(why);
		if (!/repeats without bound/.test(problem)) {
			expect(problem).toContain(
				'anchor it with ^, use fewer .* / + / ?, or split it into several conditions',
			);
		}
	});
});
