/**
 * The regex match type, guarded. JavaScript regexes backtrack, and a rule runs on text from
 * public webhooks and browser captures, so a careless pattern on a hostile value could stall
 * the n8n process. Every pattern gets a worst-case cost from a static analysis, and the rule
 * budgets (budget.ts) bound it:
 *
 * 1. Refused patterns (validateRuleSet and evaluation say why): longer than 500 characters;
 *    backreferences; nested quantifiers — a repeated group that itself holds an unbounded
 *    quantifier: (a+)+, (a*)*, (a+)*, (a{2,})+, ([a-z]+)*, (\w+\s?)*, (.*a){20} — the classic
 *    exponential family; alternatives under an unbounded quantifier whose branches can start
 *    with the same character: (a|aa)+, (\w|\d)*; a group repeated without bound around any
 *    choice: (a?a?)+, (a{0,2})+; and patterns whose worst case does not fit one lead's budget
 *    on MIN_REGEX_INPUT characters (below).
 * 2. Cost. k quantifiers that repeat a variable number of times (`*`, `+`, `{2,}`, `{0,5}`,
 *    counted once per repetition of the groups around them) make a backtracking engine try
 *    n^k splits of an n-character value, times n start positions unless the pattern is anchored
 *    with `^`; each two-way choice (`a?`, alternatives that can start alike) doubles that, and
 *    at each step up to `width` branches are tried (the most alternatives of one group). So
 *    cost(n) = width × 2^choices × n^max(1, k + (anchored ? 0 : 1)) units (≈ steps).
 * 3. Input cap: a value is tested on its first `inputLimit` characters, the most whose cost
 *    fits one lead's budget (at most MAX_VALUE_CHARS = 2,000; the reason says when a value was
 *    cut): `pricing`, `^a.*b` or `^https?://[^/]+/pricing` test 2,000, `utm=.*fb` 53;
 *    `a.*b.*c` (n³: 14 characters) is refused. Each test charges its cost to the lead's work
 *    counter, so many cheap patterns cannot add up to a stall either.
 *
 * Before the cost analysis, what cannot change whether a pattern matches somewhere is dropped
 * from the compiled form: leading and trailing parts that may match nothing (`.*pricing.*` runs
 * as `pricing`) and the extra repetitions of a leading or trailing `+` (`a+b` runs as `ab`), so
 * the usual "contains" spelling costs what `pricing` costs. Refusals (1) are judged on the
 * pattern as written. Compiled forms are cached (one compile per pattern per process).
 */
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import {
	CONDITION_UNITS,
	LEAD_BUDGET_UNITS,
	MAX_FIELD_DEPTH,
	MAX_VALUE_CHARS,
	MIN_REGEX_INPUT,
	VALUE_UNITS,
} from './budget';

export const MAX_REGEX_PATTERN_LENGTH = 500;
/** The most characters of a value any pattern tests (a pattern's own cap may be lower). */
export const MAX_REGEX_INPUT_LENGTH = MAX_VALUE_CHARS;
/** What one test may cost: one lead's budget less the condition's, the value's and the read's units. */
const TEST_UNITS = LEAD_BUDGET_UNITS - CONDITION_UNITS - VALUE_UNITS - (MAX_FIELD_DEPTH + 1);
const CACHE_LIMIT = 256;

export interface GuardedRegex {
	regex: RegExp | null;
	/** Why the pattern does not compile or is refused; null when usable. */
	problem: string | null;
	/** Characters of a value tested: the most whose worst case fits one lead's budget. */
	inputLimit: number;
	/** Worst-case units of one test on `n` characters. */
	cost: (n: number) => number;
}

export interface RegexTestResult {
	matched: boolean;
	/** Set when the value was not tested whole (the pattern's input cap). */
	note: string | null;
}

const cache = new Map<string, GuardedRegex>();

/** The guarded, compiled form of a pattern (flags `u`, plus `i` unless case-sensitive). Cached. */
export function compileRuleRegex(pattern: string, caseSensitive: boolean): GuardedRegex {
	const flags = caseSensitive ? 'u' : 'iu';
	const key = `${flags}/${pattern}`;
	const cached = cache.get(key);
	if (cached) return cached;
	const compiled = compileUncached(pattern.normalize('NFC'), flags);
	if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
	cache.set(key, compiled);
	return compiled;
}

