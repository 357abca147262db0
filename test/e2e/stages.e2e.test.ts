import { createHash, randomUUID } from 'node:crypto';
import { chain, n8nWithPackage, node, type N8nInstance } from './n8n';
/* eslint-disable @typescript-eslint/no-require-imports */
const { startMetaStandIn } = require('../standins/meta.js');
const { startGoogleStandIn } = require('../standins/google.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/*
 * A lead's whole life in a real n8n (docs/stages.md): Lead → Qualified → Booked → Won $X for one
 * lead, Lead → Lost for another, through Meta (stages as events, Event: From Lead Stage) and
 * Google (the lead conversion, then Adjust from the lead's stage with the original from the
 * stage ledger): exactly one event per stage per platform across re-runs, a skipped stage
 * warned about, an over-age stage `expired`, one restatement and one retraction.
 */
const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-token-${randomUUID()}`;
const APP_SECRET = `e2e-app-secret-${randomUUID()}`;
const PIXEL = '987650000012345';
const ACCOUNT = '1234567890';
const ACTION_ID = '987654321';
const ACTION = `customers/${ACCOUNT}/conversionActions/${ACTION_ID}`;
const DEVELOPER_TOKEN = 'dev-token-e2e-stages-0123456789';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

/** The lead's record at a stage: same record_id, the stage and its time. */
const at = (id: string, stage: string, hours: number, extra: Record<string, unknown> = {}) => ({
	record_id: id,
	state: 'lead',
	occurred_at: hoursAgo(hours),
	stage,
	stage_at: hoursAgo(hours),
	contact: { email: `${id}@example.com` },
	click: { gclid: `Cj0KCQiA-${id}` },
	...extra,
});

describe("a lead's stages in a real n8n: Meta events and Google adjustments from the stage ledger", () => {
	let meta: Awaited<ReturnType<typeof startMetaStandIn>>;
	let ads: Awaited<ReturnType<typeof startGoogleStandIn>>;
	let instance: N8nInstance;
	const keyPrefix = `e2e-stages-${randomUUID().slice(0, 8)}`;
	const credentials = {
		meta: { id: 'e2eStageMeta0001', name: 'Meta (loopback stand-in)' },
		ads: { id: 'e2eStageAds00001', name: 'Google Ads (loopback stand-in)' },
		redis: { id: 'e2eStageRedis001', name: 'Dedup Redis' },
	};

	const metaNode = () =>
		node(
			'Meta',
			`${PKG}.metaConversions`,
			1,
			[600, 0],
			{
				event: 'fromStage',
				actionSource: 'auto',
				leadInput: 'record',
				dedupStore: 'redis',
				options: { stageOrder: 'Lead, Qualified, Booked, Won' },
			},
			{ credentials: { leadCapiMetaApi: credentials.meta, leadCapiRedisApi: credentials.redis }, onError: 'continueRegularOutput' },
		);
	const googleNode = (parameters: Record<string, unknown>) =>
		node(
			'Google',
			`${PKG}.googleAdsConversions`,
			2,
			[600, 0],
			{
				api: 'googleAdsApi',
				customerId: '123-456-7890',
				conversionAction: { __rl: true, mode: 'id', value: ACTION_ID },
				event: 'fromState',
				leadInput: 'record',
				dedupStore: 'redis',
				options: {},
				...parameters,
			},
			{
				credentials: { leadCapiGoogleAdsOAuth2Api: credentials.ads, leadCapiRedisApi: credentials.redis },
				onError: 'continueRegularOutput',
			},
		);
	const workflow = (id: string, records: unknown[], sender: ReturnType<typeof node>) => ({
		id,
		name: `e2e: stages (${id})`,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
			node('Leads', 'n8n-nodes-base.set', 3.4, [200, 0], {
				mode: 'raw',
				jsonOutput: JSON.stringify({ leads: records }),
				options: {},
			}),
			node('Split Leads', 'n8n-nodes-base.splitOut', 1, [400, 0], { fieldToSplitOut: 'leads', options: {} }),
			sender,
		],
		connections: chain('Start', 'Leads', 'Split Leads', sender.name),
		settings: { executionOrder: 'v1' },
	});
	const run = async (id: string, name: string) => {
		const result = await instance.execute(id);
		expect(result.status).toBe('success');
		return result.nodes[name];
	};

	beforeAll(async () => {
		meta = await startMetaStandIn({ accessToken: TOKEN, appSecret: APP_SECRET });
		ads = await startGoogleStandIn({ developerToken: DEVELOPER_TOKEN, timeZone: 'America/Chicago' });
		instance = await n8nWithPackage();
		instance.importCredentials([
			{
				...credentials.meta,
				type: 'leadCapiMetaApi',
				data: { pixelId: PIXEL, accessToken: TOKEN, appSecret: APP_SECRET, apiVersion: 'v26.0', baseUrl: meta.url },
			},
			{
				...credentials.ads,
				type: 'leadCapiGoogleAdsOAuth2Api',
				data: {
					clientId: ads.clientId,
					clientSecret: ads.clientSecret,
					accessTokenUrl: ads.tokenUrl,
					developerToken: DEVELOPER_TOKEN,
					apiVersion: 'v26',
					baseUrl: ads.url,
					oauthTokenData: {
						access_token: ads.accessToken(),
						refresh_token: ads.refreshToken,
						token_type: 'Bearer',
						expires_in: 3599,
					},
				},
			},
			{
				...credentials.redis,
				type: 'leadCapiRedisApi',
				data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix },
			},
		]);
	});
	afterAll(async () => {
		await instance?.cleanup();
		await meta?.close();
		await ads?.close();
	});

	it('Meta: one event per stage across re-runs; a skipped stage warned about; an over-age stage expired', async () => {
		const steps = [
			// Lead for won-1, lost-1, skip-1.
			[at('won-1', 'Lead', 50), at('lost-1', 'Lead', 50), at('skip-1', 'Lead', 50)],
			[at('won-1', 'Qualified', 30), at('lost-1', 'Lost', 20)],
			// skip-1 jumps to Booked; old-1 reached Qualified 9 days ago (Meta: 7-day window).
			[at('won-1', 'Booked', 10), at('skip-1', 'Booked', 10), at('old-1', 'Qualified', 24 * 9)],
			[at('won-1', 'Won', 1, { value: { amount: 4200, currency: 'EUR' } })],
		];
		steps.forEach((records, i) => instance.importWorkflow(workflow(`e2eStageMeta0${i}0`, records, metaNode())));
		const first = [];
		for (let i = 0; i < steps.length; i++) first.push(await run(`e2eStageMeta0${i}0`, 'Meta'));
		expect(first.map((out) => out.map((j) => j.status))).toEqual([
			['sent', 'sent', 'sent'],
			['sent', 'sent'],
			['sent', 'sent', 'expired'],
			['sent'],
		]);
		expect(first[2][1].warnings).toContain(
			'stage "Booked" skips "qualified": not sent for this lead; Meta asks for every stage change to be sent',
		);
		expect(first[2][2].error).toMatch(/^stage "Qualified" expired: (stage_at|occurred_at) is 9\.0 days old/);
		expect(first[3][0]).toMatchObject({ event_name: 'Won', event_id: sha(`${PIXEL}|Won|won-1`) });

		// Every step again (a re-run, a retried webhook): nothing new.
		for (let i = 0; i < steps.length; i++) {
			const again = await run(`e2eStageMeta0${i}0`, 'Meta');
			expect(again.map((j) => j.status)).toEqual(
				steps[i].map((r) => (r.record_id === 'old-1' ? 'expired' : 'duplicate')),
			);
		}
		const sent = (meta.received as Array<{ event: { event_name: string; event_id: string } }>).map(
			(r) => r.event.event_name,
		);
		expect(sent.sort()).toEqual(['Booked', 'Booked', 'Lead', 'Lead', 'Lead', 'Lost', 'Qualified', 'Won'].sort());
		expect(new Set(meta.received.map((r: { event: { event_id: string } }) => r.event.event_id)).size).toBe(8);
	});

	it('Lead Rule Filter, Stage Facts from the stage ledger: "Qualified within 28 days" passes a 10-day-old lead, drops a 40-day-old one known only to the ledger', async () => {
		const first = (id: string, createdDaysAgo: number) => ({
			...at(id, 'Lead', 2),
			lead_created_at: hoursAgo(createdDaysAgo * 24),
		});
		instance.importWorkflow(workflow('e2eStageFilter01', [first('f-10', 10), first('f-40', 40)], metaNode()));
		expect((await run('e2eStageFilter01', 'Meta')).map((j) => j.status)).toEqual(['sent', 'sent']);
		const filter = node(
			'Filter',
			`${PKG}.leadRuleFilter`,
			1,
			[600, 0],
			{
				operation: 'filter',
				sendMode: 'automatic_match',
				rulesApplyTo: 'all',
				combinator: 'and',
				rules: {
					condition: [
						{ field: 'stage', matchType: 'equals', pattern: 'qualified' },
						{ field: 'days_since_lead_created', matchType: 'less_than', pattern: '28' },
					],
				},
				stageFacts: 'ledger',
				ledgerPlatform: 'meta',
				ledgerDestination: PIXEL,
			},
			{ credentials: { leadCapiRedisApi: credentials.redis } },
		);
		// The CRM's later stage says only the stage: no creation time, no previous stage.
		const later = ['f-10', 'f-40', 'f-unknown'].map((id) => ({ record_id: id, stage: 'Qualified', stage_at: hoursAgo(1) }));
		instance.importWorkflow(workflow('e2eStageFilter02', later, filter));
		const result = await instance.execute('e2eStageFilter02');
		expect(result.status).toBe('success');
		expect(result.outputs.Filter).toBe(2);
		expect(result.nodes.Filter.map((j) => j.record_id)).toEqual(['f-10']);
		const runData = (result.raw as {
			data: { resultData: { runData: Record<string, Array<{ data: { main: Array<Array<{ json: Record<string, unknown> }>> } }>> } };
		}).data.resultData.runData;
		const skipped = runData.Filter[0].data.main[1].map((item) => item.json);
		expect(skipped.map((j) => [j.record_id, (j.lead_filter as { stage_ledger: string }).stage_ledger])).toEqual([
			['f-40', 'found'],
			['f-unknown', 'unknown'],
		]);
	});

	it('Google: the lead conversion, then From Lead Stage with the original from the stage ledger: one restatement, one retraction, across re-runs', async () => {
		const leads = [at('g-won', 'Lead', 50), at('g-lost', 'Lead', 50)].map((r) => {
			const { stage: _s, stage_at: _t, ...lead } = r;
			void _s;
			void _t;
			return lead;
		});
		instance.importWorkflow(workflow('e2eStageGoogle01', leads, googleNode({})));
		instance.importWorkflow(
			workflow(
				'e2eStageGoogle02',
				[
					at('g-won', 'Won', 1, { value: { amount: 1800, currency: 'USD' } }),
					at('g-lost', 'Lost', 1),
					at('g-other', 'Booked', 1),
				],
				googleNode({ operation: 'adjust', adjustment: 'fromStage', originalEvent: 'ledger' }),
			),
		);
		expect((await run('e2eStageGoogle01', 'Google')).map((j) => j.status)).toEqual(['sent', 'sent']);
		const adjusted = await run('e2eStageGoogle02', 'Google');
		expect(adjusted.map((j) => [j.status, j.adjustment ?? null])).toEqual([
			['sent', 'restatement'],
			['sent', 'retraction'],
			['skipped', null],
		]);
		const again = await run('e2eStageGoogle02', 'Google');
		expect(again.map((j) => j.status)).toEqual(['duplicate', 'duplicate', 'skipped']);
		expect((await run('e2eStageGoogle01', 'Google')).map((j) => j.status)).toEqual(['duplicate', 'duplicate']);
		expect(
			ads.adjustments.map((a: { adjustment: Record<string, unknown> }) => [
				a.adjustment.adjustmentType,
				a.adjustment.orderId,
			]),
		).toEqual([
			['RESTATEMENT', sha(`${ACTION}|lead|g-won`)],
			['RETRACTION', sha(`${ACTION}|lead|g-lost`)],
		]);
	});
});
