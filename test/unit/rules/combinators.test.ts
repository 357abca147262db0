import { evaluateRules, type RuleCondition, type RuleSet } from '../../../shared/rules';

const lead = {
	state: 'partial',
	source: { page_url: 'https://example.com/pricing' },
	attributes: { utm_source: 'google', utm_medium: 'cpc' },
};

const pricing: RuleCondition = {
	field: 'source.page_url',
	match_type: 'contains',
	pattern: '/pricing',
};
const fromFacebook: RuleCondition = {
	field: 'attributes.utm_source',
	match_type: 'equals',
	pattern: 'fb',
};
const paid: RuleCondition = {
	field: 'attributes.utm_medium',
	match_type: 'in_list',
	pattern: 'cpc, paid',
};
const blog: RuleCondition = { field: 'source.page_url', match_type: 'contains', pattern: '/blog' };

describe('AND: every condition must pass; the reason names the first failing one', () => {
	test.each<[RuleCondition[], boolean, string]>([
		[[pricing, paid], true, 'all 2 conditions matched'],
		[[pricing], true, 'condition 1 of 1 matched: source.page_url contains "/pricing": yes'],
		[
			[pricing, fromFacebook, blog],
			false,
			'condition 2 of 3 failed: attributes.utm_source equals "fb": no (value is "google")',
		],
		[
			[blog, fromFacebook],
			false,
			'condition 1 of 2 failed: source.page_url contains "/blog": no (value is "https://example.com/pricing")',
		],
		[[], true, 'no conditions: an empty AND matches every lead'],
	])('%#', (conditions, matched, reason) => {
		const evaluation = evaluateRules({ combinator: 'and', conditions }, lead);
		expect(evaluation.matched).toBe(matched);
		expect(evaluation.reason).toBe(reason);
		expect(evaluation.results).toHaveLength(conditions.length);
	});

	it('evaluates every condition, not just up to the first failure', () => {
		const { results } = evaluateRules(
			{ combinator: 'and', conditions: [fromFacebook, pricing, blog] },
			lead,
		);
		expect(results.map((r) => [r.index, r.passed])).toEqual([
			[0, false],
			[1, true],
			[2, false],
		]);
		expect(results[1].condition).toEqual(pricing);
	});
});

describe('OR: one passing condition is enough; the reason names it', () => {
	test.each<[RuleCondition[], boolean, string]>([
		[
			[fromFacebook, pricing, paid],
			true,
			'condition 2 of 3 matched: source.page_url contains "/pricing": yes',
		],
		[[fromFacebook, blog], false, 'none of the 2 conditions matched'],
		[
			[blog],
			false,
			'condition 1 of 1 failed: source.page_url contains "/blog": no (value is "https://example.com/pricing")',
		],
		[[], false, 'no conditions: an empty OR matches no lead'],
	])('%#', (conditions, matched, reason) => {
		const evaluation = evaluateRules({ combinator: 'or', conditions }, lead);
		expect(evaluation.matched).toBe(matched);
		expect(evaluation.reason).toBe(reason);
	});
});

describe('rule sets as they arrive', () => {
	it('treats an unknown combinator as the stricter AND', () => {
		const ruleSet = {
			combinator: 'xor',
			conditions: [pricing, fromFacebook],
		} as unknown as RuleSet;
		expect(evaluateRules(ruleSet, lead).matched).toBe(false);
		expect(
			evaluateRules(
				{ combinator: 'OR', conditions: [pricing, fromFacebook] } as unknown as RuleSet,
				lead,
			).matched,
		).toBe(true);
	});

	it('fails a condition that cannot run, with the problem as its reason', () => {
		const evaluation = evaluateRules(
			{
				combinator: 'or',
				conditions: [{ field: 'x', match_type: 'sounds_like' as never, pattern: 'y' }],
			},
			lead,
		);
		expect(evaluation.matched).toBe(false);
		expect(evaluation.results[0].reason).toBe(
			'x sounds_like: no (unknown match type "sounds_like")',
		);
	});

	it('recompiles a condition edited in place', () => {
		const condition: RuleCondition = {
			field: 'attributes.utm_source',
			match_type: 'equals',
			pattern: 'fb',
		};
		const ruleSet: RuleSet = { combinator: 'and', conditions: [condition] };
		expect(evaluateRules(ruleSet, lead).matched).toBe(false);
		condition.pattern = 'google';
		expect(evaluateRules(ruleSet, lead).matched).toBe(true);
	});

	it('does not change the record or the rule set', () => {
		const record = JSON.parse(JSON.stringify(lead));
		const ruleSet: RuleSet = { combinator: 'and', conditions: [{ ...pricing }, { ...paid }] };
		const before = JSON.stringify([record, ruleSet]);
		evaluateRules(ruleSet, record);
		expect(JSON.stringify([record, ruleSet])).toBe(before);
	});
});