function compileUncached(pattern: string, flags: string): GuardedRegex {
	const refused = (problem: string): GuardedRegex => ({
		regex: null,
		problem,
		inputLimit: 0,
		cost: () => 0,
	});
	if (pattern.length > MAX_REGEX_PATTERN_LENGTH) {
		return refused(
			`pattern refused: longer than ${MAX_REGEX_PATTERN_LENGTH} characters (${pattern.length})`,
		);
	}
	try {
		new RegExp(pattern, flags);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return refused(`pattern does not compile: ${message}`);
	}
	const analysis = analyzePattern(pattern, flags);
	if (analysis.problem) return refused(`pattern refused: ${analysis.problem}`);
	const cost = costOf(analysis);
	const inputLimit = inputLimitOf(cost);
	if (inputLimit < MIN_REGEX_INPUT) {
		return refused(`pattern refused: ${tooCostly(analysis, inputLimit, pattern)}`);
	}
	return { regex: new RegExp(analysis.essential, flags), problem: null, inputLimit, cost };
}

/** cost(n) = width × 2^choices × n^max(1, degree + (anchored ? 0 : 1)). */
function costOf(analysis: PatternAnalysis): (n: number) => number {
	const power = Math.max(1, analysis.degree + (analysis.anchored ? 0 : 1));
	const factor = analysis.width * 2 ** analysis.binaryChoices;
	return (n) => factor * n ** power;
}

/** The most characters (≤ MAX_VALUE_CHARS) whose worst case fits TEST_UNITS. */
function inputLimitOf(cost: (n: number) => number): number {
	if (cost(MAX_VALUE_CHARS) <= TEST_UNITS) return MAX_VALUE_CHARS;
	let low = 0;
	let high = MAX_VALUE_CHARS;
	while (low < high) {
		const mid = Math.ceil((low + high) / 2);
		if (cost(mid) <= TEST_UNITS) low = mid;
		else high = mid - 1;
	}
	return low;
}

function tooCostly(analysis: PatternAnalysis, inputLimit: number, pattern: string): string {
	if (analysis.degree === Infinity) {
		return `${analysis.unboundedChoice ?? 'a group'} repeats without bound around a choice and can backtrack catastrophically`;
	}
	const power = Math.max(1, analysis.degree + (analysis.anchored ? 0 : 1));
	const parts = [
		`${analysis.degree} variable-length quantifier${analysis.degree === 1 ? '' : 's'} (*, +, {m,n})`,
		...(analysis.binaryChoices > 0
			? [
					`${analysis.binaryChoices} optional part${analysis.binaryChoices === 1 ? '' : 's'} or alike alternatives`,
				]
			: []),
		analysis.anchored ? 'anchored with ^' : 'not anchored with ^',
	];
	const factor = `${analysis.width > 1 ? `${analysis.width} alternatives × ` : ''}${analysis.binaryChoices > 0 ? `2^${analysis.binaryChoices} × ` : ''}`;
	return (
		`too much backtracking for one lead's budget: ${parts.join(', ')} cost up to ${factor}n^${power} steps on n characters, ` +
		`so it could test only ${inputLimit} characters of a value (at least ${MIN_REGEX_INPUT} needed); ` +
		'anchor it with ^, use fewer .* / + / ?, or split it into several conditions' +
		(pattern.split('|').length > 8 ? ' (for many alternatives, In List or Contains)' : '')
	);
}

/** Tests an already normalized value, cut to the pattern's input cap. */
export function testRuleRegex(
	guarded: GuardedRegex,
	text: string,
	originalLength: number,
): RegexTestResult {
	const regex = guarded.regex;
	if (!regex) return { matched: false, note: guarded.problem };
	const input = capText(text, guarded.inputLimit);
	const note =
		originalLength > input.length
			? `tested the first ${input.length} of ${originalLength} characters`
			: null;
	return { matched: regex.test(input), note };
}

/** The first `limit` characters, without splitting a surrogate pair. */
export function capText(text: string, limit = MAX_VALUE_CHARS): string {
	if (text.length <= limit) return text;
	const code = text.charCodeAt(limit - 1);
	return text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit);
}

// ---------------------------------------------------------------------------------------------
// Static analysis: a small parser for valid (already compiled) Unicode-mode patterns.

