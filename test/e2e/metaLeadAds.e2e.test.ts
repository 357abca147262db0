import { createHmac, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { captureTrigger, chain, n8nWithPackage, node, until, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-token-${randomUUID()}`;
const APP_SECRET = `e2e-meta-app-secret-${randomUUID()}`;
const VERIFY_TOKEN = `e2e-verify-${randomUUID().slice(0, 8)}`;
const PIXEL = '135792468013579';

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;
interface Received {
	event: {
		event_name: string;
		event_time: number;
		action_source: string;
		user_data: Record<string, unknown>;
		custom_data: Record<string, unknown>;
	};
}

/** A leadgen delivery as Meta sends it: one Page entry, one change per lead. */
function leadgenDelivery(leads: Array<{ id: string; createdSeconds: number }>): string {
	return JSON.stringify({
		object: 'page',
		entry: [
			{
				id: '100000000000001',
				time: Math.floor(Date.now() / 1000),
				changes: leads.map((lead) => ({
					field: 'leadgen',
					value: {
						ad_id: '120200000000001',
						form_id: '5550001112223',
						leadgen_id: lead.id,
						created_time: lead.createdSeconds,
						page_id: '100000000000001',
						adgroup_id: '120200000000002',
					},
				})),
			},
		],
	});
}
const hubSignature = (body: string, secret = APP_SECRET) =>
	`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe("Meta's leadgen webhook → lead records → Meta Conversion Leads in a real n8n", () => {
	let standIn: StandIn;
	let instance: N8nInstance;
	let admin: Redis;
	const keyPrefix = `e2e-leadgen-${randomUUID().slice(0, 8)}`;
	const meta = { id: 'e2eLgMetaCred001', name: 'Meta (stand-in)' };
	const redis = { id: 'e2eLgRedisCred01', name: 'Dedup Redis' };
	const secret = { id: 'e2eLgSecretCr001', name: 'Meta app secret' };

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		instance = await n8nWithPackage();
		instance.importCredentials([
			{
				...meta,
				type: 'leadCapiMetaApi',
				data: { pixelId: PIXEL, accessToken: TOKEN, baseUrl: standIn.url },
			},
			{
				...redis,
				type: 'leadCapiRedisApi',
				data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix },
			},
			{ ...secret, type: 'leadCapiWebhookApi', data: { secret: APP_SECRET } },
		]);
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await standIn?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('answers the subscription check, sends each lead of a signed delivery once as a CRM event, and refuses unsigned ones', async () => {
		const flow = {
			id: 'e2eLeadgenFlow1',
			name: 'e2e: Meta leadgen → Conversion Leads',
			nodes: [
				captureTrigger(
					'Meta Lead Ads',
					{
						source: 'metaLeadAds',
						path: 'e2e-leadgen',
						authentication: 'signature',
						metaVerifyToken: VERIFY_TOKEN,
					},
					{ leadCapiWebhookApi: secret },
				),
				node(
					'Meta Conversions',
					`${PKG}.metaConversions`,
					1,
					[220, 0],
					{
						event: 'custom',
						customEventName: 'Lead Ads Lead',
						eventSource: 'crm',
						leadEventSource: 'n8n e2e CRM',
						leadInput: 'record',
						dedupStore: 'redis',
						options: {},
					},
					{ credentials: { leadCapiMetaApi: meta, leadCapiRedisApi: redis } },
				),
			],
			connections: chain('Meta Lead Ads', 'Meta Conversions'),
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(flow, { activate: true });
		const server = await instance.serve();
		try {
			const url = `${server.baseUrl}/webhook/e2e-leadgen`;
			const check = await fetch(
				`${url}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=8675309`,
			);
			expect(check.status).toBe(200);
			expect(await check.text()).toBe('8675309');
			const wrong = await fetch(
				`${url}?hub.mode=subscribe&hub.verify_token=guessed&hub.challenge=8675309`,
			);
			expect(wrong.status).toBe(403);

			const created = Math.floor(Date.now() / 1000) - 600;
			const body = leadgenDelivery([
				{ id: '1234567890123456', createdSeconds: created },
				{ id: '1234567890123457', createdSeconds: created + 5 },
			]);
			const post = (payload: string, signature?: string) =>
				fetch(url, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						...(signature ? { 'x-hub-signature-256': signature } : {}),
					},
					body: payload,
				});
			const first = await post(body, hubSignature(body));
			expect(first.status).toBe(200);
			expect(await first.json()).toMatchObject({
				ok: true,
				record_id: '1234567890123456',
				leads: 2,
			});
			const received = () => standIn.received as Received[];
			await until(() => received().length === 2, 30_000, 'both leads at Meta');
			expect(
				received()
					.map((r) => r.event.user_data.lead_id)
					.sort(),
			).toEqual(['1234567890123456', '1234567890123457']);
			for (const { event } of received()) {
				expect(event).toMatchObject({
					event_name: 'Lead Ads Lead',
					action_source: 'system_generated',
					custom_data: { event_source: 'crm', lead_event_source: 'n8n e2e CRM' },
				});
			}
			expect(
				received()
					.map((r) => r.event.event_time)
					.sort(),
			).toEqual([created, created + 5]);

			// Meta redelivers (it retries until it gets a 200): nothing new reaches Meta.
			expect((await post(body, hubSignature(body))).status).toBe(200);
			// Unsigned and wrongly signed deliveries: 401.
			expect((await post(body)).status).toBe(401);
			expect((await post(body, hubSignature(body, 'not-the-app-secret'))).status).toBe(401);
			await new Promise((r) => setTimeout(r, 3000));
			expect(received()).toHaveLength(2);
		} finally {
			await server.stop();
		}
	});
});
