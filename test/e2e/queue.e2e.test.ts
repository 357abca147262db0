import { createHash, createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { captureTrigger, chain, n8nWithPackage, node, until, type N8nInstance, type QueueRun, type ServedN8n } from './n8n';
/* eslint-disable @typescript-eslint/no-require-imports */
const { executionsByWorker } = require('../../scripts/n8n/queue.js');
const { startMetaStandIn } = require('../standins/meta.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/*
 * n8n in queue mode — one main (editor, REST API, webhooks, pollers), three workers taking one
 * job each at a time, PostgreSQL as n8n's database, Redis for Bull's queue and for our dedup
 * and outbox — started once for three scenarios, each with its own Meta stand-in, credentials,
 * workflows and Redis key prefix:
 *  1. duplicate webhook deliveries all at once, the copies of one response on different workers
 *     at the same moment: each conversion reaches Meta once;
 *  2. the outbox drained by two workflows' executions on two workers at once while Meta is slow:
 *     each queued event is delivered once;
 *  3. a worker SIGKILLed in the middle of a send (two of the three workers, last: the scenario
 *     ends the workers it kills).
 */

const PKG = 'n8n-nodes-lead-capi';
const WORKERS = 3;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);
const REPO = path.join(__dirname, '..', '..');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;
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

const n8nVersion = () =>
	JSON.parse(fs.readFileSync(path.join(process.env.LEAD_CAPI_N8N_HOME ?? '', 'node_modules', 'n8n', 'package.json'), 'utf8'))
		.version as string;
const writeFigures = (file: string, figures: unknown) => {
	fs.mkdirSync(path.join(REPO, '.e2e'), { recursive: true });
	fs.writeFileSync(path.join(REPO, '.e2e', file), `${JSON.stringify(figures, null, 2)}\n`);
};
const typeformSignature = (secret: string, body: string) =>
	`sha256=${createHmac('sha256', secret).update(body).digest('base64')}`;
/** Which worker ran each of these executions (their "Worker started execution <id>" lines). */
const workersOf = (queue: QueueRun, ids: Iterable<string>): Map<string, number[]> => {
	const all: Map<string, number[]> = executionsByWorker(queue.workers);
	return new Map([...ids].map((id) => [id, all.get(id) ?? []]));
};

describe('n8n queue mode: 1 main + 3 workers, PostgreSQL, Redis', () => {
	let instance: N8nInstance;
	let server: ServedN8n;
	let queue: QueueRun;
	let admin: Redis;
	const standIns: StandIn[] = [];
	const keyPrefixes: string[] = [];

	/** A scenario's own Meta stand-in, Redis key prefix and credentials (Meta, Redis, …). */
	const scenario = async (name: string, pixel: string) => {
		const token = `e2e-token-${randomUUID()}`;
		const standIn: StandIn = await startMetaStandIn({ accessToken: token });
		standIns.push(standIn);
		const keyPrefix = `e2e-${name}-${randomUUID().slice(0, 8)}`;
		keyPrefixes.push(keyPrefix);
		const meta = { id: `e2e${name}Meta`, name: `Meta (${name})` };
		const redis = { id: `e2e${name}Redis`, name: `Redis (${name})` };
		instance.importCredentials([
			{ ...meta, type: 'leadCapiMetaApi', data: { pixelId: pixel, accessToken: token, baseUrl: standIn.url } },
			// The same credential (one URL, one key prefix) on every worker: that is what makes the
			// claim of an event id one atomic SET NX across processes.
			{ ...redis, type: 'leadCapiRedisApi', data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix } },
		]);
		return { standIn, keyPrefix, meta, redis };
	};

	beforeAll(async () => {
		admin = adminRedis();
		instance = await n8nWithPackage({
			own: 'queue mode: a main, three workers and PostgreSQL',
			queue: { workers: WORKERS, workerConcurrency: 1 },
		});
		server = await instance.serve();
		queue = server.queue!;
	}, 420_000);

	afterAll(async () => {
		// Every step runs even when one fails (a failed start must still drop the database); a
		// clean-up failure (a database left behind) still fails the suite, at the end.
		let cleanupError: unknown;
		await instance?.cleanup().catch((error) => (cleanupError = error));
		for (const standIn of standIns) await standIn.close();
		for (const keyPrefix of keyPrefixes) await dropPrefix(admin, keyPrefix).catch(() => undefined);
		admin?.disconnect();
		if (cleanupError) throw cleanupError;
	}, 120_000);

	describe('duplicate deliveries on several workers at once', () => {
		const PIXEL = '246813579024680';
		const SECRET = `e2e-typeform-secret-${randomUUID()}`;
		/** Distinct Typeform responses, and deliveries of each (the form tool's retries). */
		const RESPONSES = 20;
		const COPIES = 4;
		const DELIVERIES = RESPONSES * COPIES;
		const delivery = (token: string, i: number) =>
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
						{ type: 'email', email: `lead.${i}@initech.co.uk`, field: { id: 'e1', type: 'email', ref: 'email' } },
						{ type: 'text', text: `Dana${i}`, field: { id: 't1', type: 'short_text', ref: 'first_name' } },
					],
				},
			});
		const firstItem = (run: RunData, name: string) => run.resultData.runData[name]?.[0]?.data?.main?.[0]?.[0]?.json;

		it(`sends each of ${RESPONSES} responses once when ${DELIVERIES} deliveries (${COPIES} of each) land on the workers at once`, async () => {
			const { standIn, meta, redis } = await scenario('Copies', PIXEL);
			const secret = { id: 'e2eCopiesSecret', name: 'Typeform secret (copies)' };
			instance.importCredentials([{ ...secret, type: 'leadCapiWebhookApi', data: { secret: SECRET } }]);
			const workflow = {
				id: 'e2eQueueTypefrm',
				name: 'e2e: queue mode — Typeform → completed leads → Meta',
				nodes: [
					// As in the capture workflow: main appends each accepted capture to the log.
					captureTrigger(
						'Typeform',
						{ source: 'typeform', path: 'e2e-queue-typeform', authentication: 'signature', captureLog: 'redis' },
						{ leadCapiWebhookApi: secret, leadCapiRedisApi: redis },
					),
					node('Completed Only', `${PKG}.leadRuleFilter`, 1, [220, 0], { operation: 'filter', sendMode: 'automatic_completed', options: {} }),
					node(
						'Meta Conversions',
						`${PKG}.metaConversions`,
						1,
						[440, 0],
						{ event: 'fromState', actionSource: 'auto', leadInput: 'record', dedupStore: 'redis', options: {} },
						{ credentials: { leadCapiMetaApi: meta, leadCapiRedisApi: redis } },
					),
				],
				connections: chain('Typeform', 'Completed Only', 'Meta Conversions'),
				settings: { executionOrder: 'v1' },
			};
			instance.importWorkflow(workflow, { activate: true });
			await instance.serve();
			const runTag = randomUUID().replace(/-/g, '').slice(0, 10);
			const tokens = Array.from({ length: RESPONSES }, (_, i) => `q${runTag}r${String(i).padStart(2, '0')}`);
			const bodies = tokens.map((token, i) => delivery(token, i));

			// All deliveries at once, the copies of a response side by side: they are queued next
			// to each other, so idle workers take them up together.
			const fired = Date.now();
			const answers = await Promise.all(
				bodies.flatMap((body) =>
					Array.from({ length: COPIES }, async () => {
						const res = await fetch(`${server.baseUrl}/webhook/e2e-queue-typeform`, {
							method: 'POST',
							headers: { 'content-type': 'application/json', 'typeform-signature': typeformSignature(SECRET, body) },
							body,
						});
						const text = await res.text();
						return { status: res.status, text, json: (res.ok ? JSON.parse(text) : {}) as { ok?: boolean; record_id?: string } };
					}),
				),
			);
			// n8n's answer where it is not 200, to say why.
			expect(answers.map((a) => (a.status === 200 ? 200 : `${a.status} ${a.text.slice(0, 300)}`))).toEqual(Array(DELIVERIES).fill(200));
			expect(answers.map((a) => a.json.record_id).sort()).toEqual(tokens.flatMap((t) => Array(COPIES).fill(t)).sort());

			// Every execution finished (main records them in PostgreSQL, the workers finish them).
			let executions: ExecutionSummary[] = [];
			await until(
				async () => {
					executions = (await server.executions(workflow.id)) as ExecutionSummary[];
					return executions.length === DELIVERIES && executions.every((e) => FINISHED.has(e.status));
				},
				180_000,
				`${DELIVERIES} finished executions`,
			);
			const settledMs = Date.now() - fired;
			expect(executions.map((e) => e.status)).toEqual(Array(DELIVERIES).fill('success'));

			// Which worker ran each execution; no execution ran twice (a stalled job taken again
			// would show up here).
			const byWorker = workersOf(queue, executions.map((e) => e.id));
			expect([...byWorker.values()].map((w) => w.length)).toEqual(Array(DELIVERIES).fill(1));
			const perWorker = queue.workers.map((w) => [...byWorker.values()].filter(([i]) => i === w.index).length);

			// What each execution saw and did, from its stored run data (flatted JSON, parsed with
			// the parser of the n8n under test).
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const flatted = require(path.join(instance.home, 'node_modules', 'flatted'));
			const runs = await Promise.all(
				executions.map(async (e) => {
					const full = (await server.restGet(`/executions/${e.id}`)) as { data: { data: string } };
					const data = flatted.parse(full.data.data) as RunData;
					const record = firstItem(data, 'Typeform') as { record_id: string };
					const sent = firstItem(data, 'Meta Conversions') as { status: string; dedup?: string; event_id: string };
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
			const split = [...byResponse.values()].filter((rs) => new Set(rs.map((r) => r.worker)).size > 1);
			const overlapping = split.filter((rs) =>
				rs.some((a) => rs.some((b) => a.worker !== b.worker && a.from <= b.to && b.from <= a.to)),
			);
			for (const [token, rs] of byResponse) {
				expect({ token, copies: rs.length, sent: rs.filter((r) => r.status === 'sent').length }).toEqual({
					token,
					copies: COPIES,
					sent: 1,
				});
			}

			const received = standIn.received as Array<{ event: { event_id: string; event_name: string } }>;
			const eventIds = new Set(received.map((r) => r.event.event_id));
			const figures = {
				n8n: n8nVersion(),
				setup: { main: 1, workers: WORKERS, workerConcurrency: 1, database: 'postgresdb', queue: 'redis (Bull)', dedup: 'redis' },
				startupSeconds: Math.round(queue.startupMs / 100) / 10,
				responses: RESPONSES,
				copiesPerResponse: COPIES,
				deliveries: DELIVERIES,
				answered200: answers.filter((a) => a.status === 200).length,
				executions: executions.length,
				executionsPerWorker: Object.fromEntries(queue.workers.map((w, i) => [`worker-${w.index}`, perWorker[i]])),
				responsesOnSeveralWorkers: split.length,
				responsesOnSeveralWorkersOverlapping: overlapping.length,
				sent: count((r) => r.status === 'sent'),
				duplicate: count((r) => r.status === 'duplicate'),
				duplicateInFlight: count((r) => r.dedup === 'in_flight'),
				duplicateSentBefore: count((r) => r.dedup === 'sent_before'),
				eventsAtStandIn: received.length,
				distinctEventIdsAtStandIn: eventIds.size,
				secondsUntilAllFinished: Math.round(settledMs / 100) / 10,
			};
			writeFigures('queue-mode-figures.json', figures);
			// eslint-disable-next-line no-console
			console.log(`queue mode figures:\n${JSON.stringify(figures, null, 2)}`);

			expect(perWorker.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
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

	describe('the outbox drained on two workers at once', () => {
		const PIXEL = '246813579024681';
		const EVENTS = 100;
		/** Meta answers every request this late: the two drains' sends overlap. */
		const META_LATENCY_MS = 4_000;

		it(`${EVENTS} queued events drained by two workflows' executions on two workers at once: each delivered once`, async () => {
			const { standIn, keyPrefix, meta, redis } = await scenario('Drain', PIXEL);
			const key = { id: 'e2eDrainOutbox', name: 'Outbox Key (drain)' };
			instance.importCredentials([{ ...key, type: 'leadCapiOutboxApi', data: { secret: 'e2e-queue-drain-outbox-key-0123' } }]);
			const sender = (parameters: Record<string, unknown> = {}) =>
				node(
					'Meta Conversions',
					`${PKG}.metaConversions`,
					1,
					[220, 0],
					{ event: 'Lead', leadInput: 'record', dedupStore: 'redis', retryLater: 'outbox', options: {}, ...parameters },
					{ credentials: { leadCapiMetaApi: meta, leadCapiRedisApi: redis, leadCapiOutboxApi: key }, onError: 'continueRegularOutput' },
				);
			const leads = {
				id: 'e2eQDrainLeads01',
				name: 'e2e queue drain: webhook leads → Meta via outbox',
				nodes: [captureTrigger('Webhook', { source: 'generic', path: 'e2e-queue-drain', authentication: 'none' }, {}), sender({ deliver: 'outbox' })],
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
						{
							// Both poll at second 0 of every minute (n8n's "Every Minute" picks a random second
							// per workflow, which can leave their executions apart; n8n allows nothing shorter).
							pollTimes: { item: [{ mode: 'custom', cronExpression: '0 * * * * *' }] },
							platform: 'meta',
							maxEvents: EVENTS / 2,
						},
						{ credentials: { leadCapiRedisApi: redis, leadCapiOutboxApi: key } },
					),
					sender(),
				],
				connections: chain('Lead CAPI Outbox Trigger', 'Meta Conversions'),
				settings: { executionOrder: 'v1' },
			});
			const drains = [drain('e2eQDrainDrainA1', 'e2e queue drain A'), drain('e2eQDrainDrainB1', 'e2e queue drain B')];
			for (const workflow of [leads, ...drains]) instance.importWorkflow(workflow, { activate: true });
			await instance.serve();

			const due = `${keyPrefix}:outbox:{meta:${PIXEL}}:due`;
			const recordIds = Array.from({ length: EVENTS }, (_, i) => `qdrain-${i}`);
			// Leads arrive while the drains poll: whatever a poll finds is sent; Meta is slow throughout.
			standIn.setLatency(META_LATENCY_MS);
			// Fire at least 20 s before the next poll (second 0), so that the leads are queued by then
			// and both drains find entries at the same moment.
			if (new Date().getSeconds() > 40) await new Promise((r) => setTimeout(r, (61 - new Date().getSeconds()) * 1000));
			const fired = Date.now();
			for (let i = 0; i < EVENTS; i += 10) {
				const answers = await Promise.all(
					recordIds.slice(i, i + 10).map((id, j) =>
						fetch(`${server.baseUrl}/webhook/e2e-queue-drain`, {
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
			// The drains stop polling: their executions can all finish.
			let drainRuns: ExecutionSummary[] = [];
			await until(
				async () => {
					drainRuns = ((await Promise.all(drains.map((d) => server.executions(d.id)))) as ExecutionSummary[][]).flat();
					return drainRuns.length > 0 && drainRuns.every((e) => FINISHED.has(e.status));
				},
				120_000,
				'the drain executions to finish',
			);
			const leadRuns = await server.executions(leads.id);
			const byWorker = workersOf(queue, drainRuns.map((e) => e.id));
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
				done: `${EVENTS} webhook leads queued (Deliver: via outbox) in n8n queue mode (main + ${WORKERS} workers, one job each at a time, PostgreSQL, Redis); two drain workflows, ${EVENTS / 2} events per poll each, send while Meta answers ${META_LATENCY_MS / 1000} s late`,
				rerun: leadRuns.length - EVENTS,
				details: '',
				n8n: n8nVersion(),
				setup: { main: 1, workers: WORKERS, workerConcurrency: 1, database: 'postgresdb', metaLatencyMs: META_LATENCY_MS },
				startupSeconds: Math.round(queue.startupMs / 100) / 10,
				events: EVENTS,
				leadExecutions: leadRuns.length,
				drainExecutions: drainRuns.length,
				drainExecutionsPerWorker: Object.fromEntries(
					queue.workers.map((w) => [`worker-${w.index}`, drainRuns.filter((e) => workerOf(e) === w.index).length]),
				),
				drainExecutionsOverlappingOnTwoWorkers: overlapping.length,
				requests: standIn.requests.length,
				deliveries: ids.length,
				distinctEventIds: new Set(ids).size,
				duplicates: ids.length - new Set(ids).size,
				lost: EVENTS - new Set(ids).size,
				outboxLeft: await admin.zcard(due),
				deadLetters: await admin.hlen(`${keyPrefix}:outbox:{meta:${PIXEL}}:dead`),
				secondsUntilDelivered: Math.round((Date.now() - fired) / 100) / 10,
			};
			figures.details = `drain executions per worker ${JSON.stringify(figures.drainExecutionsPerWorker)}, ${overlapping.length} of them overlapping another on another worker; ${figures.requests} requests to Meta.`;
			writeFigures(`outbox-queue-drain-figures-${figures.n8n}.json`, figures);
			// eslint-disable-next-line no-console
			console.log(`queue-mode drain figures:\n${JSON.stringify(figures, null, 2)}`);

			expect(leadRuns.map((e) => e.status)).toEqual(Array(EVENTS).fill('success'));
			expect(drainRuns.map((e) => e.status)).toEqual(Array(drainRuns.length).fill('success'));
			// Two workers (at least) drained, at the same time.
			expect(Object.values(figures.drainExecutionsPerWorker).filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
			expect(overlapping.length).toBeGreaterThan(0);
			expect(figures).toMatchObject({ deliveries: EVENTS, distinctEventIds: EVENTS, outboxLeft: 0, deadLetters: 0 });
			expect([...ids].sort()).toEqual(recordIds.map((id) => sha(`${PIXEL}|Lead|${id}`)).sort());
		});
	});

	/*
	 * A worker SIGKILLed in the middle of a send (issue 12, case 4). n8n 1.x notices the stalled
	 * job once the dead worker's Bull lock lapses (QUEUE_WORKER_LOCK_DURATION, 60 s) and runs the
	 * same execution again on another worker. By then the dead run's dedup claims — leases nobody
	 * renews any more (30 s) — have expired, so the re-run sends what was never acknowledged:
	 * once where the platform never accepted the first request, twice (same event id: the
	 * unknown-outcome case, docs/dedup.md) where it had accepted it and the answer was lost.
	 * n8n 2.x no longer re-runs stalled jobs (docs/queue-mode.md).
	 */
	describe('a worker SIGKILLed mid-send', () => {
		const PIXEL = '246813579024682';
		const SECRET = `e2e-typeform-secret-${randomUUID()}`;
		const runsOnN8n1 = () => n8nVersion().startsWith('1.');
		const delivery = (token: string) =>
			JSON.stringify({
				event_id: `01K${token}`,
				event_type: 'form_response',
				form_response: {
					form_id: 'DemoForm',
					token,
					submitted_at: new Date(Date.now() - 60_000).toISOString(),
					hidden: { utm_source: 'facebook', fbclid: `IwAR_kill_${token}` },
					definition: { id: 'DemoForm', fields: [] },
					answers: [{ type: 'email', email: `${token}@initech.co.uk`, field: { id: 'e1', type: 'email', ref: 'email' } }],
				},
			});

		it("kills two workers mid-send; n8n 1.x re-runs each on the third and finds the dead run's claims expired: nothing lost, sent twice only where Meta had accepted (unknown outcome); n8n 2.x re-runs nothing and nothing blocks a retry", async () => {
			const { standIn, keyPrefix, meta, redis } = await scenario('Kill', PIXEL);
			const secret = { id: 'e2eKillSecret', name: 'Typeform secret (kill)' };
			instance.importCredentials([{ ...secret, type: 'leadCapiWebhookApi', data: { secret: SECRET } }]);
			const workflow = {
				id: 'e2eQkillTypefrm',
				name: 'e2e: queue mode, worker killed — Typeform → Meta',
				nodes: [
					captureTrigger('Typeform', { source: 'typeform', path: 'e2e-qkill-typeform', authentication: 'signature' }, { leadCapiWebhookApi: secret }),
					node(
						'Meta Conversions',
						`${PKG}.metaConversions`,
						1,
						[220, 0],
						{ event: 'fromState', actionSource: 'auto', leadInput: 'record', dedupStore: 'redis', options: {} },
						{ credentials: { leadCapiMetaApi: meta, leadCapiRedisApi: redis } },
					),
				],
				connections: chain('Typeform', 'Meta Conversions'),
				settings: { executionOrder: 'v1' },
			};
			instance.importWorkflow(workflow, { activate: true });
			await instance.serve();
			const executions = async () => (await server.executions(workflow.id)) as ExecutionSummary[];
			const killed = new Map<number, number>();

			/** Delivers one response, waits until its request is at the stand-in, kills the worker running it. */
			const deliverAndKill = async (token: string, atPlatform: () => boolean) => {
				const body = delivery(token);
				const res = await fetch(`${server.baseUrl}/webhook/e2e-qkill-typeform`, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'typeform-signature': typeformSignature(SECRET, body) },
					body,
				});
				expect(res.status).toBe(200);
				await until(atPlatform, 120_000, `the request of ${token} at the stand-in`);
				const running = (await executions()).filter((e) => !FINISHED.has(e.status)).map((e) => e.id);
				const busy = [...workersOf(queue, running).values()].flatMap((ws) => ws.slice(-1));
				const victim = queue.workers.find(
					(w) => w.child.exitCode === null && w.child.signalCode === null && busy.includes(w.index) && !killed.has(w.index),
				)!;
				victim.child.kill('SIGKILL');
				killed.set(victim.index, Date.now());
				return victim.index;
			};

			// Two responses, each worker running one of them SIGKILLed: one never accepted, one accepted.
			const tag = randomUUID().replace(/-/g, '').slice(0, 8);
			const beforeAccept = `k${tag}before`;
			const afterAccept = `k${tag}after`;
			// Never accepted: the stand-in takes the request and never looks at it.
			standIn.queueFaults([{ kind: 'hang' }]);
			const first = await deliverAndKill(beforeAccept, () => standIn.pendingFaults() === 0);
			// Accepted, the answer held back: the worker dies before it hears it.
			standIn.queueFaults([{ kind: 'accept-hold' }]);
			const second = await deliverAndKill(afterAccept, () => standIn.heldAnswers() === 1);
			standIn.dropHeld();
			expect(first).not.toBe(second);
			const received = () => standIn.received as Array<{ event: { event_id: string } }>;
			const deliveries = (token: string) => received().filter((r) => r.event.event_id === sha(`${PIXEL}|Lead|${token}`)).length;

			if (runsOnN8n1()) {
				let runs: ExecutionSummary[] = [];
				await until(
					async () => {
						runs = await executions();
						return runs.length === 2 && runs.every((e) => FINISHED.has(e.status));
					},
					300_000,
					'both executions re-run and finished',
				);
				const finishedAt = Date.now();
				const reruns = workersOf(queue, runs.map((e) => e.id));
				const figures = {
					executions: runs.map((e) => ({ id: e.id, status: e.status, workers: reruns.get(e.id) })),
					deliveriesBeforeAccept: deliveries(beforeAccept),
					deliveriesAfterAccept: deliveries(afterAccept),
					rerunSecondsAfterKill: [...killed.values()].map((at) => Math.round((finishedAt - at) / 1000)),
				};
				// eslint-disable-next-line no-console
				console.log(`queue mode, worker killed:\n${JSON.stringify(figures, null, 2)}`);
				writeFigures('queue-kill-figures.json', figures);
				expect(runs.map((e) => e.status)).toEqual(['success', 'success']);
				// Each execution ran twice: on the killed worker, then on another.
				for (const e of runs) expect(reruns.get(e.id)).toHaveLength(2);
				expect(figures.deliveriesBeforeAccept).toBe(1);
				expect(figures.deliveriesAfterAccept).toBe(2);
				// Both are recorded as sent now: a further re-run sends nothing.
				const keys = await admin.keys(`${keyPrefix}:meta:*`);
				expect(await Promise.all(keys.map((k) => admin.get(k)))).toEqual(['s', 's']);
			} else {
				// Longer than the lock (60 s) plus the stalled-job check (30 s): no re-run by itself,
				// and the dead run's claims (30 s) have expired long before anyone retries it.
				await new Promise((resolve) => setTimeout(resolve, 100_000));
				const runs = workersOf(queue, (await executions()).map((e) => e.id));
				expect([...runs.values()].map((workers) => workers.length)).toEqual([1, 1]);
				expect([deliveries(beforeAccept), deliveries(afterAccept)]).toEqual([0, 1]);
				expect(await admin.keys(`${keyPrefix}:meta:*`)).toEqual([]);
			}
		});
	});
});