interface Quantifier {
	min: number;
	max: number;
	text: string;
}

interface RegexNode {
	kind: 'atom' | 'group' | 'lookaround' | 'assertion';
	/** Source text without the quantifier. */
	source: string;
	alternatives?: RegexNode[][];
	quantifier?: Quantifier;
}

export interface PatternAnalysis {
	problem: string | null;
	/**
	 * How many quantifiers can repeat a variable number of times, counted once per repetition
	 * of the groups around them: the backtracking degree (Infinity: a group repeated without
	 * bound holds a choice).
	 */
	degree: number;
	/** Two-way choices (`x?`, alternatives that can start alike), counted the same way. */
	binaryChoices: number;
	/** Every top-level alternative starts with `^`: one start position instead of n. */
	anchored: boolean;
	/** The most alternatives of one group (or of the pattern): branches tried at each step. */
	width: number;
	/** The pattern without leading and trailing parts that may match nothing (see above). */
	essential: string;
	/** The first group repeated without bound around a choice, as written. */
	unboundedChoice: string | null;
}

/**
 * Why a (compilable) pattern is refused — judged on the pattern as written, so what would be
 * catastrophic anywhere is named — and the cost of its essential form, which is what runs.
 */
export function analyzePattern(pattern: string, flags: string): PatternAnalysis {
	const parsed = parsePattern(pattern, flags);
	const written = parsed.alternatives;
	const tree = written.map(essentialNodes);
	const essential = tree.map((nodes) => nodes.map(sourceOf).join('')).join('|');
	const anchored = tree.every((nodes) => nodes[0]?.kind === 'assertion' && nodes[0].source === '^');
	const analysis: PatternAnalysis = {
		problem: null,
		degree: 0,
		binaryChoices: 0,
		anchored,
		width: widthOf(tree, flags),
		essential,
		unboundedChoice: null,
	};
	if (parsed.hasBackreference) return { ...analysis, problem: 'backreferences are not allowed' };
	const check: WalkState = { problem: null, flags, unboundedChoice: null };
	walkAlternatives(written, check);
	if (check.problem) return { ...analysis, problem: check.problem };
	const state: WalkState = { problem: null, flags, unboundedChoice: null };
	const top = walkAlternatives(tree, state);
	return {
		...analysis,
		degree: top.degree,
		binaryChoices: top.binaryChoices,
		unboundedChoice: state.unboundedChoice,
	};
}

/**
 * A top-level alternative without what cannot change whether it matches somewhere in a value:
 * leading and trailing atoms or groups that may match nothing (`x*`, `x?`, `x{0,n}`) are
 * dropped (`.*a` matches wherever `a` does), and a leading or trailing repetition keeps only
 * its minimum (`a+b` matches wherever `ab` does, `ab+` wherever `ab` does). The engine then no
 * longer backtracks over them.
 */
function essentialNodes(nodes: RegexNode[]): RegexNode[] {
	const repeatable = (node: RegexNode | undefined) =>
		node !== undefined &&
		(node.kind === 'atom' || node.kind === 'group') &&
		node.quantifier !== undefined;
	let start = 0;
	let end = nodes.length;
	while (start < end && repeatable(nodes[start]) && nodes[start].quantifier?.min === 0) start += 1;
	while (end > start && repeatable(nodes[end - 1]) && nodes[end - 1].quantifier?.min === 0)
		end -= 1;
	const kept = nodes.slice(start, end);
	for (const at of new Set([0, kept.length - 1])) {
		const node = kept[at];
		if (!repeatable(node) || !node.quantifier || node.quantifier.max === node.quantifier.min)
			continue;
		const min = node.quantifier.min;
		kept[at] = {
			...node,
			quantifier: min === 1 ? undefined : { min, max: min, text: `{${min}}` },
		};
	}
	return kept;
}

/**
 * The most alternatives of any group, the pattern's own included, that cannot start alike
 * (alternatives that can are counted as choices already).
 */
function widthOf(alternatives: RegexNode[][], flags: string): number {
	let width =
		alternatives.length > 1 && !alternativesOverlap(alternatives, flags) ? alternatives.length : 1;
	for (const nodes of alternatives) {
		for (const node of nodes) {
			if (node.alternatives) width = Math.max(width, widthOf(node.alternatives, flags));
		}
	}
	return width;
}

