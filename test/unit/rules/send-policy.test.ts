import { decideSend, type RuleSet, type SendPolicy } from '../../../shared/rules';

const completed = {
	record_id: 'c1',
	state: 'lead',
	source: { page_url: 'https://x.io/blog' },
	attributes: { utm_source: 'fb' },
};
const noState = { record_id: 'c2', source: { page_url: 'https://x.io/blog' } };
const partialPricing = {
	record_id: 'p1',
	state: 'partial',
	source: { page_url: 'https://x.io/pricing' },
};
const partialBlog = {
	record_id: 'p2',
	state: 'partial',
	source: { page_url: 'https://x.io/blog' },
};
const booking = { record_id: 'b1', state: 'schedule' };
const purchase = { record_id: 'u1', state: 'purchase', value: { amount: 99 } };

const pricingRule: RuleSet = {
	combinator: 'and',
	conditions: [{ field: 'source.page_url', match_type: 'contains', pattern: '/pricing' }],
};

describe('send modes: the partial-leads ladder and the rest', () => {
	test.each<[string, SendPolicy, object, boolean, string]>([
		[
			'completed only sends a lead',
			{ mode: 'automatic_completed' },
			completed,
			true,
			'completed capture (state lead)',
		],
		[
			'completed only: no state counts as lead',
			{ mode: 'automatic_completed' },
			noState,
			true,
			'completed capture (no state, counts as lead)',
		],
		[
			'completed only sends a purchase',
			{ mode: 'automatic_completed' },
			purchase,
			true,
			'completed capture (state purchase)',
		],
		[
			'completed only skips a partial',
			{ mode: 'automatic_completed' },
			partialPricing,
			false,
			'partial capture: completed submissions only',
		],
		[
			'completed only: state case and spaces do not matter',
			{ mode: 'automatic_completed' },
			{ state: ' Partial ' },
			false,
			'partial capture: completed submissions only',
		],
		[
			'all captures sends a partial',
			{ mode: 'automatic_partial' },
			partialBlog,
			true,
			'partial capture: every capture is sent',
		],
		[
			'all captures sends a completed lead',
			{ mode: 'automatic_partial' },
			completed,
			true,
			'completed capture (state lead)',
		],
		[
			'rules on partials: a completed lead is sent without rules',
			{ mode: 'automatic_match', rules: pricingRule },
			completed,
			true,
			'completed capture (state lead): sent without rules, which qualify partial captures',
		],
		[
			'rules on partials: a matching partial is sent',
			{ mode: 'automatic_match', rulesApplyTo: 'partial', rules: pricingRule },
			partialPricing,
			true,
			'partial capture qualified: condition 1 of 1 matched: source.page_url contains "/pricing": yes',
		],
		[
			'rules on partials: a partial that fails is skipped, naming the condition',
			{ mode: 'automatic_match', rules: pricingRule },
			partialBlog,
			false,
			'partial capture not qualified: condition 1 of 1 failed: source.page_url contains "/pricing": no (value is "https://x.io/blog")',
		],
		[
			'rules on all: a completed lead must match too',
			{ mode: 'automatic_match', rulesApplyTo: 'all', rules: pricingRule },
			completed,
			false,
			'rules not matched: condition 1 of 1 failed: source.page_url contains "/pricing": no (value is "https://x.io/blog")',
		],
		[
			'rules on all: a matching partial is sent',
			{ mode: 'automatic_match', rulesApplyTo: 'all', rules: pricingRule },
			partialPricing,
			true,
			'rules matched: condition 1 of 1 matched: source.page_url contains "/pricing": yes',
		],
		['booking sends schedule', { mode: 'booking' }, booking, true, 'booking (state schedule)'],
		[
			'booking skips a lead',
			{ mode: 'booking' },
			completed,
			false,
			'state lead: booking mode sends state schedule only',
		],
		[
			'booking skips no state',
			{ mode: 'booking' },
			noState,
			false,
			'no state, counts as lead: booking mode sends state schedule only',
		],
		[
			'unknown mode skips',
			{ mode: 'sometimes' as never },
			completed,
			false,
			'unknown send mode "sometimes"',
		],
	])('%s', (_, policy, record, send, reason) => {
		const decision = decideSend(policy, record);
		expect(decision).toMatchObject({ send, reason });
	});

	it('attaches the rule evaluation only when rules ran', () => {
		expect(
			decideSend({ mode: 'automatic_match', rules: pricingRule }, completed).evaluation,
		).toBeUndefined();
		const decision = decideSend({ mode: 'automatic_match', rules: pricingRule }, partialBlog);
		expect(decision.evaluation?.results[0]).toMatchObject({
			index: 0,
			passed: false,
			evaluable: true,
		});
		expect(decideSend({ mode: 'automatic_completed' }, completed).evaluation).toBeUndefined();
	});
});

describe('manual: only explicitly approved leads are sent', () => {
	test.each<[unknown, boolean, string]>([
		[true, true, 'approved (attributes.approved is true)'],
		['true', true, 'approved (attributes.approved is "true")'],
		['Yes', true, 'approved (attributes.approved is "Yes")'],
		[' APPROVED ', true, 'approved (attributes.approved is " APPROVED ")'],
		[1, true, 'approved (attributes.approved is 1)'],
		['1', true, 'approved (attributes.approved is "1")'],
		[false, false, 'not approved: attributes.approved is false'],
		['no', false, 'not approved: attributes.approved is "no"'],
		[0, false, 'not approved: attributes.approved is 0'],
		['pending', false, 'not approved: attributes.approved is "pending"'],
		[2, false, 'not approved: attributes.approved is 2'],
		['', false, 'not approved: attributes.approved is missing'],
		[null, false, 'not approved: attributes.approved is missing'],
		[undefined, false, 'not approved: attributes.approved is missing'],
	])('attributes.approved = %j → %s', (approved, send, reason) => {
		expect(decideSend({ mode: 'manual' }, { state: 'lead', attributes: { approved } })).toEqual({
			send,
			reason,
		});
	});

	it('reads another approval field when configured', () => {
		const policy: SendPolicy = { mode: 'manual', approvalField: 'review.ok' };
		expect(decideSend(policy, { review: { ok: 'yes' } }).send).toBe(true);
		expect(decideSend(policy, { attributes: { approved: true } })).toEqual({
			send: false,
			reason: 'not approved: review.ok is missing',
		});
	});
});
