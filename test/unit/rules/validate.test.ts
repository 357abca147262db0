import {
	validateRuleSet,
	validateSendPolicy,
	type RuleCondition,
	type RuleSet,
} from '../../../shared/rules';

const one = (condition: Partial<RuleCondition> | null): RuleSet => ({
	combinator: 'and',
	conditions: [condition as RuleCondition],
});

describe('validateRuleSet: one line per problem, empty when valid', () => {
	test.each<[Partial<RuleCondition> | null, string[]]>([
		[{ field: 'source.page_url', match_type: 'contains', pattern: '/pricing' }, []],
		[{ field: 'contact.email', match_type: 'is_work_email' }, []],
		[{ field: 'attributes.x', match_type: 'exists', pattern: '' }, []],
		[{ field: 'value.amount', match_type: 'greater_than', pattern: '1,000' }, []],
		[{ field: 'occurred_at', match_type: 'less_than', pattern: '2026-01-01T00:00:00Z' }, []],
		[
			{ field: 'attributes.x', match_type: 'soundex' as never, pattern: 'y' },
			['condition 1 (attributes.x soundex): unknown match type "soundex"'],
		],
		[
			{ field: 'attributes.x', match_type: 'contains' },
			['condition 1 (attributes.x contains): pattern is required'],
		],
		[
			{ field: 'attributes.x', match_type: 'equals', pattern: '   ' },
			['condition 1 (attributes.x equals): pattern is required'],
		],
		[
			{ field: 'attributes.x', match_type: 'in_list', pattern: ' , \n ,' },
			['condition 1 (attributes.x in_list): pattern has no list items'],
		],
		[
			{ field: 'contact.email', match_type: 'email_domain_in', pattern: 'acme.com, ac me.com' },
			['condition 1 (contact.email email_domain_in): "ac me.com" is not a domain'],
		],
		[
			{ field: 'attributes.x', match_type: 'regex', pattern: '(a+)+$' },
			[
				'condition 1 (attributes.x regex): pattern refused: nested quantifier (a+)+ can backtrack catastrophically',
			],
		],
		[
			{ field: 'value.amount', match_type: 'greater_than', pattern: 'lots' },
			['condition 1 (value.amount greater_than): pattern "lots" is not a number or an ISO date'],
		],
		[
			{ field: 'value.amount', match_type: 'less_than', pattern: '1.000,50' },
			['condition 1 (value.amount less_than): pattern "1.000,50" is not a number or an ISO date'],
		],
		[{ field: '', match_type: 'exists' }, ['condition 1 (? exists): field is empty']],
		[
			{ field: 'contact..email', match_type: 'exists' },
			['condition 1 (contact..email exists): field "contact..email" is not a dotted path'],
		],
		[null, ['condition 1 (? ?): condition is not an object']],
	])('%j', (condition, problems) => {
		expect(validateRuleSet(one(condition))).toEqual(problems);
	});

	it('numbers conditions from 1 and reports each', () => {
		expect(
			validateRuleSet({
				combinator: 'or',
				conditions: [
					{ field: 'a', match_type: 'equals', pattern: 'x' },
					{ field: 'b', match_type: 'regex', pattern: '(' },
					{ field: 'c', match_type: 'less_than', pattern: 'soon' },
				],
			}),
		).toEqual([
			'condition 2 (b regex): pattern does not compile: Invalid regular expression: /(/iu: Unterminated group',
			'condition 3 (c less_than): pattern "soon" is not a number or an ISO date',
		]);
	});

	test.each<[unknown, string[]]>([
		[{ combinator: 'xor', conditions: [] }, ['combinator must be "and" or "or", not "xor"']],
		[{ combinator: 'and' }, ['conditions must be a list']],
		[null, ['rules are missing']],
		[{ combinator: 'or', conditions: [] }, []],
	])('rule set %j', (ruleSet, problems) => {
		expect(validateRuleSet(ruleSet as RuleSet)).toEqual(problems);
	});
});

describe('validateSendPolicy', () => {
	test.each<[unknown, string[]]>([
		[{ mode: 'automatic_completed' }, []],
		[{ mode: 'manual', approvalField: 'attributes.ok' }, []],
		[{ mode: 'automatic_match', rules: { combinator: 'and', conditions: [] } }, []],
		[
			{ mode: 'whenever' },
			[
				'send mode must be one of automatic_completed, automatic_partial, automatic_match, booking, manual, not "whenever"',
			],
		],
		[
			{
				mode: 'automatic_match',
				rulesApplyTo: 'some',
				rules: one({ field: 'a', match_type: 'contains' }),
			},
			[
				'rules apply to must be "partial" or "all", not "some"',
				'condition 1 (a contains): pattern is required',
			],
		],
	])('%j', (policy, problems) => {
		expect(validateSendPolicy(policy as never)).toEqual(problems);
	});
});
