import {
	buildPreview,
	decideSend,
	evaluateRules,
	LEAD_BUDGET_UNITS,
	MAX_CONDITIONS,
	MAX_FIELD_DEPTH,
	MAX_LIST_ITEMS,
	MAX_PATTERN_LENGTH,
	MAX_REGEX_CONDITIONS,
	MAX_VALUE_CHARS,
	MAX_VALUES_PER_CONDITION,
	validateRuleSet,
	type RuleCondition,
	type RuleSet,
	type SendPolicy,
} from '../../../shared/rules';
import { returnsWithin } from '../../support/hostile';
import { checkCondition } from './helpers';

const contains = (field: string, pattern = 'needle'): RuleCondition => ({
	field,
	match_type: 'contains',
	pattern,
});
const rules = (conditions: RuleCondition[], combinator: 'and' | 'or' = 'and'): RuleSet => ({
	combinator,
	conditions,
});

describe('rule budgets: validation names the condition and the limit', () => {
	it(`refuses more than ${MAX_CONDITIONS} conditions (the issue's 10,000 are refused at once)`, () => {
		const many = Array.from({ length: 10_000 }, (_, i) => contains('attributes.note', `n${i}`));
		expect(validateRuleSet(rules(many))).toEqual([
			`10000 conditions: at most ${MAX_CONDITIONS} are allowed (rule budget); combine values into one In List or Regex condition`,
		]);
		expect(validateRuleSet(rules(many.slice(0, MAX_CONDITIONS)))).toEqual([]);
	});

	it(`refuses more than ${MAX_REGEX_CONDITIONS} regex conditions`, () => {
		const regexes = Array.from({ length: MAX_REGEX_CONDITIONS + 1 }, (_, i) => ({
			field: 'source.page_url',
			match_type: 'regex' as const,
			pattern: `p${i}`,
		}));
		expect(validateRuleSet(rules(regexes))).toEqual([
			`${MAX_REGEX_CONDITIONS + 1} regex conditions: at most ${MAX_REGEX_CONDITIONS} are allowed (rule budget); join patterns with | or use Contains / In List`,
		]);
	});

	it.each<[string, RuleCondition, string]>([
		[
			'a huge text pattern',
			contains('attributes.note', 'x'.repeat(MAX_PATTERN_LENGTH + 1)),
			`condition 1 (attributes.note contains): pattern is ${MAX_PATTERN_LENGTH + 1} characters long; at most ${MAX_PATTERN_LENGTH} are allowed`,
		],
		[
			'a list with too many items',
			{
				field: 'attributes.utm_source',
				match_type: 'in_list',
				pattern: Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => i % 10).join(','),
			},
			`condition 1 (attributes.utm_source in_list): pattern has ${MAX_LIST_ITEMS + 1} list items; at most ${MAX_LIST_ITEMS} are allowed`,
		],
		[
			'a field path nested too deep',
			contains(Array.from({ length: MAX_FIELD_DEPTH + 1 }, () => 'a').join('.')),
			`condition 1 (${Array.from({ length: MAX_FIELD_DEPTH + 1 }, () => 'a').join('.')} contains): field has ${MAX_FIELD_DEPTH + 1} parts; at most ${MAX_FIELD_DEPTH} are allowed`,
		],
		[
			'a huge regex',
			{ field: 'source.page_url', match_type: 'regex', pattern: 'a'.repeat(501) },
			'condition 1 (source.page_url regex): pattern refused: longer than 500 characters (501)',
		],
	])('%s', (_, condition, problem) => {
		expect(validateRuleSet(rules([condition]))).toEqual([problem]);
		// and the condition fails every lead, saying why
		const result = evaluateRules(rules([condition]), { attributes: { note: 'needle' } }).results[0];
		expect(result.passed).toBe(false);
		expect(result.reason).toContain(problem.replace(/^condition 1 \([^)]*\): /, ''));
	});
});

