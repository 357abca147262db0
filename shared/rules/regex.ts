/**
 * The regex match type, guarded. JavaScript regexes backtrack, and a rule runs on text from
 * public webhooks and browser captures, so a careless pattern on a hostile value could stall
 * the n8n process. Three layers keep that from happening:
 *
 * 1. Refused patterns (validateRuleSet and evaluation say why): longer than 500 characters;
 *    backreferences; nested quantifiers — a repeated group that itself holds an unbounded
 *    quantifier: (a+)+, (a*)*, (a+)*, (a{2,})+, ([a-z]+)*, (\w+\s?)*, (.*a){20} — the classic
 *    exponential family; and alternatives under an unbounded quantifier whose branches can
 *    start with the same character: (a|aa)+, (\w|\d)*.
 * 2. Input cap: only the first 10,000 characters of a value are tested (the reason says so).
 * 3. A time budget for what static checks cannot rule out: sequences like `.*a.*b` are
 *    polynomial (n³ for two such quantifiers), harmless on a URL but not on 10,000 characters.
 *    A pattern with k unbounded quantifiers runs directly on values up to 10⁷^(1/(k+1))
 *    characters (k=0: any; k=1: 3,162; k=2: 215), where even the worst case is a few
 *    milliseconds; longer values run in a node:vm context with a 50 ms timeout. Two-way choices
 *    (`a?`, alternatives that can start alike) double the work each, and repetition multiplies
 *    what a group holds: (a?){30}a{30} is exponential with no unbounded quantifier at all, and so
 *    is a group repeated without bound around any choice ((a?a?)+, (a{0,2})+). Such patterns
 *    run under the time budget on all but the shortest values. A value that
 *    times out fails the condition, and the pattern then fails at once for values at least that
 *    long, so a preview over many long values stays fast.
 */
import { createContext, Script } from 'node:vm';

export const MAX_REGEX_PATTERN_LENGTH = 500;
export const MAX_REGEX_INPUT_LENGTH = 10_000;
export const REGEX_TIMEOUT_MS = 50;
const DIRECT_STEP_BUDGET = 1e7;
const CACHE_LIMIT = 256;

export interface GuardedRegex {
	regex: RegExp | null;
	/** Why the pattern does not compile or is refused; null when usable. */
	problem: string | null;
	/** Values up to this length are tested directly; longer ones under the time budget. */
	directLimit: number;
	/** Length of the shortest value that exceeded the time budget (Infinity: none yet). */
	slowAt: number;
}

export interface RegexTestResult {
	matched: boolean;
	/** Set when the value was not tested whole (cap) or the test gave up (time budget). */
	note: string | null;
	/** True when the test gave up: the condition fails whatever the pattern. */
	gaveUp: boolean;
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
		directLimit: 0,
		slowAt: Infinity,
	});
	if (pattern.length > MAX_REGEX_PATTERN_LENGTH) {
		return refused(
			`pattern refused: longer than ${MAX_REGEX_PATTERN_LENGTH} characters (${pattern.length})`,
		);
	}
	let regex: RegExp;
	try {
		regex = new RegExp(pattern, flags);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return refused(`pattern does not compile: ${message}`);
	}
	const analysis = analyzePattern(pattern, flags);
	if (analysis.problem) return refused(`pattern refused: ${analysis.problem}`);
	return {
		regex,
		problem: null,
		directLimit: Math.floor(
			(DIRECT_STEP_BUDGET / 2 ** analysis.binaryChoices) ** (1 / (analysis.degree + 1)),
		),
		slowAt: Infinity,
	};
}

/** Tests the first MAX_REGEX_INPUT_LENGTH characters of an already normalized value. */
export function testRuleRegex(
	guarded: GuardedRegex,
	text: string,
	originalLength: number,
): RegexTestResult {
	const regex = guarded.regex;
	if (!regex) return { matched: false, note: guarded.problem, gaveUp: true };
	const input = capText(text);
	const capped =
		originalLength > input.length
			? `tested the first ${input.length} of ${originalLength} characters`
			: null;
	if (input.length <= guarded.directLimit) {
		return { matched: regex.test(input), note: capped, gaveUp: false };
	}
	if (input.length >= guarded.slowAt) {
		return {
			matched: false,
			note: `gave up: the pattern exceeded ${REGEX_TIMEOUT_MS} ms on values of ${guarded.slowAt}+ characters`,
			gaveUp: true,
		};
	}
	const matched = testWithTimeout(regex, input);
	if (matched === null) {
		guarded.slowAt = Math.min(guarded.slowAt, input.length);
		return {
			matched: false,
			note: `gave up: the pattern exceeded ${REGEX_TIMEOUT_MS} ms on this value (${input.length} characters)`,
			gaveUp: true,
		};
	}
	return { matched, note: capped, gaveUp: false };
}

