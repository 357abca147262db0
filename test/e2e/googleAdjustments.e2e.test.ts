import { createHash, randomUUID } from 'node:crypto';
import { chain, n8nWithPackage, node, type N8nInstance } from './n8n';
/* eslint-disable @typescript-eslint/no-require-imports */
const { startGoogleStandIn } = require('../standins/google.js');
const { startGoogleDataManagerStandIn } = require('../standins/googleDataManager.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/*
 * Conversion adjustments in a real n8n: a lead's later "lost" retracts its conversion through the
 * Google Ads API (uploadConversionAdjustments, allow-listed developer tokens) exactly once, its
 * "won for $X" restates it exactly once (Google Ads API and Data Manager), a re-run sends nothing,
 * an adjustment past Google's window is refused with the reason, and the Identity Normalizer's
 * Health Report shows the Data Manager request ids with the status read.
 */
const PKG = 'n8n-nodes-lead-capi';
const ACCOUNT = '1234567890';
const ACTION_ID = '987654321';
const ACTION = `customers/${ACCOUNT}/conversionActions/${ACTION_ID}`;
const DEVELOPER_TOKEN = 'dev-token-e2e-adjust-0123456789';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const orderIdOf = (recordId: string) => sha(`${ACTION}|lead|${recordId}`);

describe('Google Ads conversion adjustments in a real n8n', () => {
	let ads: Awaited<ReturnType<typeof startGoogleStandIn>>;
	let dm: Awaited<ReturnType<typeof startGoogleDataManagerStandIn>>;
	let instance: N8nInstance;
	const keyPrefix = `e2e-gadj-${randomUUID().slice(0, 8)}`;
	const adjustmentUploads = () =>
		ads.requests.filter((r: { path: string }) => r.path.endsWith(':uploadConversionAdjustments'));

	const credentials = {
		ads: { id: 'e2eGAdjAdsCred01', name: 'Google Ads (loopback stand-in)' },
		dm: { id: 'e2eGAdjDmCred001', name: 'Google Data Manager (loopback stand-in)' },
		redis: { id: 'e2eGAdjRedis0001', name: 'Dedup Redis' },
	};

	/** The Google Ads Conversions node (version 2) on either API. */
	const googleNode = (
		name: string,
		api: 'googleAdsApi' | 'dataManager',
		parameters: Record<string, unknown>,
		x = 600,
	) =>
		node(
			name,
			`${PKG}.googleAdsConversions`,
			2,
			[x, 0],
			{
				api,
				customerId: '123-456-7890',
				...(api === 'googleAdsApi'
					? { conversionAction: { __rl: true, mode: 'id', value: ACTION_ID } }
					: { conversionActionId: ACTION_ID }),
				event: 'fromState',
				leadInput: 'record',
				dedupStore: 'redis',
				options: {},
				...parameters,
			},
			{
				credentials: {
					...(api === 'googleAdsApi'
						? { leadCapiGoogleAdsOAuth2Api: credentials.ads }
						: { leadCapiGoogleDataManagerOAuth2Api: credentials.dm }),
					leadCapiRedisApi: credentials.redis,
				},
				onError: 'continueRegularOutput',
			},
		);

	const workflow = (id: string, records: unknown[], ...after: ReturnType<typeof node>[]) => ({
		id,
		name: `e2e: Google adjustments (${id})`,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
			node('Leads', 'n8n-nodes-base.set', 3.4, [200, 0], {
				mode: 'raw',
				jsonOutput: JSON.stringify({ leads: records }),
				options: {},
			}),
			node('Split Leads', 'n8n-nodes-base.splitOut', 1, [400, 0], {
				fieldToSplitOut: 'leads',
				options: {},
			}),
			...after,
		],
		connections: chain('Start', 'Leads', 'Split Leads', ...after.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
	});
	const run = async (wf: ReturnType<typeof workflow>, nodeName = 'Google') => {
		const result = await instance.execute(wf.id);
		expect(result.status).toBe('success');
		return result.nodes[nodeName];
	};

	beforeAll(async () => {
		ads = await startGoogleStandIn({
			developerToken: DEVELOPER_TOKEN,
			timeZone: 'America/Chicago',
		});
		dm = await startGoogleDataManagerStandIn({ accounts: { [ACCOUNT]: [ACTION_ID] } });
		instance = await n8nWithPackage();
		instance.importCredentials([
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
				...credentials.dm,
				type: 'leadCapiGoogleDataManagerOAuth2Api',
				data: {
					clientId: dm.clientId,
					clientSecret: dm.clientSecret,
					accessTokenUrl: dm.tokenUrl,
					baseUrl: dm.url,
					oauthTokenData: {
						access_token: dm.accessToken(),
						refresh_token: dm.refreshToken,
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
		await ads?.close();
		await dm?.close();
	});

	it("Google Ads API: a lead's 'lost' gives exactly one retraction, 'won for $X' exactly one restatement; re-runs send nothing", async () => {
		const lead = (id: string) => ({
			record_id: id,
			state: 'lead',
			occurred_at: hoursAgo(30),
			click: { gclid: `Cj0KCQiA-${id}` },
			contact: { email: `${id}@example.com` },
		});
		const send = workflow(
			'e2eGAdjSend00001',
			[lead('lost-1'), lead('won-1')],
			googleNode('Google', 'googleAdsApi', {}),
		);
		const retract = workflow(
			'e2eGAdjRetract01',
			[{ ...lead('lost-1'), state: 'lost', occurred_at: hoursAgo(1) }],
			googleNode('Google', 'googleAdsApi', {
				operation: 'adjust',
				adjustment: 'retraction',
				originalEvent: 'lead',
			}),
		);
		const restate = workflow(
			'e2eGAdjRestate01',
			[
				{
					...lead('won-1'),
					state: 'purchase',
					occurred_at: hoursAgo(1),
					value: { amount: 1800, currency: 'usd' },
				},
			],
			googleNode('Google', 'googleAdsApi', {
				operation: 'adjust',
				adjustment: 'restatement',
				originalEvent: 'lead',
			}),
		);
		for (const wf of [send, retract, restate]) instance.importWorkflow(wf);

		expect((await run(send)).map((j) => j.status)).toEqual(['sent', 'sent']);
		expect((await run(retract))[0]).toMatchObject({
			status: 'sent',
			adjustment: 'retraction',
			event_name: 'retraction:lead',
		});
		expect((await run(restate))[0]).toMatchObject({ status: 'sent', adjustment: 'restatement' });
		expect((await run(retract))[0]).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
		expect((await run(restate))[0]).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });

		expect(
			ads.adjustments.map((a: { adjustment: Record<string, unknown> }) => [
				a.adjustment.adjustmentType,
				a.adjustment.orderId,
				a.adjustment.restatementValue ?? null,
			]),
		).toEqual([
			['RETRACTION', orderIdOf('lost-1'), null],
			['RESTATEMENT', orderIdOf('won-1'), { adjustedValue: 1800, currencyCode: 'USD' }],
		]);
		expect(adjustmentUploads()).toHaveLength(2);
		expect(
			adjustmentUploads().every((r: { partialFailure: unknown }) => r.partialFailure === true),
		).toBe(true);
	});

	it('an adjustment past the 54-day window is skipped with the reason and never sent', async () => {
		const old = {
			record_id: 'old-1',
			state: 'lost',
			occurred_at: hoursAgo(1),
			contact: { email: 'old-1@example.com' },
		};
		ads.seedConversions([
			{
				conversionAction: ACTION,
				orderId: orderIdOf('old-1'),
				conversionDateTime: '2026-01-05 10:00:00-06:00',
			},
		]);
		const before = adjustmentUploads().length;
		const wf = workflow(
			'e2eGAdjWindow001',
			[old],
			googleNode('Google', 'googleAdsApi', {
				operation: 'adjust',
				adjustment: 'retraction',
				originalEvent: 'lead',
				conversionTime: new Date(Date.now() - 60 * 86_400_000).toISOString(),
			}),
		);
		instance.importWorkflow(wf);
		const [result] = await run(wf);
		expect(result).toMatchObject({ status: 'skipped' });
		expect(String(result.error)).toMatch(
			/^the conversion is 60 days old: Google takes adjustments only up to 54 days/,
		);
		expect(adjustmentUploads()).toHaveLength(before);
	});

	it("Data Manager: 'won for $X' restates once, 'lost' names the API that can retract; the Health Report shows the request ids", async () => {
		const lead = {
			record_id: 'dm-1',
			state: 'lead',
			occurred_at: hoursAgo(5),
			contact: { email: 'dm-1@example.com' },
		};
		const send = workflow('e2eGAdjDmSend001', [lead], googleNode('Google', 'dataManager', {}));
		const restate = workflow(
			'e2eGAdjDmRestat1',
			[
				{
					...lead,
					state: 'purchase',
					occurred_at: hoursAgo(1),
					value: { amount: 900, currency: 'usd' },
				},
			],
			googleNode('Google', 'dataManager', {
				operation: 'adjust',
				adjustment: 'restatement',
				originalEvent: 'lead',
			}),
		);
		const retract = workflow(
			'e2eGAdjDmRetrac1',
			[{ ...lead, state: 'lost', occurred_at: hoursAgo(1) }],
			googleNode('Google', 'dataManager', {
				operation: 'adjust',
				adjustment: 'retraction',
				originalEvent: 'lead',
			}),
		);
		for (const wf of [send, restate, retract]) instance.importWorkflow(wf);
		const sent = await run(send);
		expect(sent[0].status).toBe('sent');
		const requestId = (sent[0].response as { request_id: string }).request_id;
		expect((await run(restate))[0]).toMatchObject({ status: 'sent', adjustment: 'restatement' });
		expect((await run(restate))[0]).toMatchObject({ status: 'duplicate' });
		const refused = (await run(retract))[0];
		expect(refused).toMatchObject({ status: 'skipped', adjustment: 'retraction' });
		expect(String(refused.error)).toContain('Google Ads API (Allow-Listed Developer Tokens)');
		expect(dm.received.map((r: { kind: string }) => r.kind)).toEqual(['new', 'restatement']);

		const status = workflow(
			'e2eGAdjDmStatus1',
			[{ request_id: requestId }],
			node(
				'Status',
				`${PKG}.googleAdsConversions`,
				2,
				[600, 0],
				{
					api: 'dataManager',
					operation: 'getRequestStatus',
					requestId: '={{ $json.request_id }}',
					dedupStore: 'redis',
				},
				{
					credentials: {
						leadCapiGoogleDataManagerOAuth2Api: credentials.dm,
						leadCapiRedisApi: credentials.redis,
					},
				},
			),
			node(
				'Health Report',
				`${PKG}.identityNormalizer`,
				1,
				[800, 0],
				{ operation: 'report', platforms: ['google'], store: 'redis', hours: 24, unkeyedScope: 'all' },
				{
					credentials: { leadCapiRedisApi: credentials.redis },
				},
			),
		);
		instance.importWorkflow(status);
		const result = await instance.execute(status.id);
		expect(result.status).toBe('success');
		expect(result.nodes['Status'][0]).toMatchObject({
			request_id: requestId,
			request_status: 'SUCCESS',
		});
		const report = result.nodes['Health Report'].find((j) => j.destination === ACTION);
		expect(report?.requests).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ request_id: requestId, events: 1, status: 'SUCCESS' }),
			]),
		);
		expect(JSON.stringify(result.nodes['Health Report'])).not.toMatch(/@example\.com/);
	});
});
