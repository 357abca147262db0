/** One condition: compiled once per rule set, then evaluated against any number of records. */
import {
	domainInList,
	emailOrBareDomain,
	isFreeMailDomain,
	normalizeDomainItem,
} from '../identity/email-domains';
import { parseBound, parseRuleDate, parseRuleNumber, type Bound } from './numbers';
import {
	CONDITION_UNITS,
	LeadBudget,
	MAX_FIELD_DEPTH,
	MAX_LIST_ITEMS,
	MAX_PATTERN_LENGTH,
	MAX_VALUE_CHARS,
	MAX_VALUES_PER_CONDITION,
	overBudgetDetail,
	VALUE_UNITS,
} from './budget';
import { isValidPath, readBounded, splitPath } from '../path';
import { compileRuleRegex, testRuleRegex, type GuardedRegex } from './regex';
import { comparableText, parseList, quote, quoteList, textHead, textOf } from './text';
import { DAYS_SINCE_LEAD_CREATED, daysSinceLeadCreated } from './stage';
import { emailDomainsExact, isRedactedRecord, loggedField, reducedShape } from './redacted';
import {
	CASE_SENSITIVE_MATCH_TYPES,
	MATCH_TYPES,
	PATTERN_FREE_MATCH_TYPES,
	type ConditionResult,
	type MatchType,
	type RuleCondition,
} from './types';

/** Contact fields whose values reasons never quote (they may be personal). */
const PII_FIELDS: ReadonlySet<string> = new Set([
	'contact.email',
	'contact.phone',
	'contact.first_name',
	'contact.last_name',
	'contact.name',
]);

const KNOWN_MATCH_TYPES: ReadonlySet<string> = new Set(MATCH_TYPES);
const PATTERN_FREE: ReadonlySet<MatchType> = new Set(PATTERN_FREE_MATCH_TYPES);
const LIST_TYPES: ReadonlySet<MatchType> = new Set(['in_list', 'not_in_list', 'email_domain_in']);
const EMAIL_DOMAIN_TYPES: ReadonlySet<MatchType> = new Set(['email_domain_in', 'is_work_email']);
/** The types that pass when the field is missing. */
const PASS_WHEN_MISSING: ReadonlySet<MatchType> = new Set([
	'not_exists',
	'not_equals',
	'not_contains',
	'not_in_list',
]);
const CASE_SENSITIVE_TYPES: ReadonlySet<MatchType> = new Set(CASE_SENSITIVE_MATCH_TYPES);

export interface CompiledCondition {
	condition: RuleCondition;
	field: string;
	parts: string[];
	matchType: MatchType;
	caseSensitive: boolean;
	/** `source.page_url contains "/pricing"`: the start of every reason. */
	label: string;
	/** Why the condition cannot run (it then fails every record); null when it can. */
	problem: string | null;
	/** The comparable pattern text (text types). */
	text: string;
	/** Comparable list items (in_list, not_in_list) or domains (email_domain_in). */
	items: string[];
	itemSet: ReadonlySet<string>;
	bound: Bound | null;
	regex: GuardedRegex | null;
	rawPattern: string;
	/** Results of this condition when a lead's budget ran out, by reason detail (shared). */
	overBudgetResults: Map<string, ConditionResult>;
}

const compiledByCondition = new WeakMap<object, CompiledCondition>();

/**
 * The compiled form of a condition, cached on the condition object so the preview compiles a
 * rule once for 100,000 records. A condition edited in place is recompiled.
 */
export function compileCondition(condition: RuleCondition): CompiledCondition {
	if (typeof condition !== 'object' || condition === null) {
		return compileUncached(condition);
	}
	const cached = compiledByCondition.get(condition);
	if (
		cached &&
		cached.condition.field === condition.field &&
		cached.condition.match_type === condition.match_type &&
		cached.condition.pattern === condition.pattern &&
		cached.condition.case_sensitive === condition.case_sensitive
	) {
		return cached;
	}
	const compiled = compileUncached(condition);
	compiledByCondition.set(condition, compiled);
	return compiled;
}

