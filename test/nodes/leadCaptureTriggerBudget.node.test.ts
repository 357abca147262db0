import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { IdentityNormalizer } from '../../nodes/IdentityNormalizer/IdentityNormalizer.node';
import { LeadCaptureTrigger } from '../../nodes/LeadCaptureTrigger/LeadCaptureTrigger.node';
import { getRedisClient, redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { CaptureLog } from '../../shared/captureLog';
import { startStandaloneRedis, type StandaloneRedis } from '../support/redisTopology';
import { runExecute } from './support/context';
import { startWebhookServer, type WebhookServer } from './support/webhookServer';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { hostileScriptBody } = require('../../bench/lib/hostileCapture.js');

const MB = 1024 * 1024;

/**
 * The public capture endpoint against a Redis a stranger tries to fill: hostile maximum-size
 * captures (250 KB, distinct forms and pages, 700 attributes, nested consent) posted to the
 * trigger's webhook are all answered 200 and start their executions, while the capture log in
 * Redis stays within the trigger's Capture Log Max Size; a Redis whose eviction policy could
 * drop the dedup markers is reported in n8n's log.
 */
describe('Lead Capture Trigger: hostile captures cannot fill Redis (own redis-server)', () => {
	const node = new LeadCaptureTrigger();
	let redis: StandaloneRedis;
	let server: WebhookServer;
	let credential: ICredentialDataDecryptedObject;

	beforeAll(async () => {
		redis = await startStandaloneRedis({ config: ['maxmemory 48mb', 'maxmemory-policy allkeys-lru'] });
		credential = { connection: 'url', url: redis.url, keyPrefix: 'hostile' };
		server = await startWebhookServer(node, {
			params: { path: 'lead-capture', source: 'script', captureLog: 'redis', settings: { captureLogMaxMb: 1 } },
			credentials: { leadCapiRedisApi: credential },
		});
	});
	afterAll(async () => {
		await server?.close();
		const { client } = getRedisClient(redisConfigFromCredentials(credential));
		client.disconnect();
		await redis?.stop();
	});

	it('400 hostile 250 KB captures: all answered 200 with an execution each; the log stays within 1 MB; the eviction risk is logged once', async () => {
		const admin = redis.admin();
		const before = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
		for (let i = 0; i < 400; i++) {
			const res = await fetch(server.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: hostileScriptBody(i),
			});
			expect(res.status).toBe(200);
		}
		expect(server.executions).toHaveLength(400);
		// The lead keeps everything it was sent; only its log entry is cut.
		expect(String(server.executions[399][0].json.source && (server.executions[399][0].json.source as { form_id: string }).form_id).length).toBeGreaterThan(20_000);

		const keys = await admin.keys('hostile:*');
		expect(keys).toEqual(['hostile:capturelog:workflow-test:lead-capture']);
		const log = new CaptureLog(getRedisClient(redisConfigFromCredentials(credential)).client, { key: keys[0] });
		const size = await log.size();
		expect(size.bytes).toBeLessThanOrEqual(MB);
		expect(Number(await admin.call('MEMORY', 'USAGE', keys[0], 'SAMPLES', '0'))).toBeLessThanOrEqual(MB);
		const after = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
		// Without the budget: 400 entries of ~210 KB (84 MB); the whole Redis grew by about the budget.
		expect(after - before).toBeLessThan(2 * MB);
		expect(await admin.pttl(keys[0])).toBeGreaterThan(0);

		const warnings = server.logs.filter((l) => l.level === 'warn').map((l) => l.message);
		expect(warnings.filter((w) => /maxmemory-policy is allkeys-lru/.test(w))).toHaveLength(1);
		expect(warnings.find((w) => /maxmemory-policy/.test(w))).toMatch(
			/^Lead Capture Trigger: Redis at 127\.0\.0\.1:\d+: maxmemory-policy is allkeys-lru with maxmemory 48\.0 MB: when Redis fills up it may evict the dedup "sent" markers/,
		);
		expect(warnings.filter((w) => /capture log not written/.test(w))).toEqual([]);
	}, 300_000);

	it('the Health Report on that Redis says the dedup markers can be evicted', async () => {
		const { outputs } = await runExecute(new IdentityNormalizer(), [{}], {
			params: { operation: 'report', store: 'redis', hours: 24, platforms: ['meta'] },
			credentials: { leadCapiRedisApi: credential },
		});
		expect(outputs[0].map((i) => i.json)).toEqual([
			{
				dedup_store: expect.stringMatching(/^Redis at 127\.0\.0\.1:\d+$/),
				maxmemory_policy: 'allkeys-lru',
				maxmemory: 48 * MB,
				markers_safe: false,
				warning: expect.stringMatching(/may evict the dedup "sent" markers .* Set maxmemory-policy to noeviction/),
			},
		]);
		expect(outputs[0][0].pairedItem).toEqual({ item: 0 });
	});
});
