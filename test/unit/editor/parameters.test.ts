/**
 * What the editor shows in the node panel and the node picker: parameters only where they
 * apply, action names the picker shows intact, output names that say what comes out.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import {
	CASE_SENSITIVE_MATCH_TYPES,
	LEAD_RECORD_FIELDS,
	MATCH_TYPES,
	validateRuleSet,
	type MatchType,
} from '../../../shared';
import { allProperties, describeNode, isDisplayed, NODE_TYPES, outputNamesOf } from './editorView';

function conditionField(name: string): INodeProperties {
	const rules = describeNode('leadRuleFilter').properties.find((p) => p.name === 'rules')!;
	const [condition] = rules.options as Array<{ values: INodeProperties[] }>;
	return condition.values.find((v) => v.name === name)!;
}

function withCondition(matchType: MatchType) {
	return {
		operation: 'filter',
		sendMode: 'automatic_match',
		rules: { condition: [{ field: 'contact.email', matchType, pattern: '' }] },
	};
}

/** Whether the rule engine refuses the condition without a pattern. */
function needsPattern(matchType: MatchType): boolean {
	const problems = validateRuleSet({
		combinator: 'and',
		conditions: [{ field: 'contact.email', match_type: matchType, pattern: '' }],
	});
	return problems.some((p) => /pattern/.test(p));
}

describe('Lead Rule Filter condition fields', () => {
	it('the Match options are exactly the match types of the rule engine', () => {
		const options = conditionField('matchType').options as INodePropertyOptions[];
		expect(options.map((o) => o.value).sort()).toEqual([...MATCH_TYPES].sort());
	});

	it.each([...MATCH_TYPES])(
		'%s: Pattern shows exactly when the rule engine needs one',
		(matchType) => {
			const shown = isDisplayed(
				'leadRuleFilter',
				conditionField('pattern'),
				withCondition(matchType),
				'rules.condition[0]',
			);
			expect(shown).toBe(needsPattern(matchType));
		},
	);

	it('Is Work Email, Exists and Not Exists show no Pattern; Equals, In List, Regex and Greater Than do', () => {
		const shown = (matchType: MatchType) =>
			isDisplayed(
				'leadRuleFilter',
				conditionField('pattern'),
				withCondition(matchType),
				'rules.condition[0]',
			);
		expect(['is_work_email', 'exists', 'not_exists'].map((t) => shown(t as MatchType))).toEqual([
			false,
			false,
			false,
		]);
		expect(
			['equals', 'in_list', 'regex', 'greater_than'].map((t) => shown(t as MatchType)),
		).toEqual([true, true, true, true]);
	});

	it.each([...MATCH_TYPES])(
		'%s: Case Sensitive shows only where case changes the comparison',
		(matchType) => {
			const shown = isDisplayed(
				'leadRuleFilter',
				conditionField('caseSensitive'),
				withCondition(matchType),
				'rules.condition[0]',
			);
			expect(shown).toBe(CASE_SENSITIVE_MATCH_TYPES.includes(matchType));
		},
	);

	it('is_work_email and exists ignore case; equals and regex do not', () => {
		expect(CASE_SENSITIVE_MATCH_TYPES).not.toContain('is_work_email');
		expect(CASE_SENSITIVE_MATCH_TYPES).not.toContain('exists');
		expect(CASE_SENSITIVE_MATCH_TYPES).toEqual(expect.arrayContaining(['equals', 'regex']));
	});
});

describe('Lead Rule Filter outputs', () => {
	it('filtering: Send and Skip', () => {
		expect(outputNamesOf('leadRuleFilter', { operation: 'filter' })).toEqual(['Send', 'Skip']);
	});

	it('previewing: one output named Preview', () => {
		expect(outputNamesOf('leadRuleFilter', { operation: 'preview' })).toEqual(['Preview']);
	});
});