function compileUncached(condition: RuleCondition): CompiledCondition {
	const valid = typeof condition === 'object' && condition !== null;
	const snapshot: RuleCondition = valid ? { ...condition } : ({} as RuleCondition);
	const field = typeof snapshot.field === 'string' ? snapshot.field.trim() : '';
	const matchType = snapshot.match_type;
	const caseSensitive = snapshot.case_sensitive === true;
	const rawPattern = (
		snapshot.pattern === undefined ? '' : (textOf(snapshot.pattern) ?? '')
	).trim();
	const compiled: CompiledCondition = {
		condition: snapshot,
		field,
		parts: splitPath(field),
		matchType,
		caseSensitive,
		label: '',
		problem: null,
		text: '',
		items: [],
		itemSet: new Set(),
		bound: null,
		regex: null,
		rawPattern,
		overBudgetResults: new Map(),
	};
	const known = KNOWN_MATCH_TYPES.has(matchType);
	compiled.label = `${field || '(no field)'} ${known ? describeMatch(compiled) : String(matchType)}`;
	if (!valid) return withProblem(compiled, 'condition is not an object');
	if (field === '') return withProblem(compiled, 'field is empty');
	if (!isValidPath(field))
		return withProblem(compiled, `field ${quote(field)} is not a dotted path`);
	if (compiled.parts.length > MAX_FIELD_DEPTH) {
		return withProblem(
			compiled,
			`field has ${compiled.parts.length} parts; at most ${MAX_FIELD_DEPTH} are allowed`,
		);
	}
	if (!known) return withProblem(compiled, `unknown match type ${quote(String(matchType))}`);
	if (PATTERN_FREE.has(matchType)) return compiled;
	if (rawPattern === '') return withProblem(compiled, 'pattern is required');
	if (matchType !== 'regex' && rawPattern.length > MAX_PATTERN_LENGTH) {
		return withProblem(
			compiled,
			`pattern is ${rawPattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed`,
		);
	}
	switch (matchType) {
		case 'regex':
			compiled.regex = compileRuleRegex(rawPattern, caseSensitive);
			return compiled.regex.problem ? withProblem(compiled, compiled.regex.problem) : compiled;
		case 'greater_than':
		case 'less_than':
			compiled.bound = parseBound(rawPattern);
			return compiled.bound
				? compiled
				: withProblem(compiled, `pattern ${quote(rawPattern)} is not a number or an ISO date`);
		case 'email_domain_in': {
			compiled.items = parseList(rawPattern).map(normalizeDomainItem);
			const bad = compiled.items.find((item) => item === '' || /[\s/:@]/.test(item));
			if (bad !== undefined) return withProblem(compiled, `${quote(bad)} is not a domain`);
			break;
		}
		case 'in_list':
		case 'not_in_list':
			compiled.items = parseList(rawPattern).map((item) => comparableText(item, caseSensitive));
			compiled.itemSet = new Set(compiled.items);
			break;
		default:
			compiled.text = comparableText(rawPattern, caseSensitive);
	}
	if (LIST_TYPES.has(matchType) && compiled.items.length === 0) {
		return withProblem(compiled, 'pattern has no list items');
	}
	if (compiled.items.length > MAX_LIST_ITEMS) {
		return withProblem(
			compiled,
			`pattern has ${compiled.items.length} list items; at most ${MAX_LIST_ITEMS} are allowed`,
		);
	}
	return compiled;
}

function withProblem(compiled: CompiledCondition, problem: string): CompiledCondition {
	compiled.problem = problem;
	return compiled;
}

