import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { captureTrigger, chain, node, until } from './n8n';
/* eslint-disable @typescript-eslint/no-require-imports */
const n8n = require('../../scripts/n8n/n8n.js');
const { prepareQueueMode, executionsByWorker } = require('../../scripts/n8n/queue.js');
const { startMetaStandIn } = require('../standins/meta.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/*
 * The outbox drained by two workers at once, in n8n queue mode (1 main, 2 workers with one
 * job each at a time, PostgreSQL, Redis for Bull, the outbox and dedup): webhook leads are
 * queued with Deliver → Via Outbox; two drain workflows (Outbox Trigger → Meta Conversions, a
 * quarter of the events per poll each) poll at the same minute on main, and their executions
 * send on both workers while Meta answers slowly. Every queued event must reach Meta once.
 */

const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-token-${randomUUID()}`;
const PIXEL = '246813579024681';
const EVENTS = 100;
const WORKERS = 2;
/** Meta answers every request this late: the two drains' sends overlap. */
const META_LATENCY_MS = 4_000;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	startedAt: string;
	stoppedAt?: string;
}
interface Running {
	baseUrl: string;
	workers: Array<{ index: number; logFile: string }>;
	startupMs: number;
}

describe('the outbox drained by 2 workers at once in n8n queue mode', () => {
	let standIn: Awaited<ReturnType<typeof startMetaStandIn>>;
	let admin: Redis;
	let home: string;
	let userFolder: string;
	let queue: {
		env: Record<string, string>;
		start: (o?: object) => Promise<Running>;
		stop: () => Promise<void>;
	};
	let running: Running;
	let cookie: string;
	const keyPrefix = `e2e-qdrain-${randomUUID().slice(0, 8)}`;
	const meta = { id: 'e2eQDrainMetaCr1', name: 'Meta (stand-in)' };
	const redis = { id: 'e2eQDrainRedisC1', name: 'Redis' };
	const key = { id: 'e2eQDrainOutbox1', name: 'Outbox Key' };
	const senderCredentials = {
		leadCapiMetaApi: meta,
		leadCapiRedisApi: redis,
		leadCapiOutboxApi: key,
	};
	const sender = (parameters: Record<string, unknown> = {}) =>
		node(
			'Meta Conversions',
			`${PKG}.metaConversions`,
			1,
			[220, 0],
			{
				event: 'Lead',
				leadInput: 'record',
				dedupStore: 'redis',
				retryLater: 'outbox',
				options: {},
				...parameters,
			},
			{ credentials: senderCredentials, onError: 'continueRegularOutput' },
		);
	const leads = {
		id: 'e2eQDrainLeads01',
		name: 'e2e queue drain: webhook leads → Meta via outbox',
		nodes: [
			captureTrigger(
				'Webhook',
				{ source: 'generic', path: 'e2e-queue-drain', authentication: 'none' },
				{},
			),
			sender({ deliver: 'outbox' }),
		],
		connections: chain('Webhook', 'Meta Conversions'),
		settings: { executionOrder: 'v1' },
	};
	const drain = (id: string, name: string) => ({
		id,
		name,
		nodes: [
			node(
				'Lead CAPI Outbox Trigger',
				`${PKG}.leadCapiOutboxTrigger`,
				1,
				[0, 0],
				// Both drains poll at second 0 of every minute: "Every Minute" picks a random second per
				// workflow (n8n-workflow's toCronExpression), which can leave their executions apart.
				{
					pollTimes: { item: [{ mode: 'custom', cronExpression: '0 * * * * *' }] },
					platform: 'meta',
					maxEvents: EVENTS / 4,
				},
				{ credentials: { leadCapiRedisApi: redis, leadCapiOutboxApi: key } },
			),
			sender(),
		],
		connections: chain('Lead CAPI Outbox Trigger', 'Meta Conversions'),
		settings: { executionOrder: 'v1' },
	});
	const drains = [
		drain('e2eQDrainDrainA1', 'e2e queue drain A'),
		drain('e2eQDrainDrainB1', 'e2e queue drain B'),
	];

	const rest = async <T>(restPath: string): Promise<T> => {
		const res = await fetch(`${running.baseUrl}/rest${restPath}`, { headers: { cookie } });
		if (!res.ok) throw new Error(`GET /rest${restPath}: HTTP ${res.status} ${await res.text()}`);
		return ((await res.json()) as { data: T }).data;
	};
	const executionsOf = async (workflowId: string) => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		return (await rest<{ results: ExecutionSummary[] }>(`/executions?filter=${filter}&limit=100`))
			.results;
	};

	beforeAll(async () => {
		home = process.env.LEAD_CAPI_N8N_HOME || n8n.ensureN8n();
		const tgz = process.env.LEAD_CAPI_PACKAGE_TGZ;
		if (!tgz || !fs.existsSync(tgz)) {
			throw new Error('LEAD_CAPI_PACKAGE_TGZ is not set: run the suite with `npm run test:e2e`');
		}
		const redisUrl = process.env.REDIS_URL;
		if (!redisUrl) throw new Error('REDIS_URL is not set: the jest global setup did not run');
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		admin = adminRedis();
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-qdrain-'));
		queue = await prepareQueueMode({
			home,
			userFolder,
			redisUrl,
			workers: WORKERS,
			workerConcurrency: 1,
		});
		n8n.installPackage(userFolder, tgz);
		const write = (name: string, data: unknown) => {
			const file = path.join(userFolder, name);
			fs.writeFileSync(file, JSON.stringify(data, null, 2));
			return file;
		};
		n8n.importCredentials(
			home,
			queue.env,
			write('credentials.json', [
				{
					...meta,
					type: 'leadCapiMetaApi',
					data: { pixelId: PIXEL, accessToken: TOKEN, baseUrl: standIn.url },
				},
				{
					...redis,
					type: 'leadCapiRedisApi',
					data: { connection: 'url', url: redisUrl, keyPrefix },
				},
				{ ...key, type: 'leadCapiOutboxApi', data: { secret: 'e2e-queue-drain-outbox-key-0123' } },
			]),
		);
		for (const workflow of [leads, ...drains]) {
			n8n.importWorkflow(home, queue.env, write(`${workflow.id}.json`, workflow), {
				activate: true,
			});
		}
		running = await queue.start({ timeoutMs: 420_000 });
		cookie = await n8n.ownerSession(running.baseUrl, {
			email: 'e2e@example.com',
			password: 'E2e-Passw0rd-not-secret',
		});
		if (typeof n8n.waitForActiveWorkflows === 'function') {
			await n8n.waitForActiveWorkflows(running.baseUrl, cookie, { timeoutMs: 120_000 });
		}
	}, 600_000);

	afterAll(async () => {
		let cleanupError: unknown;
		await queue?.stop().catch((error) => (cleanupError = error));
		await standIn?.close();
		if (admin) {
			await dropPrefix(admin, keyPrefix).catch(() => undefined);
			admin.disconnect();
		}
		if (userFolder && !process.env.LEAD_CAPI_E2E_KEEP)
			fs.rmSync(userFolder, { recursive: true, force: true });
		if (cleanupError) throw cleanupError;
	}, 120_000);

	it(`${EVENTS} queued events drained by two workflows' executions on 2 workers at once: each delivered once`, async () => {
		const due = `${keyPrefix}:outbox:{meta:${PIXEL}}:due`;
		const recordIds = Array.from({ length: EVENTS }, (_, i) => `qdrain-${i}`);
		// Leads arrive while the drains poll: whatever a poll finds is sent; Meta is slow throughout.
		standIn.setLatency(META_LATENCY_MS);
		// Fire just after a poll (second 0), so that most leads are queued by the next one and both
		// drains find entries at the same moment.
		await new Promise((r) => setTimeout(r, ((61 - new Date().getSeconds()) % 60) * 1000));
		const fired = Date.now();
		for (let i = 0; i < EVENTS; i += 10) {
			const answers = await Promise.all(
				recordIds.slice(i, i + 10).map((id, j) =>
					fetch(`${running.baseUrl}/webhook/e2e-queue-drain`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ id, email: `drain.${i + j}@example.co.uk` }),
					}).then((r) => r.status),
				),
			);
			expect(answers).toEqual(Array(answers.length).fill(200));
		}
		await until(() => standIn.received.length >= EVENTS, 300_000, `${EVENTS} events at Meta`);
		await until(async () => (await admin.zcard(due)) === 0, 60_000, 'the outbox to empty');
		let drainRuns: ExecutionSummary[] = [];
		await until(
			async () => {
				drainRuns = (await Promise.all(drains.map((d) => executionsOf(d.id)))).flat();
				return drainRuns.length > 0 && drainRuns.every((e) => FINISHED.has(e.status));
			},
			120_000,
			'the drain executions to finish',
		);
		const leadRuns = await executionsOf(leads.id);
		const byWorker: Map<string, number[]> = executionsByWorker(running.workers);
		const workerOf = (e: ExecutionSummary) => byWorker.get(e.id)?.[0];
		const overlapping = drainRuns.filter((a) =>
			drainRuns.some(
				(b) =>
					workerOf(a) !== workerOf(b) &&
					Date.parse(a.startedAt) <= Date.parse(b.stoppedAt ?? b.startedAt) &&
					Date.parse(b.startedAt) <= Date.parse(a.stoppedAt ?? a.startedAt),
			),
		);
		const received = standIn.received as Array<{ event: { event_id: string } }>;
		const ids = received.map((r) => r.event.event_id);
		const figures = {
			id: 'outbox-queue-drain',
			order: 20,
			scenario: 'Queue mode, 2 workers draining at once (outbox)',
			done: `${EVENTS} webhook leads queued (Deliver: via outbox) in n8n queue mode (main + ${WORKERS} workers, one job each at a time, PostgreSQL, Redis); two drain workflows, ${EVENTS / 4} events per poll each, send while Meta answers ${META_LATENCY_MS / 1000} s late`,
			rerun: leadRuns.length - EVENTS,
			details: '',
			n8n: JSON.parse(
				fs.readFileSync(path.join(home, 'node_modules', 'n8n', 'package.json'), 'utf8'),
			).version,
			setup: {
				main: 1,
				workers: WORKERS,
				workerConcurrency: 1,
				database: 'postgresdb',
				metaLatencyMs: META_LATENCY_MS,
			},
			startupSeconds: Math.round(running.startupMs / 100) / 10,
			events: EVENTS,
			leadExecutions: leadRuns.length,
			drainExecutions: drainRuns.length,
			drainExecutionsPerWorker: Object.fromEntries(
				running.workers.map((w) => [
					`worker-${w.index}`,
					drainRuns.filter((e) => workerOf(e) === w.index).length,
				]),
			),
			drainExecutionsOverlappingOnBothWorkers: overlapping.length,
			requests: standIn.requests.length,
			deliveries: ids.length,
			distinctEventIds: new Set(ids).size,
			duplicates: ids.length - new Set(ids).size,
			lost: EVENTS - new Set(ids).size,
			outboxLeft: await admin.zcard(due),
			deadLetters: await admin.hlen(`${keyPrefix}:outbox:{meta:${PIXEL}}:dead`),
			secondsUntilDelivered: Math.round((Date.now() - fired) / 100) / 10,
		};
		figures.details = `drain executions per worker ${JSON.stringify(figures.drainExecutionsPerWorker)}, ${overlapping.length} of them overlapping another on the other worker; ${figures.requests} requests to Meta.`;
		const out = path.join(__dirname, '..', '..', '.e2e');
		fs.mkdirSync(out, { recursive: true });
		fs.writeFileSync(
			path.join(out, `outbox-queue-drain-figures-${figures.n8n}.json`),
			`${JSON.stringify(figures, null, 2)}\n`,
		);
		// eslint-disable-next-line no-console
		console.log(`queue-mode drain figures:\n${JSON.stringify(figures, null, 2)}`);

		expect(leadRuns.map((e) => e.status)).toEqual(Array(EVENTS).fill('success'));
		expect(drainRuns.map((e) => e.status)).toEqual(Array(drainRuns.length).fill('success'));
		// Both workers drained, at the same time.
		expect(Object.values(figures.drainExecutionsPerWorker).every((n) => n > 0)).toBe(true);
		expect(overlapping.length).toBeGreaterThan(0);
		expect(figures).toMatchObject({
			deliveries: EVENTS,
			distinctEventIds: EVENTS,
			outboxLeft: 0,
			deadLetters: 0,
		});
		expect([...ids].sort()).toEqual(recordIds.map((id) => sha(`${PIXEL}|Lead|${id}`)).sort());
	});
});