describe('node picker actions', () => {
	const actions = Object.values(NODE_TYPES).flatMap((nodeType) =>
		allProperties(nodeType.description.properties)
			.flatMap((p) => (p.type === 'options' ? (p.options as INodePropertyOptions[]) : []))
			.filter((o) => o.action !== undefined)
			.map((o) => [nodeType.description.name, o.action!] as const),
	);

	it('there are operations with actions to check', () => {
		expect(actions.length).toBeGreaterThanOrEqual(4);
	});

	it.each(actions)('%s: "%s" has no apostrophe and no stray "s" left by one', (_, action) => {
		expect(action).not.toMatch(/['’`]/);
		expect(action).not.toMatch(/\b[a-z]+ s\b/);
	});
});

describe('Lead Capture Trigger notices', () => {
	const notices = describeNode('leadCaptureTrigger').properties.filter((p) => p.type === 'notice');

	it('every setup notice points to the Production URL under Webhook URLs, never a placeholder URL', () => {
		const setup = notices.filter((n) => /URL/.test(n.displayName));
		expect(setup.map((n) => n.name).sort()).toEqual(
			[
				'calcomNotice',
				'calendlyNotice',
				'hubspotNotice',
				'metaLeadAdsNotice',
				'scriptNotice',
				'tallyNotice',
				'typeformNotice',
			].sort(),
		);
		for (const notice of setup) {
			expect(notice.displayName).toMatch(/Production URL/);
			expect(notice.displayName).toMatch(/Webhook URLs/);
			expect(notice.displayName).not.toMatch(/\{your n8n\}|\{path\}|production URL/);
		}
	});

	it('the webhook URLs are not hidden from the panel', () => {
		const webhooks = describeNode('leadCaptureTrigger').webhooks ?? [];
		expect(webhooks.length).toBeGreaterThan(0);
		expect(webhooks.some((w) => !w.ndvHideUrl && !w.restartWebhook)).toBe(true);
	});
});

describe('settings shown only where they apply', () => {
	const option = (node: string, collection: string, name: string) =>
		allProperties(describeNode(node).properties.filter((p) => p.name === collection)).find(
			(p) => p.name === name,
		)!;

	it.each(['captureLogName', 'captureLogMaxEntries', 'clientKey'])(
		'trigger %s: only with the capture log on',
		(name) => {
			const setting = option('leadCaptureTrigger', 'settings', name);
			expect(isDisplayed('leadCaptureTrigger', setting, { captureLog: 'redis' }, 'settings')).toBe(
				true,
			);
			expect(isDisplayed('leadCaptureTrigger', setting, { captureLog: 'off' }, 'settings')).toBe(
				false,
			);
		},
	);

	it('trigger Signature Tolerance: only for signed deliveries', () => {
		const setting = option('leadCaptureTrigger', 'settings', 'toleranceSeconds');
		const shown = (source: string, authentication: string) =>
			isDisplayed('leadCaptureTrigger', setting, { source, authentication }, 'settings');
		expect(shown('calendly', 'signature')).toBe(true);
		expect(shown('generic', 'signature')).toBe(true);
		expect(shown('generic', 'none')).toBe(false);
		expect(shown('script', 'signature')).toBe(false);
	});

	it.each([
		'metaConversions',
		'pinterestConversions',
		'tiktokEvents',
		'googleAdsConversions',
		'microsoftConversions',
	])('%s: Dedup TTL only with a dedup store, the fail mode only with Redis', (node) => {
		const ttl = option(node, 'options', 'dedupTtlDays');
		const failMode = option(node, 'options', 'dedupFailMode');
		const shown = (setting: INodeProperties, dedupStore: string) =>
			isDisplayed(node, setting, { dedupStore }, 'options');
		expect(['redis', 'memory', 'off'].map((store) => shown(ttl, store))).toEqual([
			true,
			true,
			false,
		]);
		expect(['redis', 'memory', 'off'].map((store) => shown(failMode, store))).toEqual([
			true,
			false,
			false,
		]);
	});
});

describe('Lead Record Field pickers', () => {
	const pickers = Object.values(NODE_TYPES).flatMap((nodeType) =>
		allProperties(nodeType.description.properties)
			.filter((p) => p.displayName === 'Lead Record Field' && p.type === 'options')
			.map((p) => [nodeType.description.name, p.options as INodePropertyOptions[]] as const),
	);

	it('the trigger mapping and every sender have one', () => {
		expect(pickers.map(([name]) => name).sort()).toEqual(
			[
				'googleAdsConversions',
				'leadCaptureTrigger',
				'metaConversions',
				'microsoftConversions',
				'pinterestConversions',
				'tiktokEvents',
			].sort(),
		);
	});

	it.each(pickers)('%s: every record field by a readable name, its path on hover', (_, options) => {
		expect(options.map((o) => o.value)).toEqual([...LEAD_RECORD_FIELDS]);
		for (const option of options) {
			expect(option.name).not.toMatch(/[_.]/);
			expect(option.description).toBe(option.value);
		}
		const byPath = Object.fromEntries(options.map((o) => [o.value, o.name]));
		expect(byPath).toMatchObject({
			record_id: 'Record ID',
			'contact.first_name': 'Contact: First Name',
			'click.gclid': 'Click: gclid',
			'click.clicked_at': 'Click: Clicked At',
			'source.page_url': 'Source: Page URL',
			'consent.ad_user_data': 'Consent: Ad User Data',
		});
	});
});