function describeMatch(compiled: CompiledCondition): string {
	const pattern = compiled.rawPattern;
	const list = () => quoteList(parseList(pattern));
	const caseNote =
		compiled.caseSensitive && CASE_SENSITIVE_TYPES.has(compiled.matchType)
			? ' (case-sensitive)'
			: '';
	const phrase: Record<MatchType, () => string> = {
		equals: () => `equals ${quote(pattern)}`,
		not_equals: () => `does not equal ${quote(pattern)}`,
		contains: () => `contains ${quote(pattern)}`,
		not_contains: () => `does not contain ${quote(pattern)}`,
		starts_with: () => `starts with ${quote(pattern)}`,
		ends_with: () => `ends with ${quote(pattern)}`,
		regex: () => `matches regex /${pattern.length > 60 ? `${pattern.slice(0, 59)}…` : pattern}/`,
		exists: () => 'exists',
		not_exists: () => 'does not exist',
		in_list: () => `is in list ${list()}`,
		not_in_list: () => `is not in list ${list()}`,
		email_domain_in: () => `has an email domain in ${list()}`,
		is_work_email: () => 'is a work email',
		greater_than: () => `is greater than ${pattern}`,
		less_than: () => `is less than ${pattern}`,
	};
	return phrase[compiled.matchType]() + caseNote;
}

interface Outcome {
	passed: boolean;
	detail: string | null;
}

/** The values a condition looks at, as read, with their text (cut to MAX_VALUE_CHARS). */
interface Values {
	values: unknown[];
	/** Text of each value: the first MAX_VALUE_CHARS characters (ends_with: the last). */
	texts: string[];
	/** Set when values or characters were left out: `examined the first 20 values`. */
	cutNote: string | null;
	/** Length of each value's whole text. */
	lengths: number[];
	/** Units the condition costs on these values (budget.ts). */
	units: number;
}

/** Longest text read as an email address (RFC 5321 paths are at most 256 octets). */
const MAX_EMAIL_CHARS = 320;
/** Longest text read as a number or a date. */
const MAX_BOUND_CHARS = 100;
/** Units per character of reading an address or a number (measured: a few regex steps each). */
const PARSE_UNITS_PER_CHAR = 8;

/**
 * Evaluates a compiled condition against a record, charging its work to the lead's budget
 * (budget.ts). A condition the budget cannot pay for is not evaluated and fails.
 */
export function evaluateCompiled(
	compiled: CompiledCondition,
	record: object,
	index: number,
	budget: LeadBudget = new LeadBudget(),
): ConditionResult {
	if (budget.exhaustedAt !== null) return overBudgetResult(compiled, index, budget);
	if (compiled.problem) {
		budget.charge(CONDITION_UNITS, index);
		return conditionResult(compiled, index, false, compiled.problem);
	}
	let read: ReadValues;
	const redacted = isRedactedRecord(record);
	if (redacted) {
		const logged = readLogged(compiled, record);
		if ('unknown' in logged) {
			// What this costs live is unknown: charge the least it can cost (so the entry never runs
			// out of budget before the live record would), and say that later passes are uncertain.
			budget.uncertain = true;
			return budget.charge(CONDITION_UNITS + 1, index)
				? conditionResult(compiled, index, false, logged.unknown, false)
				: overBudgetResult(compiled, index, budget);
		}
		if ('units' in logged) {
			if (!budget.charge(logged.units, index)) return overBudgetResult(compiled, index, budget);
			return logged.passed && budget.uncertain
				? conditionResult(compiled, index, false, UNCERTAIN_PASS, false)
				: conditionResult(compiled, index, logged.passed, logged.detail, logged.evaluable);
		}
		read = logged.read;
	} else {
		read = readConditionValues(compiled, record);
	}
	const values = examinedValues(compiled, read);
	if (!budget.charge(values.units, index)) return overBudgetResult(compiled, index, budget);
	let passed: boolean;
	let detail: string | null;
	if (values.values.length === 0) {
		passed = PASS_WHEN_MISSING.has(compiled.matchType);
		detail = 'field is missing';
	} else {
		const outcome = match(compiled, values, PII_FIELDS.has(compiled.field));
		passed = outcome.passed;
		detail =
			outcome.detail && values.cutNote
				? `${outcome.detail}; ${values.cutNote}`
				: outcome.detail || values.cutNote || null;
	}
	// On a capture-log entry, after a condition whose live cost is unknown, a pass is uncertain:
	// the live lead's budget may have run out before this condition (a failure stands either way).
	return passed && redacted && budget.uncertain
		? conditionResult(compiled, index, false, UNCERTAIN_PASS, false)
		: conditionResult(compiled, index, passed, detail);
}

