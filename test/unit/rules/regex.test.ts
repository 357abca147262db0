import {
	MAX_REGEX_INPUT_LENGTH,
	REGEX_TIMEOUT_MS,
	validateRuleSet,
	type RuleSet,
} from '../../../shared/rules';
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
	it('tests only the first 10,000 characters of a 1 MB value, and says so', () => {
		const note = `${'x'.repeat(MAX_REGEX_INPUT_LENGTH - 7)}pricing${'y'.repeat(1_048_576 - MAX_REGEX_INPUT_LENGTH)}`;
		expect(note).toHaveLength(1_048_576);
		const started = Date.now();
		const hit = checkCondition({ attributes: { note } }, 'attributes.note', 'regex', 'pricing');
		const miss = checkCondition(
			{ attributes: { note: `${note}needle` } },
			'attributes.note',
			'regex',
			'needle',
		);
		expect(Date.now() - started).toBeLessThan(1000);
		expect(hit.passed).toBe(true);
		expect(hit.reason).toBe(
			'attributes.note matches regex /pricing/: yes (tested the first 10000 of 1048576 characters)',
		);
		expect(miss.passed).toBe(false);
		expect(miss.reason).toBe(
			'attributes.note matches regex /needle/: no (tested the first 10000 of 1048582 characters)',
		);
	});

	it('gives up on a polynomial pattern over a long hostile value instead of stalling', () => {
		// .*a.*b is fine on a URL but n³ on 10,000 "a"s: minutes in a bare engine.
		const note = 'a'.repeat(MAX_REGEX_INPUT_LENGTH);
		const started = Date.now();
		const first = checkCondition({ attributes: { note } }, 'attributes.note', 'regex', '.*a.*b');
		const again = checkCondition({ attributes: { note } }, 'attributes.note', 'regex', '.*a.*b');
		expect(Date.now() - started).toBeLessThan(REGEX_TIMEOUT_MS * 10);
		expect(first.passed).toBe(false);
		expect(first.reason).toMatch(
			/: no \(gave up: the pattern exceeded 50 ms on this value \(10000 characters\)\)$/,
		);
		expect(again.reason).toMatch(
			/gave up: the pattern exceeded 50 ms on values of 10000\+ characters/,
		);
		// short values still run normally
		expect(
			checkCondition({ attributes: { note: 'xaxxb' } }, 'attributes.note', 'regex', '.*a.*b')
				.passed,
		).toBe(true);
	});
});
