import type { IDataObject, INode, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { LeadCapiOutboxTrigger } from '../../nodes/LeadCapiOutboxTrigger/LeadCapiOutboxTrigger.node';
import { LeadCapiDeadLetters } from '../../nodes/LeadCapiDeadLetters/LeadCapiDeadLetters.node';
import { IdentityNormalizer } from '../../nodes/IdentityNormalizer/IdentityNormalizer.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { outbox } from '../../shared';
import { crmLead, webLead } from '../support/leads';
import { executeError, runExecute } from './support/context';
import { nodeRedis } from './support/redis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'EAAG-node-test-token-0123456789';
const OUTBOX_KEY = { secret: 'node-test-outbox-key-0123456789' };
const PLATFORM_DOWN = { status: 503, headers: { 'retry-after': '0' } };
/** Meta rate-limiting: 429 and "come back in 2 minutes" (longer than the in-run budget of 60 s). */
const THROTTLED_120 = {
	status: 429,
	headers: { 'retry-after': '120' },
	body: { error: { message: 'Application request limit reached', code: 4 } },
};

/** n8n's polling context as the trigger uses it: parameters, credentials, logger. */
function pollContext(params: IDataObject, credentials: Record<string, IDataObject>) {
	const warnings: string[] = [];
	const ctx = {
		getNodeParameter: (name: string, fallback?: unknown) => params[name] ?? fallback,
		getCredentials: async (name: string) => {
			if (!credentials[name])
				throw new Error(`Node does not have any credentials set for "${name}"`);
			return credentials[name];
		},
		getNode: () => ({ name: 'Lead CAPI Outbox Trigger', type: 'leadCapiOutboxTrigger' }) as INode,
		logger: {
			warn: (m: string) => warnings.push(m),
			debug: () => undefined,
			info: () => undefined,
		},
	};
	return { ctx: ctx as unknown as IPollFunctions, warnings };
}

const json = (items: INodeExecutionData[]) => items.map((i) => i.json as IDataObject);

describe('outbox through the nodes (real Redis, Meta stand-in)', () => {
	const redis = nodeRedis('outbox');
	let standIn: {
		url: string;
		received: Array<{ event: { event_id: string } }>;
		queueFaults(faults: unknown[]): void;
		reset(): void;
		close(): Promise<void>;
	};
	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN, appSecret: 'app-secret-x' });
	});
	afterAll(() => standIn.close());
	beforeEach(() => {
		standIn.reset();
	});

	const credentials = (withKey = true) => ({
		leadCapiMetaApi: {
			pixelId: '1234567890',
			accessToken: TOKEN,
			appSecret: 'app-secret-x',
			baseUrl: standIn.url,
		},
		leadCapiRedisApi: redis.credential(),
		...(withKey ? { leadCapiOutboxApi: OUTBOX_KEY } : {}),
	});
	const meta = new MetaConversions();
	const trigger = new LeadCapiOutboxTrigger();
	/** The clock moving past every next try: the queued entries become due now. */
	const timePasses = async () => {
		const keys = await redis.admin.keys(`${redis.prefix}:outbox:*:due`);
		for (const k of keys) {
			const ids = await redis.admin.zrange(k, 0, -1);
			for (const id of ids) await redis.admin.zadd(k, 0, id);
		}
	};
	const poll = async (withKey = true) =>
		trigger.poll!.call(pollContext({ platform: 'all' }, credentials(withKey) as never).ctx);

	it('a platform that is down: leads are queued with their next try, delivered once by the drain, then the outbox is empty', async () => {
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		const leads = [webLead(1), webLead(2), webLead(3)] as unknown as IDataObject[];
		const first = await runExecute(meta, leads, { credentials: credentials() });
		const queued = json(first.outputs[0]);
		expect(queued.map((r) => r.status)).toEqual(['queued', 'queued', 'queued']);
		for (const r of queued) {
			expect(Date.parse(String((r.outbox as IDataObject).next_try))).toBeGreaterThan(Date.now());
		}
		expect(standIn.received).toHaveLength(0);
		// Not due yet: nothing to emit.
		expect(await poll()).toBeNull();

		await timePasses();
		const drained = (await poll())![0];
		expect(drained).toHaveLength(3);
		expect(JSON.stringify(drained)).not.toContain('user_data');
		// A second drainer polling meanwhile gets nothing: the events are reserved.
		expect(await poll()).toBeNull();

		const sent = await runExecute(meta, drained, { credentials: credentials() });
		expect(json(sent.outputs[0]).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(json(sent.outputs[0]).map((r) => r.event_id)).toEqual(queued.map((r) => r.event_id));
		expect(standIn.received.map((e) => e.event.event_id).sort()).toEqual(
			queued.map((r) => String(r.event_id)).sort(),
		);

		// Delivered entries are gone; the same leads run again are duplicates, never resent.
		await timePasses();
		expect(await poll()).toBeNull();
		const again = await runExecute(meta, leads, { credentials: credentials() });
		expect(json(again.outputs[0]).map((r) => r.status)).toEqual([
			'duplicate',
			'duplicate',
			'duplicate',
		]);
		expect(standIn.received).toHaveLength(3);
	});

	it('the panel tells the two credentials apart and the canvas subtitles read as words', () => {
		const t = new LeadCapiOutboxTrigger().description;
		const labels = (t.credentials ?? []).map((c) => c.displayName);
		expect(labels).toEqual(['Redis (Where the Outbox Lives)', 'Outbox Key (Opens the Queued Events)']);
		// n8n evaluates the subtitle as an expression over the parameters: here its body, evaluated alike.
		const evaluate = (subtitle: string, parameter: Record<string, string>) =>
			new Function('$parameter', `return ${subtitle.replace(/^=\{\{|\}\}$/g, '')}`)(parameter);
		expect(evaluate(String(t.subtitle), { platform: 'meta' })).toBe('Drains Meta');
		expect(evaluate(String(t.subtitle), { platform: 'all' })).toBe('Drains All Platforms');
		const d = new LeadCapiDeadLetters().description;
		expect(evaluate(String(d.subtitle), { operation: 'list' })).toBe('List dead letters');
		expect(evaluate(String(d.subtitle), { operation: 'purge' })).toBe('Purge dead letters');
	});

	it('a drained event that fails again is queued again with one more attempt', async () => {
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		await runExecute(meta, [webLead(7) as unknown as IDataObject], { credentials: credentials() });
		await timePasses();
		const drained = (await poll())![0];
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		const retried = json(
			(await runExecute(meta, drained, { credentials: credentials() })).outputs[0],
		);
		expect(retried[0]).toMatchObject({ status: 'queued', outbox: { attempts: 2 } });
		expect(standIn.received).toHaveLength(0);
	});

	it('without an Outbox Key credential a retryable failure stays failed and says how to queue it', async () => {
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		const out = await runExecute(meta, [webLead(9) as unknown as IDataObject], {
			credentials: credentials(false),
			onError: 'continueRegularOutput',
		});
		const [r] = json(out.outputs[0]);
		expect(r.status).toBe('failed');
		expect(r.retryable).toBe(true);
		expect((r.warnings as string[]).join(' ')).toMatch(/needs an Outbox Key credential/);
	});

	it('without an Outbox Key credential, On Error "Stop Workflow": the error says the event was not queued and why', async () => {
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		const { error } = await executeError(meta, [webLead(11) as unknown as IDataObject], {
			credentials: credentials(false),
		});
		expect(error.description).toMatch(/This event was not queued for a later try: Retry Failed Sends Later needs an Outbox Key credential/);
		expect(await redis.admin.keys(`${redis.prefix}:outbox:*`)).toEqual([]);
	});

	it('Retry Failed Sends Later → Off leaves retryable failures as they were', async () => {
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		const out = await runExecute(meta, [webLead(10) as unknown as IDataObject], {
			credentials: credentials(),
			params: { retryLater: 'off' },
			onError: 'continueRegularOutput',
		});
		expect(json(out.outputs[0])[0]).toMatchObject({ status: 'failed', retryable: true });
		expect(await redis.admin.keys(`${redis.prefix}:outbox:*`)).toEqual([]);
	});

	it('Dead Letters: lists counts and reasons without personal data, replays under the same event id, purges', async () => {
		const dead = new LeadCapiDeadLetters();
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		const queued = json(
			(
				await runExecute(meta, [webLead(11) as unknown as IDataObject], {
					credentials: credentials(),
				})
			).outputs[0],
		);
		// Drained by a trigger with another key (a rotated key): it cannot open the entry.
		await timePasses();
		const rotated = trigger.poll!.call(
			pollContext({ platform: 'all' }, {
				...credentials(),
				leadCapiOutboxApi: { secret: 'a-rotated-outbox-key-000000' },
			} as never).ctx,
		);
		expect(await rotated).toBeNull();

		const list = json(
			(await runExecute(dead, [{}], { credentials: credentials(), params: { operation: 'list' } }))
				.outputs[0],
		);
		expect(list).toEqual([
			expect.objectContaining({
				platform: 'meta',
				destination: '1234567890',
				count: 1,
				reasons: { undecryptable: 1 },
			}),
		]);
		expect(JSON.stringify(list)).not.toMatch(/@|user_data/);

		// Replay acts on a selection: nothing without one, "all" only when chosen.
		await expect(
			runExecute(dead, [{}], { credentials: credentials(), params: { operation: 'replay' } }),
		).rejects.toThrow('No event IDs given');
		const tooYoung = json(
			(
				await runExecute(dead, [{}], {
					credentials: credentials(),
					params: { operation: 'replay', selection: 'age', olderThanDays: 1 },
				})
			).outputs[0],
		);
		expect(tooYoung[0]).toEqual({
			replayed: 0,
			selection: 'dead letters older than 1 days',
			message: 'no dead letter matched dead letters older than 1 days in every platform: nothing was replayed',
		});
		const replayed = json(
			(
				await runExecute(dead, [{}], {
					credentials: credentials(),
					params: {
						operation: 'replay',
						destination: '1234567890',
						eventIds: `${String(queued[0].event_id)}, not-a-dead-letter`,
					},
				})
			).outputs[0],
		);
		expect(replayed).toEqual([
			{
				platform: 'meta',
				destination: '1234567890',
				selection: '2 event ids',
				found: 1,
				selected: 1,
				replayed: 1,
				left: 0,
			},
		]);
		const drained = (await poll())![0];
		expect((drained[0].json.outbox as IDataObject).event_id).toBe(queued[0].event_id);
		await runExecute(meta, drained, { credentials: credentials() });
		expect(standIn.received.map((e) => e.event.event_id)).toEqual([queued[0].event_id]);

		// Another entry the rotated key left unreadable, then purged with the rest.
		standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
		await runExecute(meta, [webLead(12) as unknown as IDataObject], { credentials: credentials() });
		await timePasses();
		await trigger.poll!.call(
			pollContext({ platform: 'all' }, {
				...credentials(),
				leadCapiOutboxApi: { secret: 'a-rotated-outbox-key-000000' },
			} as never).ctx,
		);
		const purged = json(
			(
				await runExecute(dead, [{}], {
					credentials: credentials(),
					params: { operation: 'purge', selection: 'all' },
				})
			).outputs[0],
		);
		expect(purged[0]).toMatchObject({ selection: 'all dead letters', found: 1, purged: 1, left: 0 });
		expect(
			json(
				(
					await runExecute(dead, [{}], {
						credentials: credentials(),
						params: { operation: 'list' },
					})
				).outputs[0],
			),
		).toEqual([]);
	});

	it('Deliver → Via Outbox: single-lead executions only queue; the drain sends them in one request, once', async () => {
		const requestsBefore = (standIn as unknown as { requests: unknown[] }).requests.length;
		const queued: IDataObject[] = [];
		for (let i = 20; i < 25; i++) {
			const out = await runExecute(meta, [webLead(i) as unknown as IDataObject], {
				credentials: credentials(),
				params: { deliver: 'outbox' },
			});
			queued.push(...json(out.outputs[0]));
		}
		expect(queued.map((r) => r.status)).toEqual(Array(5).fill('queued'));
		expect(queued.every((r) => r.dry_run === undefined && r.payload === undefined)).toBe(true);
		expect((standIn as unknown as { requests: unknown[] }).requests.length).toBe(requestsBefore);
		// Due at once: no time has to pass.
		const drained = (await poll())![0];
		expect(drained).toHaveLength(5);
		const sent = json((await runExecute(meta, drained, { credentials: credentials() })).outputs[0]);
		expect(sent.map((r) => r.status)).toEqual(Array(5).fill('sent'));
		expect((standIn as unknown as { requests: unknown[] }).requests.length).toBe(
			requestsBefore + 1,
		);
		expect(standIn.received.map((e) => e.event.event_id).sort()).toEqual(
			queued.map((r) => String(r.event_id)).sort(),
		);
		// The same leads again via the outbox: queued, and dropped by the drain as duplicates.
		await runExecute(meta, [webLead(20) as unknown as IDataObject], {
			credentials: credentials(),
			params: { deliver: 'outbox' },
		});
		const again = json(
			(await runExecute(meta, (await poll())![0], { credentials: credentials() })).outputs[0],
		);
		expect(again.map((r) => r.status)).toEqual(['duplicate']);
		expect(standIn.received).toHaveLength(5);
	});
	describe('Retry-After, counters and the stage ledger', () => {
		const T = Date.parse('2026-12-01T12:00:00Z');
		afterEach(() => outbox.setOutboxClock());
		/** The outbox's clock at `ms` (trigger, senders): no waiting, no rewriting of due times. */
		const at = (ms: number) => outbox.setOutboxClock(() => ms);
		/** The Health Report's rows for Meta, as the Identity Normalizer outputs them. */
		const report = async () => {
			const { outputs } = await runExecute(new IdentityNormalizer(), [{}], {
				params: { operation: 'report', platforms: ['meta'] },
				credentials: { leadCapiRedisApi: redis.credential() },
			});
			return json(outputs[0]);
		};

		it('429 with Retry-After: 120 → queued due no sooner than 120 s later (not the 30–60 s backoff), and the item says so; the drain does not take it before then', async () => {
			at(T);
			standIn.queueFaults([THROTTLED_120]);
			const out = await runExecute(meta, [webLead(40) as unknown as IDataObject], {
				credentials: credentials(),
			});
			const [r] = json(out.outputs[0]);
			expect(r).toMatchObject({ status: 'queued', outbox: { attempts: 1, retry_after_s: 120 } });
			expect(Date.parse(String((r.outbox as IDataObject).next_try))).toBe(T + 120_000);
			expect((r.warnings as string[]).join(' ')).toMatch(/asked to wait 120 s \(Retry-After\)/);
			// The first attempt's backoff is at most 60 s; 61 s and 119 s later it is still not due.
			at(T + 61_000);
			expect(await poll()).toBeNull();
			at(T + 119_999);
			expect(await poll()).toBeNull();
			at(T + 120_000);
			const drained = (await poll())![0];
			expect(drained.map((d) => (d.json.outbox as IDataObject).event_id)).toEqual([r.event_id]);
			const sent = json(
				(await runExecute(meta, drained, { credentials: credentials() })).outputs[0],
			);
			expect(sent[0]).toMatchObject({ status: 'sent', event_id: r.event_id });
			expect(standIn.received.map((e) => e.event.event_id)).toEqual([r.event_id]);
		});

		it('Retry-After as an HTTP date, answered to a drained send: queued again for that date', async () => {
			at(T);
			standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
			await runExecute(meta, [webLead(41) as unknown as IDataObject], {
				credentials: credentials(),
			});
			at(T + 3_600_000);
			const drained = (await poll())![0];
			// The transport reads the date against the real clock: 10 minutes from now.
			const until = Date.now() + 600_000;
			standIn.queueFaults([
				{ ...THROTTLED_120, headers: { 'retry-after': new Date(until).toUTCString() } },
			]);
			const [again] = json(
				(await runExecute(meta, drained, { credentials: credentials() })).outputs[0],
			);
			expect(again).toMatchObject({ status: 'queued', outbox: { attempts: 2 } });
			const asked = (again.outbox as IDataObject).retry_after_s as number;
			// HTTP dates have whole seconds: 599–600 s.
			expect(asked).toBeGreaterThanOrEqual(599);
			expect(asked).toBeLessThanOrEqual(600);
			expect(Date.parse(String((again.outbox as IDataObject).next_try))).toBeGreaterThanOrEqual(
				T + 3_600_000 + 598_000,
			);
			at(T + 3_600_000 + 590_000);
			expect(await poll()).toBeNull();
		});

		it('without Retry-After the next try is the backoff with jitter (attempt 1: 30–60 s)', async () => {
			at(T);
			standIn.queueFaults(Array(5).fill({ status: 503 }));
			const [r] = json(
				(
					await runExecute(meta, [webLead(42) as unknown as IDataObject], {
						credentials: credentials(),
					})
				).outputs[0],
			);
			expect(r.status).toBe('queued');
			expect((r.outbox as IDataObject).retry_after_s).toBeUndefined();
			const wait = Date.parse(String((r.outbox as IDataObject).next_try)) - T;
			expect(wait).toBeGreaterThanOrEqual(30_000);
			expect(wait).toBeLessThanOrEqual(60_000);
		});

		it('the Health Report counts queued and dead-lettered events on their own, not as failed', async () => {
			at(Date.now());
			// Three leads queued (platform down), one refused for good (not retryable: failed).
			standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
			await runExecute(meta, [webLead(50), webLead(51), webLead(52)] as unknown as IDataObject[], {
				credentials: credentials(),
			});
			standIn.queueFaults([
				{ status: 400, body: { error: { message: 'Invalid parameter', code: 100 } } },
			]);
			await runExecute(meta, [webLead(53) as unknown as IDataObject], {
				credentials: credentials(),
				onError: 'continueRegularOutput',
			});
			expect(await report()).toEqual([
				expect.objectContaining({ destination: '1234567890', queued: 3, failed: 1, sent: 0 }),
			]);
			expect((await report())[0].dead_lettered).toBeUndefined();

			// The drain: one delivered, one refused (dead letter), one failing again (queued again).
			await timePasses();
			const drained = (await poll())![0];
			standIn.queueFaults([
				{ status: 400, body: { error: { message: 'Invalid parameter', code: 100 } } },
			]);
			await runExecute(meta, [drained[0]], {
				credentials: credentials(),
				onError: 'continueRegularOutput',
			});
			await runExecute(meta, [drained[1]], { credentials: credentials() });
			standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
			await runExecute(meta, [drained[2]], { credentials: credentials() });
			expect(await report()).toEqual([
				expect.objectContaining({ queued: 4, dead_lettered: 1, failed: 1, sent: 1 }),
			]);

			// Deliver → Via Outbox: each queued event counts as queued (its send counts as sent later).
			await runExecute(meta, [webLead(54) as unknown as IDataObject], {
				credentials: credentials(),
				params: { deliver: 'outbox' },
			});
			expect(await report()).toEqual([
				expect.objectContaining({ queued: 5, dead_lettered: 1, failed: 1, sent: 1 }),
			]);
		});

		it('two drains of the same event: the second finds it already delivered — a duplicate in its output and in the Health Report, never failed', async () => {
			at(Date.now());
			standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
			await runExecute(meta, [webLead(70) as unknown as IDataObject], { credentials: credentials() });
			await timePasses();
			// Two drainers emitted the same due event (e.g. queue mode); the first delivers it.
			const drained = (await poll())![0];
			const first = json((await runExecute(meta, drained, { credentials: credentials() })).outputs[0]);
			expect(first[0]).toMatchObject({ status: 'sent' });
			// The second finds its entry gone. Without On Error → Continue: it must not fail the node.
			const second = json((await runExecute(meta, drained, { credentials: credentials() })).outputs[0]);
			expect(second[0]).toMatchObject({
				status: 'duplicate',
				dedup: 'sent_before',
				event_id: first[0].event_id,
				warnings: expect.arrayContaining([expect.stringMatching(/already delivered or removed: not sent again/)]),
			});
			expect(second[0].error).toBeUndefined();
			expect(standIn.received).toHaveLength(1);
			expect(await report()).toEqual([
				expect.objectContaining({ queued: 1, sent: 1, duplicate: 1, failed: 0 }),
			]);
		});

		it('a stage event sent via the outbox leaves the same ledger entry as a direct send', async () => {
			at(Date.now());
			const stageLead = crmLead(60, {
				stage: 'qualified',
				stage_at: new Date(Date.now() - 2 * 3_600_000).toISOString(),
				lead_created_at: new Date(Date.now() - 3 * 86_400_000).toISOString(),
				click: { gclid: 'Cj0KCQ-test-gclid', fbclid: 'IwAR-test-fbclid' },
				attributes: { meta_lead_id: '998877665544' },
			}) as unknown as IDataObject;
			const params = { event: 'fromStage' };
			// Direct: the same lead under another key prefix (same event id, its own ledger).
			const directRedis = { ...redis.credential(), keyPrefix: `${redis.prefix}:direct` };
			const direct = await runExecute(meta, [stageLead], {
				params,
				credentials: { ...credentials(), leadCapiRedisApi: directRedis },
			});
			expect(json(direct.outputs[0])[0]).toMatchObject({ status: 'sent', event_name: 'qualified' });

			// Via the outbox: the platform down, queued, drained later.
			standIn.queueFaults(Array(5).fill(PLATFORM_DOWN));
			const queued = json(
				(await runExecute(meta, [stageLead], { params, credentials: credentials() })).outputs[0],
			);
			expect(queued[0]).toMatchObject({
				status: 'queued',
				event_id: json(direct.outputs[0])[0].event_id,
			});
			const ledgerKeys = async (prefix: string) => redis.admin.keys(`${prefix}:ledger:*`);
			expect(await ledgerKeys(redis.prefix)).toEqual([]);
			await timePasses();
			const drained = (await poll())![0];
			const sent = json(
				(await runExecute(meta, drained, { credentials: credentials() })).outputs[0],
			);
			expect(sent[0]).toMatchObject({ status: 'sent', event_id: queued[0].event_id });

			const [viaKey] = await ledgerKeys(redis.prefix);
			const [directKey] = await ledgerKeys(`${redis.prefix}:direct`);
			expect(viaKey).toBe(directKey.replace(`${redis.prefix}:direct:`, `${redis.prefix}:`));
			const via = await redis.admin.hgetall(viaKey);
			// The same entry, but for when each was sent (`sent`, in seconds: the drain sends later).
			const { sent: viaSent, ...viaRest } = via;
			const { sent: directSent, ...directRest } = await redis.admin.hgetall(directKey);
			expect(viaRest).toEqual(directRest);
			expect(Number(viaSent)).toBeGreaterThanOrEqual(Number(directSent));
			expect(Number(viaSent) - Number(directSent)).toBeLessThan(120);
			expect(via).toMatchObject({
				'stage:qualified': String(queued[0].event_time),
				'id:gclid': 'Cj0KCQ-test-gclid',
				'id:lead_id': '998877665544',
				first_event_id: queued[0].event_id,
			});
			expect(await redis.admin.pttl(viaKey)).toBeGreaterThan(89 * 86_400_000);
			// The ledger now has this stage: the lead sent again is not sent (same as after a direct send).
			const again = json(
				(await runExecute(meta, [stageLead], { params, credentials: credentials() })).outputs[0],
			);
			expect(again[0].status).toBe('duplicate');
		});
	});
});