/** One condition's result: `label: yes|no|not evaluable (detail)`. */
function conditionResult(
	compiled: CompiledCondition,
	index: number,
	passed: boolean,
	detail: string | null,
	evaluable = true,
): ConditionResult {
	const answer = evaluable ? (passed ? 'yes' : 'no') : 'not evaluable';
	const out: ConditionResult = {
		index,
		condition: compiled.condition,
		passed,
		reason: detail ? `${compiled.label}: ${answer} (${detail})` : `${compiled.label}: ${answer}`,
		evaluable,
	};
	if (!evaluable) out.unanswerable = detail ?? 'not evaluable';
	return out;
}

/** The result of a condition the lead's budget did not reach: the same few objects for every lead. */
function overBudgetResult(
	compiled: CompiledCondition,
	index: number,
	budget: LeadBudget,
): ConditionResult {
	const detail = overBudgetDetail(budget);
	const cached = compiled.overBudgetResults.get(detail);
	if (cached && cached.index === index) return cached;
	const fresh: ConditionResult = {
		...conditionResult(compiled, index, false, detail),
		overBudget: true,
	};
	compiled.overBudgetResults.set(detail, fresh);
	return fresh;
}

/** Why a pass on a capture-log entry is uncertain after a condition whose live cost is unknown. */
const UNCERTAIN_PASS =
	"an earlier condition reads a field the capture log does not keep, so the log cannot tell whether this lead's rule budget ran out before this condition live";

/** Characters of one value a condition examines at most. */
function perValueCapOf(compiled: CompiledCondition): number {
	const type = compiled.matchType;
	return type === 'regex'
		? (compiled.regex as GuardedRegex).inputLimit
		: EMAIL_DOMAIN_TYPES.has(type)
			? MAX_EMAIL_CHARS
			: type === 'greater_than' || type === 'less_than'
				? MAX_BOUND_CHARS
				: MAX_VALUE_CHARS;
}

/**
 * What examining one value of `length` characters costs. A regex's cost counts reading the
 * value too (cost(n) ≥ n); parsing an address or a number costs a few steps per character.
 */
function valueUnits(compiled: CompiledCondition, perValueCap: number, length: number): number {
	const examined = Math.min(length, perValueCap);
	const reading =
		compiled.matchType === 'regex'
			? (compiled.regex as GuardedRegex).cost(examined)
			: perValueCap === MAX_VALUE_CHARS
				? examined
				: examined * PARSE_UNITS_PER_CHAR;
	return (
		VALUE_UNITS + reading + (compiled.matchType === 'email_domain_in' ? compiled.items.length : 0)
	);
}

/** What a condition costs on values of these lengths, read in `visits` nodes (as examinedValues). */
function conditionUnits(
	compiled: CompiledCondition,
	visits: number,
	lengths: readonly number[],
): number {
	const cap = perValueCapOf(compiled);
	return lengths.reduce(
		(units, length) => units + valueUnits(compiled, cap, length),
		CONDITION_UNITS + visits,
	);
}

