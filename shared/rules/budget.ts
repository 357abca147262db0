/**
 * Rule budgets: what one lead may cost the rules, so that no rule set — however large, and on
 * whatever a public webhook sends — can stall the n8n process, and the preview over the capture
 * log's 100,000 entries stays under a second (bench/rules.js measures the worst accepted rule
 * set against that target).
 *
 * Two layers, one set of numbers (the table in docs/nodes/lead-rule-filter.md):
 *
 * 1. Static limits, checked by validateRuleSet (the node refuses to run and names the condition
 *    and the limit): how many conditions and regex conditions, pattern and list sizes, field
 *    path depth, and regex complexity (regex.ts: a pattern whose worst-case backtracking would
 *    not let it examine MIN_REGEX_INPUT characters within one lead's budget is refused).
 * 2. A work counter per lead, in units of about one character examined or one regex
 *    backtracking step (the worst case, estimated from the pattern's analysis, never timed):
 *    every condition costs CONDITION_UNITS, every value VALUE_UNITS plus the characters
 *    examined. Before a value is examined its cost is charged; when the lead's
 *    LEAD_BUDGET_UNITS would be exceeded, this and every later condition of the lead are not
 *    evaluated and fail, and the evaluation says so (`overBudget`). The count depends only on
 *    the rules and the record, so the preview and the live filter agree on every lead.
 */
export const MAX_CONDITIONS = 10;
export const MAX_REGEX_CONDITIONS = 5;
/** Text and list patterns (regex patterns: MAX_REGEX_PATTERN_LENGTH in regex.ts). */
export const MAX_PATTERN_LENGTH = 2_000;
export const MAX_LIST_ITEMS = 250;
export const MAX_FIELD_DEPTH = 10;
/** Values a condition examines when arrays in the record expand a field into many. */
export const MAX_VALUES_PER_CONDITION = 20;
/** Characters of each value examined (a longer value: its first ones; ends_with: its last). */
export const MAX_VALUE_CHARS = 2_000;
export const LEAD_BUDGET_UNITS = 3_000;
export const CONDITION_UNITS = 150;
export const VALUE_UNITS = 20;
/** A regex must be able to examine at least this many characters within one lead's budget. */
export const MIN_REGEX_INPUT = 50;

/** The work counter of one lead's evaluation. */
export class LeadBudget {
	private used = 0;
	/** The 0-based index of the condition at which the budget ran out; null while it lasts. */
	exhaustedAt: number | null = null;
	/**
	 * Capture-log entries only (redacted.ts): true once a condition read a field whose live cost
	 * the entry does not know, so the live lead may have run out of budget sooner.
	 */
	uncertain = false;

	constructor(readonly limit = LEAD_BUDGET_UNITS) {}

	/** Charges `units` for condition `index`; false (and exhausted) when they do not fit. */
	charge(units: number, index: number): boolean {
		if (this.exhaustedAt !== null) return false;
		if (this.used + units > this.limit) {
			this.exhaustedAt = index;
			return false;
		}
		this.used += units;
		return true;
	}

	get spent(): number {
		return this.used;
	}
}

const overBudgetDetails: string[] = [];

/** The reason detail of a condition the budget did not reach (built once per condition index). */
export function overBudgetDetail(budget: LeadBudget): string {
	const at = budget.exhaustedAt ?? 0;
	overBudgetDetails[at] ??=
		`not evaluated: this lead's rule budget of ${LEAD_BUDGET_UNITS} units ran out at condition ${at + 1}`;
	return overBudgetDetails[at];
}
