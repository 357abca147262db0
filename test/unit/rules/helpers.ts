import { evaluateRules, type ConditionResult, type MatchType } from '../../../shared/rules';

/** Evaluates one condition against a record and returns its result. */
export function checkCondition(
	record: object,
	field: string,
	matchType: MatchType,
	pattern?: string,
	caseSensitive?: boolean,
): ConditionResult {
	const condition = { field, match_type: matchType, pattern, case_sensitive: caseSensitive };
	return evaluateRules({ combinator: 'and', conditions: [condition] }, record).results[0];
}