/** The values' texts, cut to what is examined, and what examining them costs. */
function examinedValues(compiled: CompiledCondition, read: ReadValues): Values {
	const type = compiled.matchType;
	const perValueCap = perValueCapOf(compiled);
	let units = CONDITION_UNITS + read.visits;
	let longest = 0;
	let more = false;
	const lengths: number[] = [];
	const texts = read.values.map((value) => {
		// ends_with needs the end of a string; an object's JSON is read from its start only.
		const whole = type === 'ends_with' && typeof value === 'string';
		const head = whole
			? { text: value, length: value.length }
			: textHead(value, MAX_VALUE_CHARS + 64);
		const text = head.text ?? '';
		more ||= head.more === true;
		lengths.push(head.length);
		longest = Math.max(longest, head.length);
		units += valueUnits(compiled, perValueCap, head.length);
		if (text.length <= MAX_VALUE_CHARS) return text;
		return type === 'ends_with' ? text.slice(-MAX_VALUE_CHARS) : text.slice(0, MAX_VALUE_CHARS);
	});
	const notes: string[] = [];
	if (read.cut) notes.push(`examined the first ${read.values.length} values of the field`);
	if (longest > MAX_VALUE_CHARS && type !== 'regex' && perValueCap === MAX_VALUE_CHARS) {
		notes.push(
			`examined the ${type === 'ends_with' ? 'last' : 'first'} ${MAX_VALUE_CHARS} of ${longest}${more ? '+' : ''} characters`,
		);
	}
	return { values: read.values, texts, lengths, cutNote: notes.join('; ') || null, units };
}

interface ReadValues {
	values: unknown[];
	visits: number;
	cut: boolean;
}

/**
 * The values a condition looks at on a live record (at most MAX_VALUES_PER_CONDITION).
 * Email-domain types on contact.email fall back to contact.email_domain when the record has no
 * contact.email.
 */
function readConditionValues(compiled: CompiledCondition, record: object): ReadValues {
	const read = (parts: readonly string[]) => readBounded(record, parts, MAX_VALUES_PER_CONDITION);
	if (compiled.field === DAYS_SINCE_LEAD_CREATED)
		return { values: daysSinceLeadCreated(record), visits: 1, cut: false };
	if (EMAIL_DOMAIN_TYPES.has(compiled.matchType) && compiled.field === 'contact.email') {
		const direct = read(compiled.parts);
		if (direct.values.length > 0) return direct;
		const fallback = read(['contact', 'email_domain']);
		return {
			...fallback,
			values: fallback.values.filter((v) => typeof v === 'string'),
			visits: fallback.visits + direct.visits,
		};
	}
	return read(compiled.parts);
}

/** A condition answered from what a capture-log entry says of the live record. */
type Logged =
	/** The entry holds the live values: examine these. */
	| { read: ReadValues }
	/** The answer (or that there is none: evaluable false) and its exact live cost. */
	| { units: number; passed: boolean; detail: string | null; evaluable: boolean }
	/** No answer, and the live cost is unknown. */
	| { unknown: string };

/** Fields the live filter may fill from the stage ledger when the record has none. */
const LEDGER_FIELDS: ReadonlySet<string> = new Set(['previous_stage', 'lead_created_at']);
const LEDGER_REASON =
	'the lead has no value here, and the live filter may take it from the stage ledger, which the preview does not read';

/**
 * The live answer of a condition on a capture-log entry, from what the entry keeps (redacted.ts):
 * the entry's own values where it holds them exactly; where it keeps only the shape, the answer of
 * a missing field, of exists / not_exists, and of the email-domain types from the kept domains;
 * otherwise not evaluable — always with the live cost, or saying it is unknown.
 */
