import fc from 'fast-check';
import {
	evaluateRules,
	MAX_REGEX_INPUT_LENGTH,
	validateRuleSet,
	type RuleSet,
} from '../../shared/rules';
import { checkProperty, must, returnsWithin } from '../support/hostile';

/**
 * Regex rules on hostile values (shared/rules/regex.ts): a catastrophic pattern is refused, or
 * run under the time budget and then fails with "gave up"; either way the call returns. No
 * timing is asserted: a guard that let one of these run bare would not return for minutes to
 * centuries, and returnsWithin turns that into a failure (after 20 s) instead of a hung run.
 */

const ruleSet = (pattern: string): RuleSet => ({
	combinator: 'and',
	conditions: [{ field: 'attributes.note', match_type: 'regex', pattern }],
});

/** One regex condition on `attributes.note`; fails (instead of hanging) if the call does not return. */
function evaluate(pattern: string, note: string) {
	return returnsWithin(() => evaluateRules(ruleSet(pattern), { attributes: { note } }).results[0]);
}

const TEN_K = MAX_REGEX_INPUT_LENGTH;
const as = (n = TEN_K) => 'a'.repeat(n);

/**
 * Known catastrophic patterns, how the guard must answer, and the 10,000-character value that
 * makes a backtracking engine explode on each (seconds to centuries in a bare RegExp).
 */
const CATASTROPHIC: ReadonlyArray<[string, 'refused' | 'gave up', string]> = [
	// exponential: nested quantifiers and overlapping alternatives (refused before they run)
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
	['^(?:a?){30}a{30}$', 'gave up', as()],
	[`^${'a?'.repeat(30)}${'a'.repeat(30)}$`, 'gave up', as()],
	['^(?:a|aa){60}$', 'gave up', as()],
	['^(?:a{0,2}){30}$', 'gave up', as()],
	// exponential: an unbounded group around bounded choices
	['(a?a?)+b', 'gave up', as()],
	['^(a{0,2})+b', 'gave up', as()],
	['(?:a?b?)+c', 'gave up', 'ab'.repeat(TEN_K / 2)],
	// polynomial of high degree: fine on a URL, minutes to years on 10,000 characters
	['.*a.*a.*a.*b', 'gave up', as()],
	['\\d*\\d*\\d*\\d*\\d*x', 'gave up', '1'.repeat(TEN_K)],
	['[\\s\\S]*?x[\\s\\S]*?x[\\s\\S]*?y', 'gave up', 'x'.repeat(TEN_K)],
	['^a*a*a*a*a*$', 'gave up', `${as(TEN_K - 1)}!`],
];

describe('catastrophic regex rules on 10,000-character values', () => {
	test.each(CATASTROPHIC)('/%s/: %s', (pattern, outcome, note) => {
		expect(note.length).toBeGreaterThanOrEqual(TEN_K);
		const result = evaluate(pattern, note);
		expect(result.passed).toBe(false);
		if (outcome === 'refused') {
			expect(validateRuleSet(ruleSet(pattern))).toEqual([
				expect.stringMatching(
					/pattern refused: (nested quantifier|alternatives in|backreferences)/,
				),
			]);
			expect(result.reason).toMatch(/: no \(pattern refused: /);
		} else {
			expect(validateRuleSet(ruleSet(pattern))).toEqual([]);
			expect(result.reason).toMatch(
				/: no \(gave up: the pattern exceeded 50 ms on (this value|values of \d+\+ characters)/,
			);
		}
		// The same pattern on a short value still answers like JavaScript's own RegExp.
		const short = note.slice(0, 12);
		if (outcome === 'gave up') {
			expect(evaluate(pattern, short).passed).toBe(new RegExp(pattern, 'iu').test(short));
		}
	});

	it('a value of 1,000,000 characters is cut to the first 10,000 before any pattern runs', () => {
		const note = `${as(1_000_000)}!`;
		const result = evaluate('^(?:a?){30}a{30}$', note);
		expect(result.passed).toBe(false);
		expect(result.reason).toMatch(/gave up/);
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
	it('every pattern is refused, gives up, or answers as JavaScript does on a short value; every call returns', () => {
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
				if (!refused && !/gave up/.test(long.reason)) {
					// Only the first 10,000 characters are tested (the reason says so).
					const tested = note.slice(0, TEN_K);
					must(
						long.passed === new RegExp(source, 'iu').test(tested),
						() => `wrong answer for /${source}/ on the long value`,
					);
				}
				// A short value (where even a bare engine is quick) gets JavaScript's own answer.
				const short = note.slice(0, 10);
				const answer = evaluate(source, short);
				if (!refused) {
					must(
						answer.passed === new RegExp(source, 'iu').test(short),
						() => `wrong answer for /${source}/ on ${JSON.stringify(short)}`,
					);
				}
			}),
			500,
		);
	});
});
