import { LeadBudget, overBudgetDetail } from './budget';
import { compileCondition, evaluateCompiled } from './conditions';
import type { ConditionResult, RuleEvaluation, RuleSet } from './types';

/** 'or' when the combinator says so (any case); anything else is the stricter 'and'. */
export function combinatorOf(ruleSet: RuleSet): 'and' | 'or' {
	const combinator = (ruleSet as { combinator?: unknown } | null)?.combinator;
	return typeof combinator === 'string' && combinator.trim().toLowerCase() === 'or' ? 'or' : 'and';
}

/**
 * Evaluates every condition of a rule set against a record (all of them, not just up to the
 * first decisive one, so the reasons and the preview's per-condition counts are complete),
 * within one lead's rule budget (budget.ts): when it runs out, the remaining conditions fail
 * unevaluated and `overBudget` says where.
 */
export function evaluateRules(ruleSet: RuleSet, record: object): RuleEvaluation {
	const conditions = Array.isArray(ruleSet?.conditions) ? ruleSet.conditions : [];
	const target = typeof record === 'object' && record !== null ? record : {};
	const budget = new LeadBudget();
	const results: ConditionResult[] = new Array(conditions.length);
	for (let index = 0; index < conditions.length; index++) {
		results[index] = evaluateCompiled(compileCondition(conditions[index]), target, index, budget);
	}
	const combinator = combinatorOf(ruleSet);
	const combined = combinator === 'or' ? combineOr(results) : combineAnd(results);
	const evaluation = withUndetermined(combined, combinator);
	if (budget.exhaustedAt === null) return evaluation;
	const overBudget = overBudgetSummary(budget, results.length);
	if (!evaluation.matched && !evaluation.reason.includes('rule budget'))
		evaluation.reason = `${evaluation.reason} (${overBudget})`;
	evaluation.overBudget = overBudget;
	return evaluation;
}

const overBudgetSummaries = new Map<string, string>();

/** Where the budget ran out and what was left unevaluated (the same few texts for every lead). */
function overBudgetSummary(budget: LeadBudget, conditions: number): string {
	const key = `${budget.exhaustedAt}/${conditions}`;
	let text = overBudgetSummaries.get(key);
	if (text === undefined) {
		text = `${overBudgetDetail(budget)}; conditions ${(budget.exhaustedAt ?? 0) + 1} to ${conditions} were not evaluated`;
		if (overBudgetSummaries.size < 1_000) overBudgetSummaries.set(key, text);
	}
	return text;
}

/**
 * Marks an outcome no evaluable condition decides (AND: none failed; OR: none passed) while some
 * condition was not evaluable (only on capture-log entries): the entry cannot tell the live
 * answer. The matched flag stays as combined (not evaluable counts as not passed).
 */
function withUndetermined(evaluation: RuleEvaluation, combinator: 'and' | 'or'): RuleEvaluation {
	const open = evaluation.results.find((r) => !r.evaluable);
	if (!open) return evaluation;
	const decided =
		combinator === 'or'
			? evaluation.results.some((r) => r.evaluable && r.passed)
			: evaluation.results.some((r) => r.evaluable && !r.passed);
	if (!decided) {
		evaluation.undetermined = `condition ${open.index + 1} (${open.condition?.field}): ${open.unanswerable ?? 'not evaluable'}`;
	}
	return evaluation;
}

function combineAnd(results: ConditionResult[]): RuleEvaluation {
	const n = results.length;
	if (n === 0)
		return { matched: true, results, reason: 'no conditions: an empty AND matches every lead' };
	const failed = results.find((r) => !r.passed);
	if (failed) {
		return {
			matched: false,
			results,
			reason: `condition ${failed.index + 1} of ${n} failed: ${failed.reason}`,
		};
	}
	const reason =
		n === 1 ? `condition 1 of 1 matched: ${results[0].reason}` : `all ${n} conditions matched`;
	return { matched: true, results, reason };
}

function combineOr(results: ConditionResult[]): RuleEvaluation {
	const n = results.length;
	if (n === 0)
		return { matched: false, results, reason: 'no conditions: an empty OR matches no lead' };
	const passed = results.find((r) => r.passed);
	if (passed) {
		return {
			matched: true,
			results,
			reason: `condition ${passed.index + 1} of ${n} matched: ${passed.reason}`,
		};
	}
	const reason =
		n === 1
			? `condition 1 of 1 failed: ${results[0].reason}`
			: `none of the ${n} conditions matched`;
	return { matched: false, results, reason };
}
