import { createHash, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { captureTrigger, chain, n8nWithPackage, node, until, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-token-${randomUUID()}`;
const CRM_PIXEL = '111122223333444';
const SHARED_PIXEL = '555566667777888';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;
interface Received {
	pixelId: string;
	event: { event_id: string; event_name: string };
}

/**
 * Issue 12 points 4 and 5 in a real n8n: snowflake record ids from a CRM webhook, two clients
 * sharing a pixel, and two workflows whose triggers would once have shared a capture log.
 */
describe('ids that survive parsing and tenant-safe defaults in a real n8n', () => {
	let standIn: StandIn;
	let instance: N8nInstance;
	let admin: Redis;
	const keyPrefix = `e2e-ids-${randomUUID().slice(0, 8)}`;
	const meta = { id: 'e2eIdsMetaCred01', name: 'Meta (stand-in)' };
	const shared = { id: 'e2eIdsMetaCred02', name: 'Shared pixel (stand-in)' };
	const redis = { id: 'e2eIdsRedisCred1', name: 'Dedup Redis' };

	const sender = (credential: { id: string; name: string }, clientKey = '') =>
		node(
			'Meta Conversions',
			`${PKG}.metaConversions`,
			1,
			[440, 0],
			{ event: 'fromState', actionSource: 'auto', leadInput: 'record', dedupStore: 'redis', options: clientKey ? { clientKey } : {} },
			{ credentials: { leadCapiMetaApi: credential, leadCapiRedisApi: redis } },
		);
	/** A generic, unsigned webhook → Meta workflow; with `preview`, a manual preview branch too. */
	const flow = (
		id: string,
		path: string,
		credential: { id: string; name: string },
		settings: Record<string, unknown>,
		clientKey = '',
	) => ({
		id,
		name: `e2e ids: ${path}`,
		nodes: [
			captureTrigger('Webhook', { source: 'generic', path, authentication: 'none', captureLog: 'redis', settings: { ...settings, ...(clientKey ? { clientKey } : {}) } }, { leadCapiRedisApi: redis }),
			sender(credential, clientKey),
			node('Preview', 'n8n-nodes-base.manualTrigger', 1, [0, 260], {}),
			node(
				'Preview Rules',
				`${PKG}.leadRuleFilter`,
				1,
				[220, 260],
				{ operation: 'preview', sendMode: 'automatic_completed', captureLogName: String(settings.captureLogName ?? path), previewClientKey: clientKey, options: {} },
				{ credentials: { leadCapiRedisApi: redis } },
			),
		],
		connections: { ...chain('Webhook', 'Meta Conversions'), ...chain('Preview', 'Preview Rules') },
		settings: { executionOrder: 'v1' },
	});
	const flows = {
		crm: flow('e2eIdsCrmFlow001', 'e2e-ids-crm', meta, {}),
		acme: flow('e2eIdsAcmeFlow01', 'e2e-ids-acme', shared, {}, 'acme'),
		globex: flow('e2eIdsGlobexFlw1', 'e2e-ids-globex', shared, {}, 'globex'),
		// Two workflows without a Client Key whose triggers both keep the template's log name.
		siteA: flow('e2eIdsSiteAFlow1', 'e2e-ids-site-a', meta, { captureLogName: 'lead-capture' }),
		siteB: flow('e2eIdsSiteBFlow1', 'e2e-ids-site-b', meta, { captureLogName: 'lead-capture' }),
	};

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		instance = await n8nWithPackage();
		instance.importCredentials([
			{ ...meta, type: 'leadCapiMetaApi', data: { pixelId: CRM_PIXEL, accessToken: TOKEN, baseUrl: standIn.url } },
			{ ...shared, type: 'leadCapiMetaApi', data: { pixelId: SHARED_PIXEL, accessToken: TOKEN, baseUrl: standIn.url } },
			{ ...redis, type: 'leadCapiRedisApi', data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix } },
		]);
		for (const workflow of Object.values(flows)) instance.importWorkflow(workflow, { activate: true });
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await standIn?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('three snowflake record ids → three events; two clients sharing a pixel → both delivered; two workflows never preview each other', async () => {
		const server = await instance.serve();
		const received = () => standIn.received as Received[];
		const post = (path: string, body: string) =>
			fetch(`${server.baseUrl}/webhook/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
		try {
			// 1. A CRM sends its ids as JSON numbers beyond 2^53.
			const snowflakes = ['1234567890123456789', '1234567890123456790', '1234567890123456791'];
			for (const [i, id] of snowflakes.entries()) {
				const res = await post('e2e-ids-crm', `{"id": ${id}, "email": "snow.${i}@example.com"}`);
				expect(await res.json()).toEqual({ ok: true, record_id: id, state: 'lead', leads: 1 });
			}
			const atCrmPixel = () => received().filter((r) => r.pixelId === CRM_PIXEL);
			await until(() => atCrmPixel().length === 3, 30_000, 'three events at the CRM pixel');
			expect(atCrmPixel().map((r) => r.event.event_id).sort()).toEqual(
				snowflakes.map((id) => sha(`${CRM_PIXEL}|Lead|${id}`)).sort(),
			);

			// 2. Two clients with Client Keys share one pixel; their CRMs number deals alike.
			for (const path of ['e2e-ids-acme', 'e2e-ids-globex']) {
				expect((await post(path, '{"id": "deal-42", "email": "pat@example.com"}')).status).toBe(200);
			}
			const atShared = () => received().filter((r) => r.pixelId === SHARED_PIXEL);
			await until(() => atShared().length === 2, 30_000, 'both clients’ events at the shared pixel');
			expect(new Set(atShared().map((r) => r.event.event_id))).toEqual(
				new Set([sha(`client:acme|${SHARED_PIXEL}|Lead|deal-42`), sha(`client:globex|${SHARED_PIXEL}|Lead|deal-42`)]),
			);

			// 3. Two workflows, no Client Key, one capture log name: each keeps its own log.
			for (let i = 0; i < 2; i++) expect((await post('e2e-ids-site-a', `{"id": "a-${i}", "email": "a${i}@example.com"}`)).status).toBe(200);
			for (let i = 0; i < 3; i++) expect((await post('e2e-ids-site-b', `{"id": "b-${i}", "email": "b${i}@example.com"}`)).status).toBe(200);
			await until(() => received().length === 3 + 2 + 5, 30_000, 'the site events');
		} finally {
			await server.stop();
		}
		const previewOf = async (workflowId: string) => {
			const run = await instance.execute(workflowId);
			expect(run.status).toBe('success');
			return run.nodes['Preview Rules'][0];
		};
		expect(await previewOf(flows.siteA.id)).toMatchObject({ capture_log: 'lead-capture', considered: 2 });
		expect(await previewOf(flows.siteB.id)).toMatchObject({ capture_log: 'lead-capture', considered: 3 });
		expect(await previewOf(flows.acme.id)).toMatchObject({ considered: 1 });
	});

	it('a Client Key with a space is a configuration error: the workflow does not go live, n8n says why', async () => {
		// A Client Key with a space: once a warning while the capture log silently stopped.
		const bad = flow('e2eIdsBadKeyFlw1', 'e2e-ids-bad-key', meta, {}, 'acme corp');
		const reason = 'Options → Client Key: client key "acme corp" must be 1-64 letters, digits, dots, dashes or underscores';
		const before = (standIn.received as Received[]).length;
		// Activating it is refused with the trigger's reason (what the editor shows when the
		// workflow is switched on; n8n 2.x reports the failed publication with it).
		instance.importWorkflow(bad, { activate: true });
		await expect(instance.serve()).rejects.toThrow(reason);
		const server = await instance.serve();
		const res = await fetch(`${server.baseUrl}/webhook/e2e-ids-bad-key`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{"id": "k-1", "email": "k@example.com"}',
		});
		expect(res.status).not.toBe(200);
		await new Promise((r) => setTimeout(r, 1000));
		expect((standIn.received as Received[]).length).toBe(before);
	});
});
