import fc from 'fast-check';
import {
	evaluateRules,
	MAX_REGEX_INPUT_LENGTH,
	validateRuleSet,
	type RuleSet,
} from '../../shared/rules';
import { analyzePattern } from '../../shared/rules/regex';
import { checkProperty, must, returnsWithin } from '../support/hostile';

/**
 * Regex rules on hostile values (shared/rules/regex.ts, budget.ts): a catastrophic pattern is
 * refused, or runs on as many characters as its worst case allows within one lead's budget
 * (the reason says how many) and answers exactly as JavaScript's RegExp does on them; either
 * way the call returns. No timing is asserted: a guard that let one of these run bare would not
 * return for minutes to centuries, and returnsWithin turns that into a failure (after 20 s)
 * instead of a hung run.
 */

const ruleSet = (pattern: string): RuleSet => ({
	combinator: 'and',
	conditions: [{ field: 'attributes.note', match_type: 'regex', pattern }],
});

/** One regex condition on `attributes.note`; fails (instead of hanging) if the call does not return. */
function evaluate(pattern: string, note: string) {
	return returnsWithin(() => evaluateRules(ruleSet(pattern), { attributes: { note } }).results[0]);
}

const TEN_K = 10_000;
const as = (n = TEN_K) => 'a'.repeat(n);

/**
 * The form of a pattern that runs (leading and trailing parts that may match nothing dropped):
 * safe to run bare on what the guard tested. That it answers as the written pattern does is
 * checked on short values, where the written one is quick too.
 */
function essentialRegex(pattern: string): RegExp {
	return new RegExp(analyzePattern(pattern, 'iu').essential, 'iu');
}

/** The characters of `note` the guard tested: all, or the first N the reason names. */
function tested(reason: string, note: string): string {
	// Values are compared trimmed (as every match type compares them).
	const cut = /tested the first (\d+) of \d+ characters/.exec(reason);
	const text = note.trim();
	return cut ? text.slice(0, Number(cut[1])) : text.slice(0, MAX_REGEX_INPUT_LENGTH);
}

/**
 * Known catastrophic patterns, how the guard must answer, and the 10,000-character value that
 * makes a backtracking engine explode on each (seconds to centuries in a bare RegExp).
 * `runs`: accepted because what runs is safe — its costly part can only be leading or trailing
 * (`\d*\d*…x` runs as `x`) — and tested on as much of the value as its worst case allows.
 */
const CATASTROPHIC: ReadonlyArray<[string, 'refused' | 'runs', string]> = [
	// exponential: nested quantifiers and overlapping alternatives
	['(a+)+$', 'refused', `${as(TEN_K - 1)}!`],
	['(a*)*b', 'refused', as()],
	['(a|aa)+$', 'refused', `${as(TEN_K - 1)}!`],
	['(a|a?)+$', 'refused', `${as(TEN_K - 1)}!`],
	['(\\w+\\s?)*$', 'refused', `${'word '.repeat(TEN_K / 5 - 1)}word!`],
	['^(([a-z])+.)+[A-Z]([a-z])+$', 'refused', as()],
	['(.*a){20}', 'refused', as()],
	['(x+x+)+y', 'refused', 'x'.repeat(TEN_K)],
	[
		'^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
		'refused',
		`${as(TEN_K - 1)}!`,
	],
	['^(\\d+)+$', 'refused', `${'1'.repeat(TEN_K - 1)}x`],
	['(\\s*,\\s*)*$', 'refused', `${' , '.repeat(TEN_K / 3)}x`],
	['(a)\\1+$', 'refused', as()],
	// exponential without an unbounded quantifier inside a group: bounded repetition of choices
	['^(?:a?){30}a{30}$', 'refused', as()],
	[`^${'a?'.repeat(30)}${'a'.repeat(30)}$`, 'refused', as()],
	['^(?:a|aa){60}$', 'refused', as()],
	['^(?:a{0,2}){30}$', 'refused', as()],
	// exponential: an unbounded group around bounded choices
	['^(a{0,2})+b', 'refused', as()],
	['(a?a?)+b', 'runs', as()],
	['(?:a?b?)+c', 'runs', 'ab'.repeat(TEN_K / 2)],
	// polynomial of high degree: fine on a URL, minutes to years on 10,000 characters
	['.*a.*a.*a.*b', 'refused', as()],
	['\\d*\\d*\\d*\\d*\\d*x', 'runs', '1'.repeat(TEN_K)],
	['[\\s\\S]*?x[\\s\\S]*?x[\\s\\S]*?y', 'refused', 'x'.repeat(TEN_K)],
	['^a*a*a*a*a*$', 'refused', `${as(TEN_K - 1)}!`],
	['a.*b', 'runs', as()],
	['^.*a.*b', 'runs', as()],
];