function readLogged(compiled: CompiledCondition, record: object): Logged {
	const read = (parts: readonly string[]) => readBounded(record, parts, MAX_VALUES_PER_CONDITION);
	if (compiled.field === DAYS_SINCE_LEAD_CREATED) {
		const created = loggedField(record, 'lead_created_at');
		if (created.kind === 'exact' && read(['lead_created_at']).values.length === 0)
			return { unknown: LEDGER_REASON };
		for (const path of ['lead_created_at', 'stage_at', 'occurred_at']) {
			const field = loggedField(record, path);
			if (field.kind === 'unknown') return { unknown: field.reason };
			if (field.kind === 'shape') {
				return {
					unknown:
						path === 'lead_created_at' && field.lengths.length === 0
							? LEDGER_REASON
							: `${path}: ${field.reason}`,
				};
			}
		}
		return { read: readConditionValues(compiled, record) };
	}
	const field = loggedField(record, compiled.parts.join('.'));
	if (field.kind === 'unknown') return { unknown: field.reason };
	if (LEDGER_FIELDS.has(compiled.field)) {
		const missingLive =
			field.kind === 'shape'
				? field.lengths.length === 0
				: read(compiled.parts).values.length === 0;
		if (missingLive) return { unknown: LEDGER_REASON };
	}
	if (EMAIL_DOMAIN_TYPES.has(compiled.matchType) && compiled.field === 'contact.email') {
		return readLoggedEmailDomain(
			compiled,
			record,
			field.kind === 'shape' ? field : { ...read(compiled.parts), lengths: [] },
		);
	}
	if (field.kind === 'exact') return { read: read(compiled.parts) };
	const units = conditionUnits(compiled, field.visits, field.lengths);
	if (field.lengths.length === 0) {
		return {
			units,
			passed: PASS_WHEN_MISSING.has(compiled.matchType),
			detail: 'field is missing',
			evaluable: true,
		};
	}
	if (compiled.matchType === 'exists')
		return { units, passed: true, detail: null, evaluable: true };
	if (compiled.matchType === 'not_exists')
		return { units, passed: false, detail: 'it has a value', evaluable: true };
	return { units, passed: false, detail: field.reason, evaluable: false };
}

/**
 * email_domain_in / is_work_email on contact.email, on an entry: live they read the address
 * (the entry keeps its domains, `contact.email_domain`), or, with no address, the record's own
 * contact.email_domain.
 */
function readLoggedEmailDomain(
	compiled: CompiledCondition,
	record: object,
	direct: { visits: number; lengths: number[] },
): Logged {
	const kept = readBounded(record, ['contact', 'email_domain'], MAX_VALUES_PER_CONDITION);
	if (direct.lengths.length > 0) {
		const units = conditionUnits(compiled, direct.visits, direct.lengths);
		if (!emailDomainsExact(record)) {
			return {
				units,
				passed: false,
				detail: "the capture log keeps only some of this lead's email domains",
				evaluable: false,
			};
		}
		const domains = kept.values.filter((v): v is string => typeof v === 'string');
		const outcome = matchEmailDomain(compiled, {
			values: domains,
			texts: domains,
			lengths: domains.map((d) => d.length),
			cutNote: null,
			units,
		});
		return { units, ...outcome, evaluable: true };
	}
	// No address live: the live rule reads the record's own contact.email_domain (strings only).
	const own = reducedShape(record, 'contact.email_domain');
	if (own === 'malformed' || (own !== null && own.lengths.length > 0)) {
		return {
			unknown:
				'the lead has no email address but a contact.email_domain of its own, which the capture log does not keep',
		};
	}
	const visits = direct.visits + (own === null ? kept.visits : own.visits);
	return {
		units: CONDITION_UNITS + visits,
		passed: false,
		detail: 'field is missing',
		evaluable: true,
	};
}

function match(compiled: CompiledCondition, read: Values, pii: boolean): Outcome {
	const { values } = read;
	const texts = () => read.texts.map((text) => comparableText(text, compiled.caseSensitive));
	const shown = (value: unknown) => (pii ? null : describeValue(value));
	// `hit` is the index of the first value that matches, -1 for none.
	const positive = (hit: number, negated: boolean): Outcome => {
		if (hit === -1) {
			return negated
				? { passed: true, detail: null }
				: { passed: false, detail: pii ? null : describeValues(values) };
		}
		return negated ? { passed: false, detail: shown(values[hit]) } : { passed: true, detail: null };
	};
	const pattern = compiled.text;
	switch (compiled.matchType) {
		case 'equals':
		case 'not_equals':
			return positive(
				texts().findIndex((t) => t === pattern),
				compiled.matchType === 'not_equals',
			);
		case 'contains':
		case 'not_contains':
			return positive(
				texts().findIndex((t) => t.includes(pattern)),
				compiled.matchType === 'not_contains',
			);
		case 'starts_with':
			return positive(
				texts().findIndex((t) => t.startsWith(pattern)),
				false,
			);
		case 'ends_with':
			return positive(
				texts().findIndex((t) => t.endsWith(pattern)),
				false,
			);
		case 'in_list':
		case 'not_in_list':
			return positive(
				texts().findIndex((t) => compiled.itemSet.has(t)),
				compiled.matchType === 'not_in_list',
			);
		case 'exists':
			return { passed: true, detail: null };
		case 'not_exists':
			return { passed: false, detail: pii ? 'it has a value' : describeValue(values[0]) };
		case 'regex':
			return matchRegex(compiled, read, pii);
		case 'email_domain_in':
		case 'is_work_email':
			return matchEmailDomain(compiled, read);
		case 'greater_than':
		case 'less_than':
			return matchBound(compiled, read, pii);
	}
}

