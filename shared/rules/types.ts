/** The rule engine's public shapes (see index.ts for the rule reference). */

export type MatchType =
	| 'equals'
	| 'not_equals'
	| 'contains'
	| 'not_contains'
	| 'starts_with'
	| 'ends_with'
	| 'regex'
	| 'exists'
	| 'not_exists'
	| 'in_list'
	| 'not_in_list'
	| 'email_domain_in'
	| 'is_work_email'
	| 'greater_than'
	| 'less_than';

export const MATCH_TYPES: readonly MatchType[] = [
	'equals',
	'not_equals',
	'contains',
	'not_contains',
	'starts_with',
	'ends_with',
	'regex',
	'exists',
	'not_exists',
	'in_list',
	'not_in_list',
	'email_domain_in',
	'is_work_email',
	'greater_than',
	'less_than',
];

/** The match types that take no pattern (any pattern given is ignored). */
export const PATTERN_FREE_MATCH_TYPES: readonly MatchType[] = [
	'exists',
	'not_exists',
	'is_work_email',
];

/** The match types whose comparison case_sensitive changes (text and list comparisons). */
export const CASE_SENSITIVE_MATCH_TYPES: readonly MatchType[] = [
	'equals',
	'not_equals',
	'contains',
	'not_contains',
	'starts_with',
	'ends_with',
	'regex',
	'in_list',
	'not_in_list',
];

export interface RuleCondition {
	/** Dotted path into the record: `attributes.utm_source`, `source.page_url`, `value.amount`. */
	field: string;
	match_type: MatchType;
	/** The value to compare with; lists are comma- or newline-separated. */
	pattern?: string;
	/** Default false. */
	case_sensitive?: boolean;
}

export interface RuleSet {
	combinator: 'and' | 'or';
	conditions: RuleCondition[];
}

export interface ConditionResult {
	/** Position of the condition in `RuleSet.conditions` (0-based). */
	index: number;
	condition: RuleCondition;
	passed: boolean;
	/** One line: `source.page_url contains "/pricing": yes`. */
	reason: string;
	/**
	 * False when the record does not carry what the condition needs: on a capture-log entry, a
	 * field the log reduced or does not keep (shared/rules/redacted.ts). Counts as not passed.
	 */
	evaluable: boolean;
	/** Why the condition is not evaluable (set exactly when `evaluable` is false). */
	unanswerable?: string;
	/** True when the lead's rule budget ran out before this condition (it then fails). */
	overBudget?: boolean;
}

export interface RuleEvaluation {
	matched: boolean;
	results: ConditionResult[];
	/** One line: AND → the first failing condition; OR → the first passing one, or none. */
	reason: string;
	/**
	 * Set when the lead's rule budget ran out (budget.ts): which condition it reached, and that
	 * the rest were not evaluated. The lead is then matched only if the evaluated conditions
	 * decide so (an OR with a passing condition).
	 */
	overBudget?: string;
	/**
	 * Set when the outcome depends on a condition that is not evaluable (a capture-log entry):
	 * no evaluable condition decides it (AND: none failed; OR: none passed). Why, in one line.
	 */
	undetermined?: string;
}

export type SendMode =
	| 'automatic_completed'
	| 'automatic_partial'
	| 'automatic_match'
	| 'booking'
	| 'manual';

export const SEND_MODES: readonly SendMode[] = [
	'automatic_completed',
	'automatic_partial',
	'automatic_match',
	'booking',
	'manual',
];

export interface SendPolicy {
	mode: SendMode;
	rules?: RuleSet;
	/**
	 * automatic_match only. 'partial' (default): completed captures always pass, rules qualify
	 * partials. 'all': rules decide for every item.
	 */
	rulesApplyTo?: 'partial' | 'all';
	/** manual only: dotted path of the approval flag, default `attributes.approved`. */
	approvalField?: string;
}

export interface SendDecision {
	send: boolean;
	reason: string;
	/** Present when the rules were evaluated for this record. */
	evaluation?: RuleEvaluation;
	/**
	 * Capture-log entries only: the entry cannot tell what the live filter would decide (a field
	 * the decision needs was reduced or is not kept); why. `send` is then false.
	 */
	undetermined?: string;
}

export interface PreviewEntry {
	/** Capture-log stream id. */
	id: string;
	/** Epoch ms of the capture. */
	at: number;
	/** The redacted record as the capture log holds it. */
	record: object;
}

export interface PreviewExample {
	id: string;
	/** ISO-8601. */
	at: string;
	reason: string;
	record: object;
}

export interface PreviewConditionCount {
	index: number;
	field: string;
	match_type: MatchType;
	pattern?: string;
	passed: number;
	failed: number;
	not_evaluable: number;
	/** Why the condition could not be answered, with how many captures each (when any). */
	not_evaluable_reasons?: Record<string, number>;
	/** Captures whose rule budget ran out before this condition (counted in `failed` too). */
	over_budget: number;
}

export interface PreviewReport {
	window_days: number;
	/** M: captures in the window. */
	considered: number;
	/** N: captures the policy would have sent. */
	matched: number;
	/**
	 * Captures whose live decision the capture log cannot tell (a field it needs was reduced or is
	 * not kept): neither in `matched` nor counted as misses. 0 when the log answers for all.
	 */
	cannot_answer: number;
	/** Why, with how many captures each (the first undecidable condition's reason per capture). */
	cannot_answer_reasons: Record<string, number>;
	/** 'would have matched N of M capture-ready leads in the last 7 days'. */
	summary: string;
	/** How many of the considered captures the rules were evaluated for (the counts below). */
	rules_evaluated: number;
	conditions: PreviewConditionCount[];
	not_evaluable_note?: string;
	/** Set when the rule budget ran out on some captures: how many, and what to change. */
	over_budget_note?: string;
	/** Up to `examples` each, newest first. */
	examples: { matches: PreviewExample[]; misses: PreviewExample[]; cannot_answer: PreviewExample[] };
	/** True when the log held more entries in the window than were read. */
	truncated: boolean;
}

export interface PreviewOptions {
	/** Default 7. */
	windowDays?: number;
	/** Epoch ms; default Date.now(). */
	now?: number;
	/** Examples of each kind; default 3. */
	examples?: number;
	truncated?: boolean;
}
