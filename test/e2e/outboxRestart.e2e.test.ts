import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { captureTrigger, chain, n8nWithPackage, node, until, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, DEMO, DESTINATIONS } = require('../../scripts/n8n/demo.js');

const REPO = path.join(__dirname, '..', '..');
const OUTBOX_KEY = { id: 'demoOutboxKey001', name: 'Outbox Key' };
const LEADS = 20;
/** The transport's attempts per send (Meta answers each with 503 while it is down). */
const ATTEMPTS_PER_RUN = 5;
const WORKFLOW_ID = 'e2eOutboxRestart1';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

interface ExecutionSummary {
	id: string;
	status: string;
	mode?: string;
	workflowId?: string;
}

/**
 * n8n restarted with entries queued, in a real n8n: a webhook workflow (Lead Capture Trigger →
 * Meta Conversions) queues each lead while Meta answers 503; n8n is SIGKILLed with them queued
 * (the shipped drain template active all along); Meta recovers; n8n starts again and its Outbox
 * Trigger delivers every lead once, without anyone re-running an execution. Figures in
 * .e2e/outbox-restart-figures-<n8n version>.json.
 */
describe('outbox across an n8n restart', () => {
	let instance: N8nInstance;
	let platforms: Awaited<ReturnType<typeof startDemoPlatforms>>;
	let admin: Redis;
	const keyPrefix = `e2e-outbox-restart-${randomUUID().slice(0, 8)}`;
	const credentials = {
		leadCapiMetaApi: DEMO.meta,
		leadCapiRedisApi: DEMO.redis,
		leadCapiOutboxApi: OUTBOX_KEY,
	};

	beforeAll(async () => {
		platforms = await startDemoPlatforms({ redisUrl: process.env.REDIS_URL, keyPrefix });
		instance = await n8nWithPackage({ own: 'n8n is SIGKILLed and started again' });
		instance.importCredentials([
			...platforms.credentials,
			{
				...OUTBOX_KEY,
				type: 'leadCapiOutboxApi',
				data: { secret: 'e2e-outbox-key-0123456789abcdef' },
			},
		]);
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it(`Meta down, ${LEADS} webhook leads queued, n8n SIGKILLed; started again after Meta recovered, the Outbox Trigger delivers each lead once`, async () => {
		const meta = platforms.standIns.meta;
		const leadsFlow = {
			id: WORKFLOW_ID,
			name: 'e2e: webhook leads → Meta (outbox on)',
			nodes: [
				captureTrigger(
					'Webhook',
					{
						source: 'generic',
						path: 'e2e-outbox-restart',
						authentication: 'none',
					},
					{},
				),
				node(
					'Meta Conversions',
					'n8n-nodes-lead-capi.metaConversions',
					1,
					[220, 0],
					{ event: 'Lead', leadInput: 'record', dedupStore: 'redis', options: {} },
					{ credentials, onError: 'continueRegularOutput' },
				),
			],
			connections: chain('Webhook', 'Meta Conversions'),
			settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
		};
		// The shipped drain template, active from the start (it polls every minute).
		const template = JSON.parse(
			fs.readFileSync(path.join(REPO, 'examples', 'retry-and-dead-letters.json'), 'utf8'),
		);
		template.nodes = template.nodes.filter(
			(n: { name: string }) => !['Every Morning', 'Dead Letter Summary'].includes(n.name),
		);
		delete template.connections['Every Morning'];
		instance.importWorkflow(leadsFlow, { activate: true });
		instance.importWorkflow(template, { activate: true });

		// Meta is down: every request answered 503 until it recovers.
		meta.queueFaults(
			Array.from({ length: LEADS * ATTEMPTS_PER_RUN * 20 }, () => ({
				status: 503,
				headers: { 'retry-after': '0' },
			})),
		);
		const due = `${keyPrefix}:outbox:{meta:${DESTINATIONS.metaPixel}}:due`;
		const entries = `${keyPrefix}:outbox:{meta:${DESTINATIONS.metaPixel}}:entries`;
		const startedAt = Date.now();
		let server = await instance.serve();
		const firstStartMs = Date.now() - startedAt;
		const listExecutions = (s: typeof server): Promise<ExecutionSummary[]> => s.executions(WORKFLOW_ID);
		const recordIds = Array.from({ length: LEADS }, (_, i) => `e2e-restart-${i}`);
		for (const [i, id] of recordIds.entries()) {
			const res = await fetch(`${server.baseUrl}/webhook/e2e-outbox-restart`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ id, email: `restart.${i}@example.de` }),
			});
			expect(res.status).toBe(200);
		}
		try {
			await until(
				async () => (await admin.hlen(entries)) === LEADS,
				180_000,
				`the ${LEADS} leads queued in the outbox`,
			);
		} catch (error) {
			// What the lead executions said, for the failure message.
			const runs = await listExecutions(server).catch(() => []);
			const outputs = await Promise.all(
				runs.slice(0, 3).map((e) => server.restGet(`/executions/${e.id}`).catch(String)),
			);
			await server.stop();
			throw new Error(
				`${(error as Error).message}: ${await admin.hlen(entries)} queued; executions ${JSON.stringify(
					runs.map((e) => e.status),
				)}; first ones ${JSON.stringify(outputs).slice(0, 4000)}`,
			);
		}
		await until(
			async () =>
				(await listExecutions(server)).filter((e) => e.status === 'success').length === LEADS,
			60_000,
			`${LEADS} finished lead executions`,
		);
		expect(meta.received).toHaveLength(0);

		// n8n dies with the leads queued (no shutdown at all).
		await server.kill('SIGKILL');
		const queuedAtKill = await admin.hlen(entries);
		// Meta recovers while n8n is down.
		meta.reset();
		expect(meta.pendingFaults()).toBe(0);

		const restartAt = Date.now();
		server = await instance.serve();
		const secondStartMs = Date.now() - restartAt;
		// Time passes (the backoff's next try, and the reservation of any drain the SIGKILL cut
		// short, 5 minutes): every queued entry is due now. Nothing else is touched.
		for (const id of await admin.zrange(due, 0, -1)) await admin.zadd(due, 0, id);
		let leadExecutions: ExecutionSummary[] = [];
		try {
			await until(
				() => meta.received.length >= LEADS,
				180_000,
				`the Outbox Trigger to deliver the ${LEADS} queued leads`,
			);
			await until(
				async () => (await admin.zcard(due)) === 0,
				30_000,
				'the delivered entries to leave the outbox',
			);
			// One more poll: nothing is sent again.
			await new Promise((r) => setTimeout(r, 65_000));
		} finally {
			leadExecutions = await listExecutions(server).catch(() => []);
			await server.stop();
		}
		const received = meta.received as Array<{ event: { event_id: string } }>;
		const ids = received.map((r) => r.event.event_id);
		const version = JSON.parse(
			fs.readFileSync(path.join(instance.home, 'node_modules', 'n8n', 'package.json'), 'utf8'),
		).version as string;
		const figures = {
			id: 'outbox-restart',
			order: 10,
			scenario: 'n8n killed with leads queued (outbox)',
			done: `${LEADS} leads, one webhook execution each, while Meta answers 503 (the shipped drain template active); SIGKILL of n8n with them queued; Meta recovers; n8n started again; the Outbox Trigger polls`,
			n8n: version,
			events: LEADS,
			queuedAtKill,
			signal: 'SIGKILL',
			leadExecutions: leadExecutions.length,
			leadExecutionsSucceeded: leadExecutions.filter((e) => e.status === 'success').length,
			rerun: leadExecutions.length - LEADS,
			deliveries: ids.length,
			distinctEventIds: new Set(ids).size,
			duplicates: ids.length - new Set(ids).size,
			lost: LEADS - new Set(ids).size,
			outboxLeft: await admin.zcard(due),
			deadLetters: await admin.hlen(`${keyPrefix}:outbox:{meta:${DESTINATIONS.metaPixel}}:dead`),
			firstStartSeconds: Math.round(firstStartMs / 100) / 10,
			restartSeconds: Math.round(secondStartMs / 100) / 10,
			details: '',
		};
		figures.details = `${queuedAtKill} queued at the kill; n8n back in ${figures.restartSeconds} s; ${figures.leadExecutions} lead executions, all before the kill.`;

		const out = path.join(REPO, '.e2e');
		fs.mkdirSync(out, { recursive: true });
		fs.writeFileSync(
			path.join(out, `outbox-restart-figures-${version}.json`),
			`${JSON.stringify(figures, null, 2)}\n`,
		);
		// eslint-disable-next-line no-console
		console.log(`outbox restart figures:\n${JSON.stringify(figures, null, 2)}`);

		expect(queuedAtKill).toBe(LEADS);
		// Nobody re-ran anything: the lead workflow ran once per webhook delivery, before the kill.
		expect(leadExecutions).toHaveLength(LEADS);
		expect(figures).toMatchObject({
			deliveries: LEADS,
			distinctEventIds: LEADS,
			outboxLeft: 0,
			deadLetters: 0,
		});
		expect([...ids].sort()).toEqual(
			recordIds.map((id) => sha(`${DESTINATIONS.metaPixel}|Lead|${id}`)).sort(),
		);
	});
});