function matchRegex(compiled: CompiledCondition, read: Values, pii: boolean): Outcome {
	const guarded = compiled.regex as GuardedRegex;
	let note: string | null = null;
	for (const [i, raw] of read.texts.entries()) {
		// Normalize only a little more than what is tested: a 1 MB value costs no more than 10 KB.
		const head = raw.length > guarded.inputLimit + 64 ? raw.slice(0, guarded.inputLimit + 64) : raw;
		const tested = testRuleRegex(guarded, comparableText(head, true), read.lengths[i]);
		note ??= tested.note;
		if (tested.matched) return { passed: true, detail: tested.note };
	}
	return { passed: false, detail: note ?? (pii ? null : describeValues(read.values)) };
}

function matchEmailDomain(compiled: CompiledCondition, read: Values): Outcome {
	const domains = read.values
		.map((value, i) => (read.texts[i].length > MAX_EMAIL_CHARS ? null : emailOrBareDomain(value)))
		.filter((d): d is string => d !== null);
	if (domains.length === 0) return { passed: false, detail: 'not an email address' };
	if (compiled.matchType === 'email_domain_in') {
		return domains.some((d) => domainInList(d, compiled.items))
			? { passed: true, detail: null }
			: { passed: false, detail: `domain is ${domains[0]}` };
	}
	return domains.some((d) => !isFreeMailDomain(d))
		? { passed: true, detail: null }
		: { passed: false, detail: `${domains[0]} is a free-mail domain` };
}

function matchBound(compiled: CompiledCondition, read: Values, pii: boolean): Outcome {
	const { values } = read;
	const bound = compiled.bound as Bound;
	const parse = bound.kind === 'number' ? parseRuleNumber : parseRuleDate;
	const greater = compiled.matchType === 'greater_than';
	const parsed = values.map((value, i) =>
		read.texts[i].length > MAX_BOUND_CHARS ? null : parse(value),
	);
	if (parsed.some((n) => n !== null && (greater ? n > bound.value : n < bound.value))) {
		return { passed: true, detail: null };
	}
	if (parsed.every((n) => n === null)) {
		const what = bound.kind === 'number' ? 'a number' : 'an ISO date';
		return {
			passed: false,
			detail: pii ? `not ${what}` : `${describeValue(values[0], true)} is not ${what}`,
		};
	}
	return { passed: false, detail: pii ? null : describeValues(values) };
}

/** `value is "google"`, or just `"google"`. */
function describeValue(value: unknown, bare = false): string {
	const text = textHead(value, 200).text ?? '';
	const shown = typeof value === 'number' || typeof value === 'boolean' ? text : quote(text);
	return bare ? shown : `value is ${shown}`;
}

/** `value is "a"` or `values are "a", "b", "c" (+2 more)`. */
function describeValues(values: unknown[]): string {
	if (values.length === 1) return describeValue(values[0]);
	const shown = values
		.slice(0, 3)
		.map((v) => describeValue(v, true))
		.join(', ');
	return `values are ${shown}${values.length > 3 ? ` (+${values.length - 3} more)` : ''}`;
}