function sourceOf(node: RegexNode): string {
	return `${node.source}${node.quantifier?.text ?? ''}`;
}

interface WalkState {
	problem: string | null;
	flags: string;
	unboundedChoice: string | null;
}

/** What a node holds, as far as backtracking goes. */
interface NodeCost {
	/** An unbounded quantifier (its own included). */
	unbounded: boolean;
	degree: number;
	binaryChoices: number;
}

/** The alternatives of a group (or of the whole pattern), each node visited once. */
function walkAlternatives(alternatives: RegexNode[][], state: WalkState): NodeCost {
	const cost: NodeCost = { unbounded: false, degree: 0, binaryChoices: 0 };
	for (const alternative of alternatives) {
		alternative.forEach((child, i) => {
			const inner = walk(child, state);
			cost.unbounded ||= inner.unbounded;
			cost.degree += inner.degree;
			cost.binaryChoices += inner.binaryChoices;
			if (isBinary(child) && !choiceContinuesAlike(child, alternative.slice(i + 1), state.flags)) {
				cost.binaryChoices -= 1;
			}
		});
	}
	if (alternatives.length > 1 && alternativesOverlap(alternatives, state.flags)) {
		cost.binaryChoices += Math.ceil(Math.log2(alternatives.length));
	}
	return cost;
}

/** `x?`, `x{1,2}`: one more repetition or not. */
function isBinary(node: RegexNode): boolean {
	return node.quantifier !== undefined && node.quantifier.max - node.quantifier.min === 1;
}

/**
 * Whether both ways of an optional `x?` can go on: taking one more `x`, or skipping to what
 * follows. When what follows (in the same alternative, not empty, not nullable) cannot start
 * like `x` (`s?:` in `https?://`), the next character decides, and the choice costs nothing.
 */
function choiceContinuesAlike(node: RegexNode, rest: RegexNode[], flags: string): boolean {
	const next = firstAtoms(rest);
	if (next.nullable || next.atoms.length === 0) return true;
	return alternativesOverlap([[{ ...node, quantifier: undefined }], rest], flags);
}

/** Visits a node; notes a refusal in `state` and returns what the node holds. */
function walk(node: RegexNode, state: WalkState): NodeCost {
	const quantifier = node.quantifier;
	const inner = node.alternatives
		? walkAlternatives(node.alternatives, state)
		: { unbounded: false, degree: 0, binaryChoices: 0 };
	if (quantifier && node.alternatives && state.problem === null) {
		const shown = shorten(`${node.source}${quantifier.text}`);
		if (quantifier.max > 1 && inner.unbounded) {
			state.problem = `nested quantifier ${shown} can backtrack catastrophically`;
		} else if (
			quantifier.max === Infinity &&
			node.alternatives.length > 1 &&
			alternativesOverlap(node.alternatives, state.flags)
		) {
			state.problem = `alternatives in ${shown} can match the same text and backtrack catastrophically`;
		}
	}
	const cost: NodeCost = { ...inner, unbounded: inner.unbounded || quantifier?.max === Infinity };
	if (!quantifier) return cost;
	// What the group holds is met again at each repetition.
	const holdsChoice = inner.degree > 0 || inner.binaryChoices > 0;
	if (holdsChoice && quantifier.max === Infinity) {
		cost.degree = Infinity;
		state.unboundedChoice ??= shorten(`${node.source}${quantifier.text}`);
	} else if (holdsChoice && quantifier.max > 1) {
		cost.degree = inner.degree * quantifier.max;
		cost.binaryChoices = inner.binaryChoices * quantifier.max;
	}
	if (quantifier.max === Infinity || quantifier.max - quantifier.min > 1) cost.degree += 1;
	else if (quantifier.max - quantifier.min === 1) cost.binaryChoices += 1;
	return cost;
}

