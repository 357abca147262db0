import { createHash, createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { chain, node, until } from './n8n';
/* eslint-disable @typescript-eslint/no-require-imports */
const n8n = require('../../scripts/n8n/n8n.js');
const { prepareQueueMode, executionsByWorker } = require('../../scripts/n8n/queue.js');
const { startMetaStandIn } = require('../standins/meta.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/*
 * Scale-out: the capture workflow in n8n queue mode — one main (webhooks), two workers,
 * PostgreSQL, Redis for Bull's queue and for the senders' dedup — hit by duplicate webhook
 * deliveries all at once, so the copies of one response run on different workers at the same
 * moment. Each conversion must still reach Meta once.
 */

const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-token-${randomUUID()}`;
const WEBHOOK_SECRET = `e2e-typeform-secret-${randomUUID()}`;
const PIXEL = '246813579024680';
/** Distinct Typeform responses, and deliveries of each (the form tool's retries). */
const RESPONSES = 20;
const COPIES = 4;
const DELIVERIES = RESPONSES * COPIES;
const WORKERS = 2;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;
interface WorkerHandle {
	index: number;
	pid: number;
	logFile: string;
}
interface Running {
	baseUrl: string;
	mainLog: string;
	workers: WorkerHandle[];
	startupMs: number;
}
interface ExecutionSummary {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt?: string;
}
interface NodeRun {
	data?: { main?: Array<Array<{ json: Record<string, unknown> }>> };
}
interface RunData {
	resultData: { runData: Record<string, NodeRun[]>; error?: unknown };
}

const typeformDelivery = (token: string, i: number) =>
	JSON.stringify({
		event_id: `01Q${token}`,
		event_type: 'form_response',
		form_response: {
			form_id: 'DemoForm',
			token,
			submitted_at: new Date(Date.now() - 60_000).toISOString(),
			hidden: { utm_source: 'facebook', fbclid: `IwAR_queue_${i}` },
			definition: { id: 'DemoForm', fields: [] },
			answers: [
				{
					type: 'email',
					email: `lead.${i}@initech.co.uk`,
					field: { id: 'e1', type: 'email', ref: 'email' },
				},
				{
					type: 'text',
					text: `Dana${i}`,
					field: { id: 't1', type: 'short_text', ref: 'first_name' },
				},
			],
		},
	});
const typeformSignature = (body: string) =>
	`sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('base64')}`;

/** The first output item of a node in an execution's run data. */
const firstItem = (run: RunData, name: string) =>
	run.resultData.runData[name]?.[0]?.data?.main?.[0]?.[0]?.json;

describe('capture workflow in n8n queue mode: 1 main + 2 workers, PostgreSQL, Redis', () => {
	let standIn: StandIn;
	let admin: Redis;
	let home: string;
	let userFolder: string;
	let queue: {
		env: Record<string, string>;
		database: string;
		bullPrefix: string;
		start: (o?: object) => Promise<Running>;
		stop: () => Promise<void>;
	};
	let running: Running;
	let cookie: string;
	const keyPrefix = `e2e-queue-${randomUUID().slice(0, 8)}`;
	const meta = { id: 'e2eQueueMetaCre1', name: 'Meta (stand-in)' };
	const redis = { id: 'e2eQueueRedisCr1', name: 'Dedup Redis' };
	const secret = { id: 'e2eQueueSecretC1', name: 'Typeform secret' };
	const workflow = {
		id: 'e2eQueueTypefrm',
		name: 'e2e: queue mode — Typeform → completed leads → Meta',
		nodes: [
			node(
				'Typeform',
				`${PKG}.leadCaptureTrigger`,
				1,
				[0, 0],
				{
					source: 'typeform',
					path: 'e2e-queue-typeform',
					authentication: 'signature',
					// As in the capture workflow: main appends each accepted capture to the log.
					captureLog: 'redis',
					settings: {},
				},
				{
					webhookId: randomUUID(),
					credentials: { leadCapiWebhookApi: secret, leadCapiRedisApi: redis },
				},
			),
			node('Completed Only', `${PKG}.leadRuleFilter`, 1, [220, 0], {
				operation: 'filter',
				sendMode: 'automatic_completed',
				options: {},
			}),
			node(
				'Meta Conversions',
				`${PKG}.metaConversions`,
				1,
				[440, 0],
				{
					event: 'fromState',
					actionSource: 'auto',
					leadInput: 'record',
					dedupStore: 'redis',
					options: {},
				},
				{ credentials: { leadCapiMetaApi: meta, leadCapiRedisApi: redis } },
			),
		],
		connections: chain('Typeform', 'Completed Only', 'Meta Conversions'),
		settings: { executionOrder: 'v1' },
	};

	const rest = async <T>(restPath: string): Promise<T> => {
		const res = await fetch(`${running.baseUrl}/rest${restPath}`, { headers: { cookie } });
		if (!res.ok) throw new Error(`GET /rest${restPath}: HTTP ${res.status} ${await res.text()}`);
		return ((await res.json()) as { data: T }).data;
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
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-queue-'));
		queue = await prepareQueueMode({ home, userFolder, redisUrl, workers: WORKERS });
		n8n.installPackage(userFolder, tgz);
		const write = (name: string, data: unknown) => {
			const file = path.join(userFolder, name);
			fs.writeFileSync(file, JSON.stringify(data, null, 2));
			return file;
		};
		// Into the run's PostgreSQL database, before any process starts (activation from the
		// CLI only takes effect at the next start).
		n8n.importCredentials(
			home,
			queue.env,
			write('credentials.json', [
				{
					...meta,
					type: 'leadCapiMetaApi',
					data: { pixelId: PIXEL, accessToken: TOKEN, baseUrl: standIn.url },
				},
				// The same credential (one URL, one key prefix) on every worker: that is what makes
				// the claim of an event id one atomic SET NX across processes.
				{
					...redis,
					type: 'leadCapiRedisApi',
					data: { connection: 'url', url: redisUrl, keyPrefix },
				},
				{ ...secret, type: 'leadCapiWebhookApi', data: { secret: WEBHOOK_SECRET } },
			]),
		);
		n8n.importWorkflow(home, queue.env, write('workflow.json', workflow), { activate: true });
		running = await queue.start({ timeoutMs: 240_000 });
		cookie = await n8n.ownerSession(running.baseUrl, {
			email: 'e2e@example.com',
			password: 'E2e-Passw0rd-not-secret',
		});
		// n8n 2.x registers active workflows' webhooks after start-up (1.x before it): the
		// deliveries must not race that. n8n.js offers the wait where it knows the 2.x way.
		if (typeof n8n.waitForActiveWorkflows === 'function') {
			await n8n.waitForActiveWorkflows(running.baseUrl, cookie, { timeoutMs: 120_000 });
		}
	}, 420_000);

	afterAll(async () => {
		// Every step runs even when one fails (a failed start must still drop the database);
		// a clean-up failure (a database left behind) still fails the suite, at the end.
		let cleanupError: unknown;
		await queue?.stop().catch((error) => (cleanupError = error));
		await standIn?.close();
		if (admin) {
			await dropPrefix(admin, keyPrefix).catch(() => undefined);
			admin.disconnect();
		}
		if (userFolder && !process.env.LEAD_CAPI_E2E_KEEP) {
			fs.rmSync(userFolder, { recursive: true, force: true });
		}
		if (cleanupError) throw cleanupError;
	}, 120_000);

	it(`sends each of ${RESPONSES} responses once when ${DELIVERIES} deliveries (${COPIES} of each) land on both workers at once`, async () => {
		const runTag = randomUUID().replace(/-/g, '').slice(0, 10);
		const tokens = Array.from(
			{ length: RESPONSES },
			(_, i) => `q${runTag}r${String(i).padStart(2, '0')}`,
		);
		const bodies = tokens.map((token, i) => typeformDelivery(token, i));
		const url = `${running.baseUrl}/webhook/e2e-queue-typeform`;

		// All deliveries at once, the copies of a response side by side: they are queued next
		// to each other, so idle workers take them up together.
		const fired = Date.now();
		const answers = await Promise.all(
			bodies.flatMap((body) =>
				Array.from({ length: COPIES }, async () => {
					const res = await fetch(url, {
						method: 'POST',
						headers: {
							'content-type': 'application/json',
							'typeform-signature': typeformSignature(body),
						},
						body,
					});
					return {
						status: res.status,
						json: (await res.json()) as { ok?: boolean; record_id?: string },
					};
				}),
			),
		);
		expect(answers.map((a) => a.status)).toEqual(Array(DELIVERIES).fill(200));
		expect(answers.map((a) => a.json.record_id).sort()).toEqual(
			tokens.flatMap((t) => Array(COPIES).fill(t)).sort(),
		);

		// Every execution finished (main records them in PostgreSQL, the workers finish them).
		const filter = encodeURIComponent(JSON.stringify({ workflowId: workflow.id }));
		let executions: ExecutionSummary[] = [];
		await until(
			async () => {
				executions = (
					await rest<{ results: ExecutionSummary[] }>(`/executions?filter=${filter}&limit=100`)
				).results;
				return executions.length === DELIVERIES && executions.every((e) => FINISHED.has(e.status));
			},
			180_000,
			`${DELIVERIES} finished executions`,
		);
		const settledMs = Date.now() - fired;
		expect(executions.map((e) => e.status)).toEqual(Array(DELIVERIES).fill('success'));

		// Which worker ran each execution (their "Worker started execution <id>" log lines); no
		// execution ran twice (a stalled job taken again would show up here).
		const byWorker: Map<string, number[]> = executionsByWorker(running.workers);
		expect([...byWorker.keys()].sort()).toEqual(executions.map((e) => e.id).sort());
		expect([...byWorker.values()].every((w) => w.length === 1)).toBe(true);
		const perWorker = running.workers.map(
			(w) => [...byWorker.values()].filter(([i]) => i === w.index).length,
		);

		// What each execution saw and did, from its stored run data (flatted JSON, parsed with
		// the parser of the n8n under test).
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const flatted = require(path.join(home, 'node_modules', 'flatted'));
		const runs = await Promise.all(
			executions.map(async (e) => {
				const full = await rest<{ data: string }>(`/executions/${e.id}`);
				const data = flatted.parse(full.data) as RunData;
				const record = firstItem(data, 'Typeform') as { record_id: string };
				const sent = firstItem(data, 'Meta Conversions') as {
					status: string;
					dedup?: string;
					event_id: string;
				};
				return {
					id: e.id,
					worker: byWorker.get(e.id)![0],
					recordId: record.record_id,
					status: sent.status,
					dedup: sent.dedup,
					eventId: sent.event_id,
					from: Date.parse(e.startedAt),
					to: Date.parse(e.stoppedAt ?? e.startedAt),
				};
			}),
		);
		const count = (pred: (r: (typeof runs)[number]) => boolean) => runs.filter(pred).length;
		const byResponse = new Map<string, typeof runs>();
		for (const r of runs) byResponse.set(r.recordId, [...(byResponse.get(r.recordId) ?? []), r]);
		expect([...byResponse.keys()].sort()).toEqual([...tokens].sort());
		// Copies of one response run on different workers; "at once" = their executions overlap.
		const split = [...byResponse.values()].filter(
			(rs) => new Set(rs.map((r) => r.worker)).size > 1,
		);
		const overlapping = split.filter((rs) =>
			rs.some((a) => rs.some((b) => a.worker !== b.worker && a.from <= b.to && b.from <= a.to)),
		);
		for (const [token, rs] of byResponse) {
			expect({
				token,
				copies: rs.length,
				sent: rs.filter((r) => r.status === 'sent').length,
			}).toEqual({
				token,
				copies: COPIES,
				sent: 1,
			});
		}

		const received = standIn.received as Array<{ event: { event_id: string; event_name: string } }>;
		const eventIds = new Set(received.map((r) => r.event.event_id));
		const figures = {
			n8n: JSON.parse(
				fs.readFileSync(path.join(home, 'node_modules', 'n8n', 'package.json'), 'utf8'),
			).version,
			setup: {
				main: 1,
				workers: WORKERS,
				database: 'postgresdb',
				queue: 'redis (Bull)',
				dedup: 'redis',
			},
			startupSeconds: Math.round(running.startupMs / 100) / 10,
			responses: RESPONSES,
			copiesPerResponse: COPIES,
			deliveries: DELIVERIES,
			answered200: answers.filter((a) => a.status === 200).length,
			executions: executions.length,
			executionsPerWorker: Object.fromEntries(
				running.workers.map((w, i) => [`worker-${w.index}`, perWorker[i]]),
			),
			responsesOnBothWorkers: split.length,
			responsesOnBothWorkersOverlapping: overlapping.length,
			sent: count((r) => r.status === 'sent'),
			duplicate: count((r) => r.status === 'duplicate'),
			duplicateInFlight: count((r) => r.dedup === 'in_flight'),
			duplicateSentBefore: count((r) => r.dedup === 'sent_before'),
			eventsAtStandIn: received.length,
			distinctEventIdsAtStandIn: eventIds.size,
			secondsUntilAllFinished: Math.round(settledMs / 100) / 10,
		};
		const out = path.join(__dirname, '..', '..', '.e2e');
		fs.mkdirSync(out, { recursive: true });
		fs.writeFileSync(
			path.join(out, 'queue-mode-figures.json'),
			`${JSON.stringify(figures, null, 2)}\n`,
		);
		// eslint-disable-next-line no-console
		console.log(`queue mode figures:\n${JSON.stringify(figures, null, 2)}`);

		expect(perWorker.every((n) => n > 0)).toBe(true);
		expect(split.length).toBeGreaterThan(0);
		expect(overlapping.length).toBeGreaterThan(0);
		expect(figures.sent).toBe(RESPONSES);
		expect(figures.duplicate).toBe(RESPONSES * (COPIES - 1));
		expect(received).toHaveLength(RESPONSES);
		expect([...eventIds].sort()).toEqual(tokens.map((t) => sha(`${PIXEL}|Lead|${t}`)).sort());
		expect(received.every((r) => r.event.event_name === 'Lead')).toBe(true);
		// The event id each sender reported is the one Meta got: the senders agreed on one id.
		expect(new Set(runs.map((r) => r.eventId))).toEqual(eventIds);
	});
});