describe('catastrophic regex rules on 10,000-character values', () => {
	test.each(CATASTROPHIC)('/%s/: %s', (pattern, outcome, note) => {
		expect(note.length).toBeGreaterThanOrEqual(TEN_K);
		const result = evaluate(pattern, note);
		if (outcome === 'refused') {
			expect(result.passed).toBe(false);
			expect(validateRuleSet(ruleSet(pattern))).toEqual([
				expect.stringMatching(
					/pattern refused: (nested quantifier|alternatives in|backreferences|too much backtracking|.* repeats without bound)/,
				),
			]);
			expect(result.reason).toMatch(/: no \(pattern refused: /);
		} else {
			// None of these values holds a match; a bare engine would not return to say so.
			expect(validateRuleSet(ruleSet(pattern))).toEqual([]);
			expect(result.reason).not.toMatch(/not evaluated/);
			expect(result.passed).toBe(false);
			expect(result.passed).toBe(essentialRegex(pattern).test(tested(result.reason, note)));
		}
	});

	it('a value of 1,000,000 characters is cut to the first 2,000 before any pattern runs', () => {
		const note = `${as(1_000_000)}!`;
		const result = evaluate('(a?a?)+b', note);
		expect(result.passed).toBe(false);
		expect(result.reason).toMatch(/tested the first \d+ of 1000001 characters/);
	});
});

/** Pieces that make regexes backtrack: quantified atoms, optional items, groups, alternations. */
const atom = fc.constantFrom('a', 'b', '.', '\\w', '\\d', '\\s', '[ab]', '[^x]', '\\p{L}', 'aa');
const quantifier = fc.constantFrom('', '', '?', '*', '+', '{0,2}', '{2,}', '{1,3}', '*?', '{3}');
const piece: fc.Arbitrary<string> = fc.letrec<{ piece: string }>((tie) => ({
	piece: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		fc.tuple(atom, quantifier).map(([a, q]) => `${a}${q}`),
		fc
			.tuple(fc.array(tie('piece'), { minLength: 1, maxLength: 3 }), quantifier)
			.map(([inner, q]) => `(?:${inner.join('')})${q}`),
		fc
			.tuple(fc.array(tie('piece'), { minLength: 2, maxLength: 3 }), quantifier)
			.map(([alts, q]) => `(?:${alts.join('|')})${q}`),
	),
})).piece;
const pattern = fc
	.tuple(
		fc.boolean(),
		fc.array(piece, { minLength: 1, maxLength: 5 }),
		fc.constantFrom('', '$', 'x$', '!'),
	)
	.map(([anchored, pieces, end]) => `${anchored ? '^' : ''}${pieces.join('')}${end}`);
/** Values that drive backtracking: long runs of what the pieces match, then a mismatch. */
const hostileNote = fc
	.tuple(
		fc.constantFrom('a', 'ab', 'a ', '1', 'aa1', 'x', 'é'),
		fc.constantFrom('', '!', 'b', '\n'),
	)
	.map(([unit, tail]) => `${unit.repeat(Math.ceil(TEN_K / unit.length)).slice(0, TEN_K)}${tail}`);

describe('generated patterns on hostile values', () => {
	it('every pattern is refused, or answers as JavaScript does on the characters it tested; every call returns', () => {
		checkProperty(
			fc.property(pattern, hostileNote, (source, note) => {
				const long = evaluate(source, note);
				must(
					long.passed === false || /: yes/.test(long.reason),
					() => `passed without a yes: ${long.reason}`,
				);
				const refused = /pattern refused|does not compile/.test(long.reason);
				must(
					refused === validateRuleSet(ruleSet(source)).length > 0,
					() => `evaluation and validation disagree on /${source}/`,
				);
				must(!/not evaluated/.test(long.reason), () => `one condition over budget: ${long.reason}`);
				if (!refused) {
					must(
						long.passed === essentialRegex(source).test(tested(long.reason, note)),
						() => `wrong answer for /${source}/ on the long value (${long.reason})`,
					);
				}
				// Short values (where even a bare engine is quick) get JavaScript's own answer.
				for (const length of [4, 10]) {
					const short = `${note.slice(0, length - 1)}${note.slice(-1)}`;
					const answer = evaluate(source, short);
					if (!refused) {
						must(
							answer.passed === new RegExp(source, 'iu').test(short.trim()),
							() => `wrong answer for /${source}/ on ${JSON.stringify(short)}`,
						);
					}
				}
			}),
			500,
		);
	});
});