function shorten(text: string): string {
	return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

// Characters to probe whether two branches can start alike: cheap and good enough for the
// usual suspects (\w vs \d, . vs anything, a vs aa, case-insensitive a vs A).
const PROBES = [
	'\t',
	'\n',
	'\r',
	...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
	...'\u00a0éüßçñøÉÜλяЖ中日😀\u2028',
];

function alternativesOverlap(alternatives: RegexNode[][], flags: string): boolean {
	const firsts = alternatives.map((alternative) => firstAtoms(alternative));
	// The probes, plus the characters the atoms themselves spell (`Ā`, `[ā-ą]`), so branches
	// on characters outside the probe set are compared too.
	const chars = [...PROBES, ...firsts.flatMap((first) => first.atoms.flatMap(literalChars))];
	const probes = new Map<string, RegExp | null>();
	const probe = (atom: string): RegExp | null => {
		if (!probes.has(atom)) {
			try {
				probes.set(atom, new RegExp(`^(?:${atom})$`, flags));
			} catch {
				probes.set(atom, null);
			}
		}
		return probes.get(atom) ?? null;
	};
	for (let i = 0; i < firsts.length; i++) {
		for (let j = i + 1; j < firsts.length; j++) {
			for (const a of firsts[i].atoms) {
				for (const b of firsts[j].atoms) {
					const ra = probe(a);
					const rb = probe(b);
					if (!ra || !rb) return true;
					const inA = chars.filter((c) => ra.test(c));
					// Nothing we can try matches one of them: assume the worst.
					if (inA.length === 0 || !chars.some((c) => rb.test(c))) return true;
					if (inA.some((c) => rb.test(c))) return true;
				}
			}
		}
	}
	return false;
}

/** The literal characters an atom spells: itself, or the characters written in a class. */
function literalChars(atom: string): string[] {
	if (atom.startsWith('\\')) return [];
	const body = atom.startsWith('[') ? atom.slice(1).replace(/^\^/, '') : atom;
	return [...body].filter((c) => !'[]-\\^'.includes(c));
}

/** The atoms an alternative can start with, and whether it can match the empty string. */
function firstAtoms(alternative: RegexNode[]): { atoms: string[]; nullable: boolean } {
	const atoms: string[] = [];
	for (const node of alternative) {
		if (node.kind === 'assertion' || node.kind === 'lookaround') continue;
		let nullable = (node.quantifier?.min ?? 1) === 0;
		if (node.kind === 'atom') {
			atoms.push(node.source);
		} else {
			for (const inner of node.alternatives ?? []) {
				const first = firstAtoms(inner);
				atoms.push(...first.atoms);
				nullable ||= first.nullable;
			}
		}
		if (!nullable) return { atoms, nullable: false };
	}
	return { atoms, nullable: true };
}

/**
 * The pattern as the analysis sees it, from the regexpp AST (the ECMAScript regex parser ESLint
 * uses): atoms (characters, escapes, classes) and assertions by their source text, groups and
 * lookarounds with their alternatives, each with its quantifier. `pattern` already compiled
 * with `flags`, so it parses.
 */
function parsePattern(
	pattern: string,
	flags: string,
): { alternatives: RegexNode[][]; hasBackreference: boolean } {
	const ast = new RegExpParser({ ecmaVersion: 2024 }).parsePattern(pattern, 0, pattern.length, {
		unicode: flags.includes('u'),
	});
	const state = { hasBackreference: false };
	return {
		alternatives: ast.alternatives.map((alternative) => nodesOf(alternative.elements, state)),
		hasBackreference: state.hasBackreference,
	};
}

function nodesOf(elements: AST.Element[], state: { hasBackreference: boolean }): RegexNode[] {
	return elements.map((element) => nodeOf(element, state));
}

function nodeOf(element: AST.Element, state: { hasBackreference: boolean }): RegexNode {
	if (element.type === 'Quantifier') {
		const inner = nodeOf(element.element, state);
		const text = element.raw.slice(element.element.raw.length);
		return { ...inner, quantifier: { min: element.min, max: element.max, text } };
	}
	if (element.type === 'Group' || element.type === 'CapturingGroup') {
		return {
			kind: 'group',
			source: element.raw,
			alternatives: element.alternatives.map((a) => nodesOf(a.elements, state)),
		};
	}
	if (element.type === 'Assertion') {
		if (element.kind === 'lookahead' || element.kind === 'lookbehind') {
			return {
				kind: 'lookaround',
				source: element.raw,
				alternatives: element.alternatives.map((a) => nodesOf(a.elements, state)),
			};
		}
		return { kind: 'assertion', source: element.raw };
	}
	if (element.type === 'Backreference') state.hasBackreference = true;
	return { kind: 'atom', source: element.raw };
}
