import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { n8nWithPackage, type ItemJson, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, DESTINATIONS, DEMO } = require('../../scripts/n8n/demo.js');

const REPO = path.join(__dirname, '..', '..');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const readExample = (name: string) => JSON.parse(fs.readFileSync(path.join(REPO, 'examples', name), 'utf8'));

type DemoPlatforms = Awaited<ReturnType<typeof startDemoPlatforms>>;
interface StandIn {
	received: Array<Record<string, unknown>>;
}

/** The example workflows as shipped, run in a real n8n against the same local parts `npm run dev` uses. */
describe('example workflows in a real n8n', () => {
	let instance: N8nInstance;
	let platforms: DemoPlatforms;
	let admin: Redis;
	const keyPrefix = `e2e-examples-${randomUUID().slice(0, 8)}`;

	beforeAll(async () => {
		platforms = await startDemoPlatforms({ redisUrl: process.env.REDIS_URL, keyPrefix });
		instance = await n8nWithPackage();
		instance.importCredentials(platforms.credentials);
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('meta-leads-from-records: three leads sent, then three duplicates', async () => {
		const workflow = readExample('meta-leads-from-records.json');
		instance.importWorkflow(workflow);
		const first = await instance.execute(workflow.id);
		expect(first.status).toBe('success');
		expect(first.nodes['Meta Conversions'].map((j) => j.status)).toEqual(['sent', 'sent', 'sent']);
		const again = await instance.execute(workflow.id);
		expect(again.nodes['Meta Conversions'].map((j) => j.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(platforms.standIns.meta.received).toHaveLength(3);
	});

	it('pinterest-leads-from-state: every state under its own event, once', async () => {
		const workflow = readExample('pinterest-leads-from-state.json');
		instance.importWorkflow(workflow);
		const first = await instance.execute(workflow.id);
		expect(first.status).toBe('success');
		expect(first.nodes['Pinterest Conversions'].map((j) => [j.status, j.event_name])).toEqual([
			['sent', 'custom:partial_lead'],
			['sent', 'lead'],
			['sent', 'custom:schedule'],
		]);
		const again = await instance.execute(workflow.id);
		expect(again.nodes['Pinterest Conversions'].map((j) => j.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(platforms.standIns.pinterest.received).toHaveLength(3);
	});

	it('fanout-one-lead-five-platforms: one lead reaches all five platforms once (Google through an OAuth2 refresh); a re-run sends nothing new anywhere', async () => {
		const { standIns } = platforms;
		const before = Object.fromEntries(
			Object.entries(standIns).map(([name, s]) => [name, (s as StandIn).received.length]),
		);
		// The seeded Google access token is expired: n8n must refresh it through the token URL.
		standIns.google.expireAccessToken();
		const workflow = readExample('fanout-one-lead-five-platforms.json');
		instance.importWorkflow(workflow);
		const first = await instance.execute(workflow.id);
		expect(first.status).toBe('success');
		const senders = ['Meta Conversions', 'Pinterest Conversions', 'TikTok Events', 'Google Ads Conversions', 'Microsoft Conversions'];
		const results: Record<string, ItemJson> = Object.fromEntries(senders.map((name) => [name, first.nodes[name][0]]));
		for (const name of senders) expect([name, results[name].status]).toEqual([name, 'sent']);
		expect(standIns.google.refreshes()).toBeGreaterThanOrEqual(1);

		const newEvents = (name: string) => (standIns[name] as StandIn).received.slice(before[name]);
		const payloads = {
			meta: newEvents('meta').map((r) => r.event),
			pinterest: newEvents('pinterest').map((r) => r.event),
			tiktok: newEvents('tiktok'),
			google: newEvents('google'),
			microsoft: newEvents('microsoft'),
		};
		for (const [name, list] of Object.entries(payloads)) expect([name, list.length]).toEqual([name, 1]);

		// Same lead, one id formula, each platform's own destination and event name.
		const recordId = 'demo-deal-5001';
		expect(results['Meta Conversions'].event_id).toBe(sha(`${DESTINATIONS.metaPixel}|Lead|${recordId}`));
		expect(results['Pinterest Conversions'].event_id).toBe(sha(`${DESTINATIONS.pinterestAdAccount}|lead|${recordId}`));
		expect(results['TikTok Events'].event_id).toBe(sha(`${DESTINATIONS.tiktokPixel}|SubmitForm|${recordId}`));
		expect(results['Microsoft Conversions'].event_id).toBe(sha(`${DESTINATIONS.microsoftTag}|lead|${recordId}`));
		expect(results['Google Ads Conversions'].event_id).toBe(
			sha(`customers/${DESTINATIONS.googleCustomer}/conversionActions/${DESTINATIONS.googleConversionAction}|lead|${recordId}`),
		);

		// The normalizer shows what the senders send.
		const identity = first.nodes['Identity Normalizer'][0].identity as {
			platforms: Record<string, { user_data: unknown; match_keys: string[]; match_quality: { score: number } }>;
			normalized: Record<string, string[]>;
		};
		expect(Object.keys(identity.platforms).sort()).toEqual(['google', 'meta', 'microsoft', 'pinterest', 'tiktok']);
		expect(identity.normalized.email).toEqual(['jordan.lee@example.com']);
		expect(identity.platforms.meta.user_data).toMatchObject({ em: sha('jordan.lee@example.com'), ph: sha('14155552671') });
		expect(identity.platforms.meta.match_keys).toEqual(results['Meta Conversions'].match_keys);
		for (const p of Object.values(identity.platforms)) expect(p.match_quality.score).toBeGreaterThan(0);

		fs.mkdirSync(path.join(REPO, '.e2e'), { recursive: true });
		fs.writeFileSync(path.join(REPO, '.e2e', 'fanout-payloads.json'), JSON.stringify({ payloads, identity }, null, 2));

		const again = await instance.execute(workflow.id);
		expect(again.status).toBe('success');
		for (const name of senders) expect([name, again.nodes[name][0].status]).toEqual([name, 'duplicate']);
		for (const [name, list] of Object.entries(payloads)) {
			expect([name, (standIns[name] as StandIn).received.length - before[name]]).toEqual([name, list.length]);
		}
	});

	it('reports per destination what the senders sent, with match keys (Identity Normalizer: Health Report)', async () => {
		const workflow = {
			id: 'e2eHealthReport1',
			name: 'e2e: health report',
			nodes: [
				{ id: randomUUID(), name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: randomUUID(),
					name: 'Health Report',
					type: 'n8n-nodes-lead-capi.identityNormalizer',
					typeVersion: 1,
					position: [220, 0],
					// A report workflow of its own: the senders are in other workflows, without a Client Key.
					parameters: { operation: 'report', store: 'redis', hours: 24, unkeyedScope: 'all', platforms: ['google', 'meta', 'microsoft', 'pinterest', 'tiktok'] },
					credentials: { leadCapiRedisApi: { id: DEMO.redis.id, name: DEMO.redis.name } },
				},
			],
			connections: { Start: { main: [[{ node: 'Health Report', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(workflow);
		const run = await instance.execute(workflow.id);
		expect(run.status).toBe('success');
		const report = run.nodes['Health Report'] as Array<{ platform: string; destination: string; sent: number; duplicate: number; match_keys: Record<string, { share: number }>; match_quality: number }>;
		// The earlier tests of this file sent through every platform, then re-ran (duplicates).
		expect(report.map((r) => r.platform).sort()).toEqual(['google', 'meta', 'microsoft', 'pinterest', 'tiktok']);
		for (const r of report) {
			expect([r.platform, r.sent > 0, r.duplicate > 0]).toEqual([r.platform, true, true]);
			expect(r.match_quality).toBeGreaterThan(0);
		}
		const meta = report.find((r) => r.platform === 'meta')!;
		expect(meta).toMatchObject({ destination: DESTINATIONS.metaPixel, sent: 4, duplicate: 4 });
		expect(meta.match_keys.em.share).toBe(1);
		fs.writeFileSync(path.join(REPO, '.e2e', 'health-report.json'), JSON.stringify(report, null, 2));
	});

	it("every platform's credential test passes with good values and fails, without echoing them, with bad ones", async () => {
		const server = await instance.serve();
		try {
			const test = (credential: { id: string; name: string; type: string; data: Record<string, unknown> }) =>
				server.testCredential(credential);
			const byType = (type: string) =>
				(platforms.credentials as Array<{ id: string; name: string; type: string; data: Record<string, unknown> }>).find((c) => c.type === type)!;
			const cases: Array<[string, string]> = [
				['leadCapiMetaApi', 'accessToken'],
				['leadCapiPinterestApi', 'accessToken'],
				['leadCapiTiktokApi', 'accessToken'],
				['leadCapiMicrosoftApi', 'apiToken'],
				['leadCapiGoogleAdsOAuth2Api', 'developerToken'],
			];
			// The platform's own reason reaches the user, not n8n's generic "Bad request" (Google's
			// OAuth2 credential can only have n8n's declarative test, which shows n8n's words).
			const reasons: Record<string, RegExp> = {
				leadCapiMetaApi: /^Meta: Invalid OAuth access token - Cannot parse access token \[code 190/,
				leadCapiPinterestApi: /Authentication failed/,
				leadCapiTiktokApi: /^TikTok: Access token is incorrect or has been revoked\..*\[code 40105/,
				leadCapiMicrosoftApi: /^Microsoft: Authorization failed/,
			};
			const results: Record<string, [string, string]> = {};
			for (const [type, secretField] of cases) {
				const credential = byType(type);
				const good = await test(credential);
				const wrongSecret = `wrong-${secretField}-0123456789`;
				const bad = await test({ ...credential, data: { ...credential.data, [secretField]: wrongSecret } });
				results[type] = [good.data.status, bad.data.status];
				expect(JSON.stringify(bad)).not.toContain(wrongSecret);
				if (reasons[type]) expect({ type, message: bad.data.message }).toEqual({ type, message: expect.stringMatching(reasons[type]) });
			}
			expect(results).toEqual(Object.fromEntries(cases.map(([type]) => [type, ['OK', 'Error']])));
		} finally {
			await server.stop();
		}
	});
});
