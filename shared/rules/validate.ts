import { MAX_CONDITIONS, MAX_REGEX_CONDITIONS } from './budget';
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
	const count = ruleSet.conditions.length;
	if (count > MAX_CONDITIONS) {
		problems.push(
			`${count} conditions: at most ${MAX_CONDITIONS} are allowed (rule budget); combine values into one In List or Regex condition`,
		);
		return problems;
	}
	const regexes = ruleSet.conditions.filter((c) => c?.match_type === 'regex').length;
	if (regexes > MAX_REGEX_CONDITIONS) {
		problems.push(
			`${regexes} regex conditions: at most ${MAX_REGEX_CONDITIONS} are allowed (rule budget); join patterns with | or use Contains / In List`,
		);
	}
	ruleSet.conditions.forEach((condition, index) => {
		const compiled = compileCondition(condition);
		if (compiled.problem === null) return;
		const what = `${compiled.field || '?'} ${String(compiled.matchType ?? '?')}`;
		problems.push(`condition ${index + 1} (${what}): ${compiled.problem}`);
	});
	return problems;
}
