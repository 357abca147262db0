import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type INodeParameters,
} from 'n8n-workflow';
import { LeadRuleFilter } from '../../nodes/LeadRuleFilter/LeadRuleFilter.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { getRedisClient, redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { CaptureLog, captureLogKey, MAX_CONDITIONS, namespacedPrefix } from '../../shared';
import type { LeadRecord } from '../../shared/types';
import { webLead } from '../support/leads';
import { testRedis } from '../support/redisClient';
import { executeError, runExecute, type NodeSetup } from './support/context';
import { nodeRedis } from './support/redis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const node = new LeadRuleFilter();
const ids = (items: INodeExecutionData[]) =>
	items.map((item) => (item.json as IDataObject).record_id ?? item.json.note);
const pairs = (items: INodeExecutionData[]) => items.map((item) => item.pairedItem);
const filterOf = (item: INodeExecutionData) => item.json.lead_filter as IDataObject;

const partial = (i: number, utmSource: string) =>
	webLead(i, { state: 'partial', attributes: { utm_source: utmSource } });

describe('Lead Rule Filter node: execute() routes each item to Send or Skip', () => {
	it('Completed Leads Only (the default): completed leads to Send, partials to Skip with the reason, each paired with its input', async () => {
		const items = [webLead(0), partial(1, 'facebook'), webLead(2, { state: 'schedule' })];
		const { outputs } = await runExecute(node, items as unknown as IDataObject[]);
		const [send, skip] = outputs;
		expect(ids(send)).toEqual(['sub_0', 'sub_2']);
		expect(pairs(send)).toEqual([{ item: 0 }, { item: 2 }]);
		// Send passes the item on untouched.
		expect(send[0].json).toEqual(items[0]);
		expect(ids(skip)).toEqual(['sub_1']);
		expect(pairs(skip)).toEqual([{ item: 1 }]);
		expect(filterOf(skip[0])).toMatchObject({
			send: false,
			reason: expect.stringMatching(/partial/),
		});
	});

	it('Rules: partial captures qualify by the conditions (completed always sent); a miss says which condition failed', async () => {
		const items = [partial(0, 'facebook'), partial(1, 'newsletter'), webLead(2)];
		const params = {
			sendMode: 'automatic_match',
			rules: {
				condition: [
					{ field: 'attributes.utm_source', matchType: 'in_list', pattern: 'facebook, instagram' },
				],
			},
		};
		const { outputs } = await runExecute(node, items as unknown as IDataObject[], { params });
		const [send, skip] = outputs;
		expect(ids(send)).toEqual(['sub_0', 'sub_2']);
		expect(pairs(send)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(ids(skip)).toEqual(['sub_1']);
		expect(pairs(skip)).toEqual([{ item: 1 }]);
		expect(filterOf(skip[0]).failed).toEqual([expect.stringMatching(/utm_source/)]);
	});

	it('Rules applied to all leads: a completed lead that does not match is skipped too', async () => {
		const items = [
			webLead(0, { attributes: { utm_source: 'google' } }),
			webLead(1, { attributes: { utm_source: 'facebook' } }),
		];
		const params = {
			sendMode: 'automatic_match',
			rulesApplyTo: 'all',
			rules: {
				condition: [{ field: 'attributes.utm_source', matchType: 'equals', pattern: 'facebook' }],
			},
		};
		const { outputs } = await runExecute(node, items as unknown as IDataObject[], { params });
		expect(ids(outputs[0])).toEqual(['sub_1']);
		expect(ids(outputs[1])).toEqual(['sub_0']);
		expect(pairs(outputs[1])).toEqual([{ item: 0 }]);
	});

	it('Stage conditions: "send Qualified only within 28 days of the lead" as a rule, not code', async () => {
		const created = '2026-03-01T10:00:00.000Z';
		const stageAt = (days: number) => new Date(Date.parse(created) + days * 86_400_000).toISOString();
		const items = [
			webLead(0, { stage: 'Qualified', lead_created_at: created, stage_at: stageAt(12) }),
			webLead(1, { stage: 'Qualified', lead_created_at: created, stage_at: stageAt(40) }),
			webLead(2, { stage: 'Booked', lead_created_at: created, stage_at: stageAt(3) }),
		];
		const params = {
			sendMode: 'automatic_match',
			rulesApplyTo: 'all',
			rules: {
				condition: [
					{ field: 'stage', matchType: 'equals', pattern: 'qualified' },
					{ field: 'days_since_lead_created', matchType: 'less_than', pattern: '28' },
				],
			},
		};
		const { outputs } = await runExecute(node, items as unknown as IDataObject[], { params });
		expect(ids(outputs[0])).toEqual(['sub_0']);
		expect(ids(outputs[1])).toEqual(['sub_1', 'sub_2']);
		expect(filterOf(outputs[1][0]).reason).toBe(
			'rules not matched: condition 2 of 2 failed: days_since_lead_created is less than 28: no (value is 40)',
		);
	});

	it('Manual Approval: only leads an earlier step approved are sent', async () => {
		const items = [
			webLead(0, { attributes: { approved: 'yes' } }),
			webLead(1, { attributes: { approved: false } }),
			webLead(2),
		];
		const { outputs } = await runExecute(node, items as unknown as IDataObject[], {
			params: { sendMode: 'manual' },
		});
		expect(ids(outputs[0])).toEqual(['sub_0']);
		expect(ids(outputs[1])).toEqual(['sub_1', 'sub_2']);
		expect(pairs(outputs[1])).toEqual([{ item: 1 }, { item: 2 }]);
	});

	it('an item without a lead record at the Lead Record Field goes to Skip saying so; the batch goes on', async () => {
		const items = [{ lead: webLead(0) }, { note: 'no lead here' }];
		const { outputs } = await runExecute(node, items as unknown as IDataObject[], {
			params: { options: { recordField: 'lead' } },
		});
		expect(pairs(outputs[0])).toEqual([{ item: 0 }]);
		expect(pairs(outputs[1])).toEqual([{ item: 1 }]);
		expect(filterOf(outputs[1][0]).reason).toMatch(/not a lead record/);
	});

	it('a rule that cannot run (an invalid regex) is a NodeOperationError that names the problem', async () => {
		const params = {
			sendMode: 'automatic_match',
			rules: { condition: [{ field: 'source.page_url', matchType: 'regex', pattern: '([a-z' }] },
		};
		const { error } = await executeError(node, [webLead(0)] as unknown as IDataObject[], {
			params,
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/regex|pattern|expression/i);
	});
});

describe('Lead Rule Filter node: rule budgets', () => {
	const rulesOf = (condition: Array<Record<string, string>>) => ({
		sendMode: 'automatic_match',
		rulesApplyTo: 'all',
		combinator: 'or',
		rules: { condition },
	});

	it('more conditions than the budget allows stop the node before any lead is routed, naming the limit', async () => {
		const condition = Array.from({ length: MAX_CONDITIONS + 1 }, (_, i) => ({
			field: 'attributes.utm_source',
			matchType: 'equals',
			pattern: `source-${i}`,
		}));
		const { error } = await executeError(node, [webLead(0)] as unknown as IDataObject[], {
			params: rulesOf(condition),
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			`The rules cannot run: ${MAX_CONDITIONS + 1} conditions: at most ${MAX_CONDITIONS} are allowed (rule budget); combine values into one In List or Regex condition`,
		);
	});

	it('a regex too costly for the budget names the condition and what to change', async () => {
		const condition = [
			{ field: 'attributes.utm_source', matchType: 'equals', pattern: 'facebook' },
			{ field: 'source.page_url', matchType: 'regex', pattern: 'a.*b.*c' },
		];
		const { error } = await executeError(node, [webLead(0)] as unknown as IDataObject[], {
			params: rulesOf(condition),
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(
			/^The rules cannot run: condition 2 \(source\.page_url regex\): pattern refused: too much backtracking for one lead's budget: .* anchor it with \^/,
		);
	});

	it('a lead whose values use the budget up goes to Skip with over_budget; the batch goes on', async () => {
		// Every condition is cheap alone; on 2,000-character values they exceed one lead's budget.
		const long = 'x'.repeat(2000);
		const condition = Array.from({ length: 4 }, (_, i) => ({
			field: `attributes.f${i}`,
			matchType: 'contains',
			pattern: 'needle',
		}));
		const items = [
			webLead(0, { attributes: { f0: long, f1: long, f2: long, f3: `${long.slice(10)}needle` } }),
			webLead(1, { attributes: { f0: 'x', f1: 'x', f2: 'x', f3: 'a needle' } }),
		];
		const { outputs } = await runExecute(node, items as unknown as IDataObject[], {
			params: rulesOf(condition),
		});
		const [send, skip] = outputs;
		expect(ids(send)).toEqual(['sub_1']);
		expect(ids(skip)).toEqual(['sub_0']);
		expect(pairs(skip)).toEqual([{ item: 0 }]);
		expect(filterOf(skip[0]).over_budget).toMatch(
			/^not evaluated: this lead's rule budget of \d+ units ran out at condition 2; conditions 2 to 4 were not evaluated$/,
		);
		expect(filterOf(skip[0]).reason).toMatch(/rule budget/);
	});
});

describe('Lead Rule Filter node: Preview on Last 7 Days reads the capture log in the real Redis', () => {
	const redis = nodeRedis('filter');
	const client = testRedis();
	afterAll(() => client.disconnect());

	const append = async (
		name: string,
		records: LeadRecord[],
		clientKey?: string,
		workflowId = 'workflow-test',
	) => {
		const key = captureLogKey(namespacedPrefix(redis.prefix, clientKey), name, workflowId);
		const log = new CaptureLog(client, { key });
		for (const record of records) await log.append(record);
	};
	const setup = (params: IDataObject): NodeSetup => ({
		params: { operation: 'preview', captureLogName: 'site-a', ...params },
		credentials: { leadCapiRedisApi: redis.credential() },
	});

	it('counts what the same settings would have sent: one report item, paired with the first input', async () => {
		await append('site-a', [webLead(0), partial(1, 'facebook'), partial(2, 'newsletter')]);
		await append('site-b', [webLead(9)]);
		const rules = {
			sendMode: 'automatic_match',
			rules: {
				condition: [{ field: 'attributes.utm_source', matchType: 'equals', pattern: 'facebook' }],
			},
		};
		const { outputs } = await runExecute(node, [{}], setup(rules));
		// One report item on the first output (Send, or a Preview output of its own), nothing else.
		expect(outputs[0]).toHaveLength(1);
		expect(outputs.slice(1).flat()).toEqual([]);
		expect(outputs[0][0].pairedItem).toEqual({ item: 0 });
		expect(outputs[0][0].json).toMatchObject({
			capture_log: 'site-a',
			considered: 3,
			matched: 2,
			summary: expect.stringContaining('2 of 3'),
		});

		const completedOnly = await runExecute(node, [{}], setup({}));
		expect(completedOnly.outputs[0][0].json).toMatchObject({ considered: 3, matched: 1 });
	});

	it("reads only the client's captures when a Client Key is set", async () => {
		await append('site-a', [webLead(0)]);
		await append('site-a', [webLead(1), webLead(2)], 'acme');
		const { outputs } = await runExecute(node, [{}], setup({ previewClientKey: 'acme' }));
		expect(outputs[0][0].json).toMatchObject({ considered: 2, matched: 2 });
	});

	it("reads only this workflow's log: another workflow's trigger on the same path is not read unless named", async () => {
		await append('lead-capture', [webLead(0)]);
		await append('lead-capture', [webLead(1), webLead(2), webLead(3)], undefined, 'other-workflow');
		const own = await runExecute(node, [{}], setup({ captureLogName: 'lead-capture' }));
		expect(own.outputs[0][0].json).toMatchObject({ considered: 1 });
		const named = await runExecute(
			node,
			[{}],
			setup({ captureLogName: 'lead-capture', previewWorkflowId: 'other-workflow' }),
		);
		expect(named.outputs[0][0].json).toMatchObject({ considered: 3 });
	});

	it('without a capture log name it is a NodeOperationError saying what to enter', async () => {
		const { error } = await executeError(node, [{}], setup({ captureLogName: '  ' }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/capture log name/i);
	});
});

describe('Lead Rule Filter node: stage facts from the stage ledger (real Redis, ledger written by the real Meta sender)', () => {
	const redis = nodeRedis('filter-ledger');
	const TOKEN = 'EAAG-filter-ledger-token-0123456789';
	const PIXEL = '1234567890';
	const DAY_MS = 86_400_000;
	let standIn: { url: string; received: unknown[]; reset(): void; close(): Promise<void> };
	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
	});
	afterAll(() => standIn.close());

	/** The lead's first stage, sent by Meta Conversions (CRM): its creation goes to the ledger. */
	const sendLeadStage = (records: IDataObject[], clientKey = '') =>
		runExecute(new MetaConversions(), records, {
			params: {
				event: 'fromStage',
				eventSource: 'crm',
				leadEventSource: 'HubSpot',
				options: clientKey ? { clientKey } : {},
			},
			credentials: {
				leadCapiMetaApi: { pixelId: PIXEL, accessToken: TOKEN, baseUrl: standIn.url },
				leadCapiRedisApi: redis.credential(),
			},
		});
	const firstStage = (id: string, createdDaysAgo: number): IDataObject => ({
		record_id: id,
		stage: 'Lead',
		stage_at: new Date(Date.now() - 3_600_000).toISOString(),
		lead_created_at: new Date(Date.now() - createdDaysAgo * DAY_MS).toISOString(),
		attributes: { meta_lead_id: `12345678901234${id.length}` },
	});
	/** The CRM's later stage: no lead_created_at, no previous stage — only what HubSpot says. */
	const qualified = (id: string): IDataObject => ({
		record_id: id,
		stage: 'Qualified',
		stage_at: new Date().toISOString(),
	});
	const within28Days = (extra: INodeParameters = {}): INodeParameters => ({
		sendMode: 'automatic_match',
		rulesApplyTo: 'all',
		rules: {
			condition: [
				{ field: 'stage', matchType: 'equals', pattern: 'qualified' },
				{ field: 'days_since_lead_created', matchType: 'less_than', pattern: '28' },
			],
		},
		stageFacts: 'ledger',
		ledgerPlatform: 'meta',
		ledgerDestination: PIXEL,
		...extra,
	});
	const filterRun = (items: IDataObject[], params: INodeParameters) =>
		runExecute(node, items, { params, credentials: { leadCapiRedisApi: redis.credential() } });

	it('"send Qualified only within 28 days of the lead": a 10-day-old lead passes, a 40-day-old one whose creation is only in the ledger is dropped', async () => {
		const sent = await sendLeadStage([firstStage('deal-10', 10), firstStage('deal-40', 40)]);
		expect(sent.outputs[0].map((i) => i.json.status)).toEqual(['sent', 'sent']);

		const items = [qualified('deal-10'), qualified('deal-40'), qualified('deal-unknown')];
		const { outputs } = await filterRun(items, within28Days());
		expect(ids(outputs[0])).toEqual(['deal-10']);
		// Send passes the item on untouched: the ledger's facts decide, they are not added.
		expect(outputs[0][0].json).toEqual(items[0]);
		expect(pairs(outputs[0])).toEqual([{ item: 0 }]);
		expect(ids(outputs[1])).toEqual(['deal-40', 'deal-unknown']);
		expect(pairs(outputs[1])).toEqual([{ item: 1 }, { item: 2 }]);
		expect(filterOf(outputs[1][0])).toMatchObject({
			reason: expect.stringMatching(/days_since_lead_created is less than 28: no \(value is 40(\.\d+)?\)$/),
			stage_ledger: 'found',
		});
		// A lead the ledger does not know keeps its own fields: here no creation time, so the rule fails.
		expect(filterOf(outputs[1][1])).toMatchObject({
			reason: expect.stringMatching(/days_since_lead_created .*field is missing/),
			stage_ledger: 'unknown',
		});

		// Without the ledger (the default Stage Facts): the record alone knows no creation time.
		const alone = await filterRun(items, within28Days({ stageFacts: 'record' }));
		expect(ids(alone.outputs[0])).toEqual([]);
		// The record's own lead_created_at wins over the ledger's.
		const own = await filterRun(
			[{ ...qualified('deal-40'), lead_created_at: new Date(Date.now() - 2 * DAY_MS).toISOString() }],
			within28Days(),
		);
		expect(ids(own.outputs[0])).toEqual(['deal-40']);
	});

	it('previous stage from the ledger; a Client Key reads only that client\'s ledger', async () => {
		await sendLeadStage([firstStage('deal-7', 7)], 'acme');
		const afterLead = (extra: INodeParameters) =>
			within28Days({
				rules: { condition: [{ field: 'previous_stage', matchType: 'equals', pattern: 'lead' }] },
				...extra,
			});
		const acme = await filterRun([qualified('deal-7')], afterLead({ ledgerClientKey: 'acme' }));
		expect(ids(acme.outputs[0])).toEqual(['deal-7']);
		const unkeyed = await filterRun([qualified('deal-7')], afterLead({}));
		expect(ids(unkeyed.outputs[0])).toEqual([]);
		expect(filterOf(unkeyed.outputs[1][0]).stage_ledger).toBe('unknown');
	});

	it('without a Redis credential or a destination, Stage Facts from the ledger is a NodeOperationError saying what to choose', async () => {
		const noCredential = await executeError(node, [qualified('deal-10')], { params: within28Days() });
		expect(noCredential.error).toBeInstanceOf(NodeOperationError);
		expect(noCredential.error.message).toMatch(/^Choose a Redis credential .* to read the stage ledger/);
		const noDestination = await executeError(node, [qualified('deal-10')], {
			params: within28Days({ ledgerDestination: ' ' }),
			credentials: { leadCapiRedisApi: redis.credential() },
		});
		expect(noDestination.error.message).toMatch(/^Enter the Ledger Destination ID/);
	});

	it('an unreachable Redis fails the node; with On Error continue every item goes to Skip (never sent on unchecked facts)', async () => {
		const dead = { connection: 'url', url: 'redis://127.0.0.1:1', keyPrefix: redis.prefix };
		const setup = (onError?: NodeSetup['onError']): NodeSetup => ({
			params: within28Days(),
			credentials: { leadCapiRedisApi: dead },
			...(onError ? { onError } : {}),
		});
		const { error } = await executeError(node, [qualified('deal-10')], setup());
		expect(error.message).toMatch(/^the stage ledger could not be read/);
		const { outputs } = await runExecute(node, [qualified('deal-10'), qualified('deal-11')], setup('continueRegularOutput'));
		expect(outputs[0]).toEqual([]);
		expect(pairs(outputs[1])).toEqual([{ item: 0 }, { item: 1 }]);
		expect(filterOf(outputs[1][0]).reason).toMatch(/^the stage ledger could not be read/);
		// The pooled connection to the dead address would keep reconnecting after the test.
		getRedisClient(redisConfigFromCredentials(dead)).client.disconnect();
	});
});