/** The first MAX_REGEX_INPUT_LENGTH characters, without splitting a surrogate pair. */
export function capText(text: string): string {
	if (text.length <= MAX_REGEX_INPUT_LENGTH) return text;
	const end = MAX_REGEX_INPUT_LENGTH;
	const code = text.charCodeAt(end - 1);
	return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

let sandbox: { context: object; script: Script } | null = null;

/** regex.test(input) interrupted after REGEX_TIMEOUT_MS; null when it timed out. */
function testWithTimeout(regex: RegExp, input: string): boolean | null {
	sandbox ??= {
		context: createContext({ regex: null, input: '' }),
		script: new Script('regex.test(input)'),
	};
	const context = sandbox.context as { regex: RegExp | null; input: string };
	context.regex = regex;
	context.input = input;
	try {
		return sandbox.script.runInContext(sandbox.context, { timeout: REGEX_TIMEOUT_MS }) === true;
	} catch (error) {
		if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return null;
		throw error;
	} finally {
		context.regex = null;
		context.input = '';
	}
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
}

/** Why a (compilable) pattern is refused, and its backtracking degree. */
export function analyzePattern(pattern: string, flags: string): PatternAnalysis {
	const parser = new PatternParser(pattern);
	const tree = parser.parseDisjunction();
	if (parser.hasBackreference) {
		return { problem: 'backreferences are not allowed', degree: 0, binaryChoices: 0 };
	}
	const state: WalkState = { problem: null, flags };
	const top = walkAlternatives(tree, state);
	return { problem: state.problem, degree: top.degree, binaryChoices: top.binaryChoices };
}

interface WalkState {
	problem: string | null;
	flags: string;
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
		for (const child of alternative) {
			const inner = walk(child, state);
			cost.unbounded ||= inner.unbounded;
			cost.degree += inner.degree;
			cost.binaryChoices += inner.binaryChoices;
		}
	}
	if (alternatives.length > 1 && alternativesOverlap(alternatives, state.flags)) {
		cost.binaryChoices += Math.ceil(Math.log2(alternatives.length));
	}
	return cost;
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
	if (holdsChoice && quantifier.max === Infinity) cost.degree = Infinity;
	else if (holdsChoice && quantifier.max > 1) {
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
					if (PROBES.some((c) => ra.test(c) && rb.test(c))) return true;
				}
			}
		}
	}
	return false;
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

class PatternParser {
	private pos = 0;
	hasBackreference = false;

	constructor(private readonly source: string) {}

	parseDisjunction(): RegexNode[][] {
		const alternatives: RegexNode[][] = [this.parseAlternative()];
		while (this.source[this.pos] === '|') {
			this.pos += 1;
			alternatives.push(this.parseAlternative());
		}
		return alternatives;
	}

	private parseAlternative(): RegexNode[] {
		const nodes: RegexNode[] = [];
		while (this.pos < this.source.length) {
			const char = this.source[this.pos];
			if (char === '|' || char === ')') break;
			const node = this.parseTerm();
			node.quantifier = this.parseQuantifier();
			nodes.push(node);
		}
		return nodes;
	}

	private parseTerm(): RegexNode {
		const start = this.pos;
		const char = this.source[this.pos];
		if (char === '^' || char === '$') {
			this.pos += 1;
			return { kind: 'assertion', source: char };
		}
		if (char === '\\') return this.parseEscape();
		if (char === '[') {
			this.skipClass();
			return { kind: 'atom', source: this.source.slice(start, this.pos) };
		}
		if (char === '(') return this.parseGroup();
		this.pos += (this.source.codePointAt(this.pos) ?? 0) > 0xffff ? 2 : 1;
		return { kind: 'atom', source: this.source.slice(start, this.pos) };
	}

	private parseEscape(): RegexNode {
		const start = this.pos;
		const next = this.source[this.pos + 1] ?? '';
		this.pos += 2;
		if (next === 'b' || next === 'B') return { kind: 'assertion', source: `\\${next}` };
		if (/[1-9]/.test(next)) {
			this.hasBackreference = true;
			while (/\d/.test(this.source[this.pos] ?? '')) this.pos += 1;
		} else if (next === 'k' && this.source[this.pos] === '<') {
			this.hasBackreference = true;
			this.skipPast('>');
		} else if ((next === 'p' || next === 'P' || next === 'u') && this.source[this.pos] === '{') {
			this.skipPast('}');
		} else if (next === 'u') {
			this.pos += 4;
		} else if (next === 'x') {
			this.pos += 2;
		} else if (next === 'c') {
			this.pos += 1;
		}
		return { kind: 'atom', source: this.source.slice(start, this.pos) };
	}

	private parseGroup(): RegexNode {
		const start = this.pos;
		let kind: RegexNode['kind'] = 'group';
		const head = this.source.slice(this.pos, this.pos + 4);
		if (/^\(\?(?:=|!|<=|<!)/.test(head)) kind = 'lookaround';
		if (head.startsWith('(?<') && kind === 'group') this.skipPast('>');
		else if (head.startsWith('(?:')) this.pos += 3;
		else if (kind === 'lookaround') this.pos += head[2] === '<' ? 4 : 3;
		else this.pos += 1;
		const alternatives = this.parseDisjunction();
		this.pos += 1; // the closing parenthesis
		return { kind, source: this.source.slice(start, this.pos), alternatives };
	}

	private parseQuantifier(): Quantifier | undefined {
		const start = this.pos;
		const char = this.source[this.pos];
		let min: number;
		let max: number;
		if (char === '*' || char === '+' || char === '?') {
			this.pos += 1;
			min = char === '+' ? 1 : 0;
			max = char === '?' ? 1 : Infinity;
		} else if (char === '{') {
			const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.pos));
			if (!braces) return undefined;
			this.pos += braces[0].length;
			min = Number(braces[1]);
			max = braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3]);
		} else {
			return undefined;
		}
		if (this.source[this.pos] === '?') this.pos += 1; // lazy: same backtracking, other order
		return { min, max, text: this.source.slice(start, this.pos) };
	}

	private skipClass(): void {
		this.pos += 1;
		while (this.pos < this.source.length) {
			const char = this.source[this.pos];
			if (char === '\\') this.pos += 2;
			else if (char === ']') {
				this.pos += 1;
				return;
			} else this.pos += 1;
		}
	}

	private skipPast(char: string): void {
		const end = this.source.indexOf(char, this.pos);
		this.pos = end === -1 ? this.source.length : end + 1;
	}
}
