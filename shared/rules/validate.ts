import { compileCondition } from './conditions';
import type { RuleSet } from './types';

/**
 * Problems that keep a rule set from running as meant (empty = valid), one line each:
 * `condition 2 (source.page_url regex): pattern does not compile: …`. A condition with a
 * problem fails every record at evaluation, so a filter should refuse to run with any.
 */
export function validateRuleSet(ruleSet: RuleSet): string[] {
	if (typeof ruleSet !== 'object' || ruleSet === null) return ['rules are missing'];
	const problems: string[] = [];
	const combinator: unknown = ruleSet.combinator;
	if (combinator !== undefined && combinator !== 'and' && combinator !== 'or') {
		problems.push(`combinator must be "and" or "or", not ${JSON.stringify(combinator)}`);
	}
	if (!Array.isArray(ruleSet.conditions)) {
		problems.push('conditions must be a list');
		return problems;
	}
	ruleSet.conditions.forEach((condition, index) => {
		const compiled = compileCondition(condition);
		if (compiled.problem === null) return;
		const what = `${compiled.field || '?'} ${String(compiled.matchType ?? '?')}`;
		problems.push(`condition ${index + 1} (${what}): ${compiled.problem}`);
	});
	return problems;
}