describe('rule budgets: what one condition examines of a hostile record', () => {
	it(`a 1 MB value: the first ${MAX_VALUE_CHARS} characters are examined (ends_with: the last), and the reason says so`, () => {
		const note = `${'x'.repeat(MAX_VALUE_CHARS - 6)}needle${'y'.repeat(1_000_000)}end`;
		const record = { attributes: { note } };
		expect(checkCondition(record, 'attributes.note', 'contains', 'needle').reason).toBe(
			`attributes.note contains "needle": yes (examined the first ${MAX_VALUE_CHARS} of ${note.length} characters)`,
		);
		expect(checkCondition(record, 'attributes.note', 'contains', 'yyyend').passed).toBe(false);
		expect(checkCondition(record, 'attributes.note', 'ends_with', 'yyyend').reason).toBe(
			`attributes.note ends with "yyyend": yes (examined the last ${MAX_VALUE_CHARS} of ${note.length} characters)`,
		);
	});

	it(`a field expanded to 100,000 array elements: the first ${MAX_VALUES_PER_CONDITION} values are examined`, () => {
		const list = Array.from({ length: 100_000 }, (_, i) => ({ tag: `t${i}` }));
		const first = checkCondition({ list }, 'list.tag', 'equals', 't3');
		expect(first.passed).toBe(true);
		expect(first.reason).toMatch(/yes \(examined the first 20 values of the field\)$/);
		expect(checkCondition({ list }, 'list.tag', 'equals', 't50000').passed).toBe(false);
	});

	it('a field holding a huge object: only the start of its JSON is built and examined', () => {
		const attributes = { list: Array.from({ length: 1_000_000 }, (_, i) => ({ k: `v${i}` })) };
		const result = returnsWithin(() =>
			checkCondition({ attributes }, 'attributes', 'contains', '"k":"v3"'),
		);
		expect(result.passed).toBe(true);
		expect(result.reason).toMatch(/yes \(examined the first 2000 of \d+\+ characters\)$/);
		// small objects compare as their whole JSON, as before
		const small = { a: 1, b: [1, undefined], c: { d: new Date(0) } };
		expect(checkCondition({ small }, 'small', 'equals', JSON.stringify(small)).passed).toBe(true);
	});

	it('arrays nested 100,000 deep are read without exhausting the stack', () => {
		let deep: unknown = 'needle';
		for (let i = 0; i < 100_000; i++) deep = [deep];
		const result = returnsWithin(() => checkCondition({ deep }, 'deep', 'contains', 'needle'));
		expect(result.passed).toBe(false);
		expect(result.reason).toMatch(/field is missing/);
	});

	it('an "email" longer than an address can be is not read as one', () => {
		const email = `${'a'.repeat(400)}@acme.com`;
		const result = checkCondition(
			{ contact: { email } },
			'contact.email',
			'email_domain_in',
			'acme.com',
		);
		expect(result.passed).toBe(false);
		expect(result.reason).toMatch(/not an email address/);
	});
});

describe('rule budgets: the work counter of one lead', () => {
	const long = 'x'.repeat(MAX_VALUE_CHARS);
	const fourLong = { attributes: { f0: long, f1: long, f2: long, f3: `${long}needle` } };
	const four = [0, 1, 2, 3].map((i) => contains(`attributes.f${i}`));

	it('the conditions after the budget runs out are not evaluated, fail, and the evaluation says where', () => {
		const evaluation = evaluateRules(rules(four, 'or'), fourLong);
		expect(evaluation.matched).toBe(false);
		expect(evaluation.results.map((r) => r.overBudget === true)).toEqual([false, true, true, true]);
		expect(evaluation.results[1].reason).toBe(
			`attributes.f1 contains "needle": no (not evaluated: this lead's rule budget of ${LEAD_BUDGET_UNITS} units ran out at condition 2)`,
		);
		expect(evaluation.overBudget).toBe(
			`not evaluated: this lead's rule budget of ${LEAD_BUDGET_UNITS} units ran out at condition 2; conditions 2 to 4 were not evaluated`,
		);
		expect(evaluation.reason).toBe(`none of the 4 conditions matched (${evaluation.overBudget})`);
	});

	it('what the evaluated conditions decide stands: an OR that already passed is matched', () => {
		const record = { attributes: { ...fourLong.attributes, f0: `${long.slice(7)}needle` } };
		const evaluation = evaluateRules(rules(four, 'or'), record);
		expect(evaluation.matched).toBe(true);
		expect(evaluation.overBudget).toMatch(/ran out at condition 2/);
		expect(evaluation.reason).toMatch(/^condition 1 of 4 matched/);
	});

	it('the same lead gets the same answer every time (a count of work, not a clock)', () => {
		const answers = new Set(
			Array.from({ length: 20 }, () => JSON.stringify(evaluateRules(rules(four), fourLong))),
		);
		expect(answers.size).toBe(1);
	});

	it('the preview counts the captures over budget and says what to change; it reads them as the live filter does', () => {
		const policy: SendPolicy = {
			mode: 'automatic_match',
			rulesApplyTo: 'all',
			rules: rules(four, 'or'),
		};
		const now = Date.parse('2026-12-01T12:00:00Z');
		const light = { attributes: { f0: 'x', f1: 'x', f2: 'x', f3: 'a needle' } };
		const entries = [fourLong, light, fourLong].map((record, i) => ({
			id: `${now - i}-0`,
			at: now - i,
			record,
		}));
		const report = buildPreview(policy, entries, { now });
		expect(report.matched).toBe(1);
		expect(report.conditions.map((c) => c.over_budget)).toEqual([0, 2, 2, 2]);
		expect(report.over_budget_note).toMatch(
			/^2 of 3 captures ran out of the rule budget of [\d,]+ units per lead \(from condition 2 on\)/,
		);
		for (const entry of entries) {
			expect(
				report.examples.misses.concat(report.examples.matches).find((e) => e.id === entry.id)
					?.reason,
			).toBe(decideSend(policy, entry.record).reason);
		}
	});
});
