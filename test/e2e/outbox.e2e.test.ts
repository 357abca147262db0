import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { chain, n8nWithPackage, node, until, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, DEMO, DESTINATIONS } = require('../../scripts/n8n/demo.js');

const REPO = path.join(__dirname, '..', '..');
const OUTBOX_KEY = DEMO.outboxKey;

/**
 * In a real n8n: leads sent while Meta answers 503 are queued (status `queued`), and the shipped
 * template's Outbox Trigger → Meta Conversions delivers every one once after Meta recovers —
 * nobody re-runs the lead executions. "Time passes" moves the queued entries' next try to now.
 */
describe('outbox in a real n8n', () => {
	let instance: N8nInstance;
	let platforms: Awaited<ReturnType<typeof startDemoPlatforms>>;
	let admin: Redis;
	const keyPrefix = `e2e-outbox-${randomUUID().slice(0, 8)}`;

	beforeAll(async () => {
		platforms = await startDemoPlatforms({ redisUrl: process.env.REDIS_URL, keyPrefix });
		instance = await n8nWithPackage();
		// The demo credentials include the Outbox Key (a random key), as `npm run dev` creates it.
		instance.importCredentials(platforms.credentials);
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('Meta down: each single-lead execution queues its lead; the template drains them once after recovery', async () => {
		const meta = platforms.standIns.meta;
		const credentials = {
			leadCapiMetaApi: DEMO.meta,
			leadCapiRedisApi: DEMO.redis,
			leadCapiOutboxApi: OUTBOX_KEY,
		};
		const queued: string[] = [];
		for (let i = 0; i < 3; i++) {
			const lead = {
				record_id: `e2e-outbox-${i}`,
				state: 'lead',
				occurred_at: new Date(Date.now() - 60_000).toISOString(),
				contact: { email: `e2e-outbox-${i}@example.de` },
			};
			const workflow = {
				id: `exOutboxLead00${i}`,
				name: `Outbox lead ${i}`,
				nodes: [
					node('When clicking ‘Execute workflow’', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
					node('Lead', 'n8n-nodes-base.code', 2, [220, 0], {
						jsCode: `return [{ json: ${JSON.stringify(lead)} }];`,
					}),
					node(
						'Meta Conversions',
						'n8n-nodes-lead-capi.metaConversions',
						1,
						[440, 0],
						{ event: 'Lead', leadInput: 'record', dedupStore: 'redis', options: {} },
						{ credentials, onError: 'continueRegularOutput' },
					),
				],
				connections: chain('When clicking ‘Execute workflow’', 'Lead', 'Meta Conversions'),
				settings: { executionOrder: 'v1' },
			};
			instance.importWorkflow(workflow);
			meta.queueFaults(
				Array.from({ length: 5 }, () => ({ status: 503, headers: { 'retry-after': '0' } })),
			);
			const run = await instance.execute(workflow.id);
			const [result] = run.nodes['Meta Conversions'];
			expect(result.status).toBe('queued');
			queued.push(String(result.event_id));
		}
		expect(meta.received).toHaveLength(0);

		// Time passes; Meta is back. The shipped template, its Outbox Trigger run once.
		const due = `${keyPrefix}:outbox:{meta:${DESTINATIONS.metaPixel}}:due`;
		for (const id of await admin.zrange(due, 0, -1)) await admin.zadd(due, 0, id);
		const template = JSON.parse(
			fs.readFileSync(path.join(REPO, 'examples', 'retry-and-dead-letters.json'), 'utf8'),
		);
		template.nodes = template.nodes.filter(
			(n: { name: string }) => !['Every Morning', 'Dead Letter Summary'].includes(n.name),
		);
		delete template.connections['Every Morning'];
		// Activated as shipped (polls every minute) in a running n8n: nobody runs anything.
		instance.importWorkflow(template, { activate: true });
		const server = await instance.serve();
		try {
			await until(
				() => meta.received.length >= 3,
				150_000,
				'the Outbox Trigger to drain the 3 queued leads',
			);
			await until(
				async () => (await admin.zcard(due)) === 0,
				30_000,
				'the delivered entries to leave the outbox',
			);
		} finally {
			await server.stop();
		}
		expect(
			meta.received
				.map((r: Record<string, unknown>) => (r.event as { event_id: string }).event_id)
				.sort(),
		).toEqual(queued.sort());
		expect(await admin.zcard(due)).toBe(0);
	});
});
