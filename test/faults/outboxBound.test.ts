import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { LeadCapiOutboxTrigger } from '../../nodes/LeadCapiOutboxTrigger/LeadCapiOutboxTrigger.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { outbox, type DispatchItem } from '../../shared';
import { formatBytes } from '../../shared/redis/memory';
import { statusCounts } from '../support/faultFigures';
import { closePooledClient, FAULT_PIXEL, faultHarness } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { outboxPollContext, runExecute } from '../nodes/support/context';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

/*
 * One platform down for long, at a steady lead rate, through the nodes (n8n's contexts mocked,
 * nothing of ours): every lead goes to two Meta destinations on the same Redis — a healthy pixel
 * (Deliver: now) and a pixel whose platform answers 503 to everything (its events queued in the
 * outbox, Deliver: via outbox; the Outbox Trigger drains it every 50 leads and every drained send
 * fails again). The outbox's budget for a destination is set small (LEAD_CAPI_OUTBOX_MAX_MB), so
 * the bound is reached within the run; then, with the budget large, the Redis's maxmemory is
 * lowered to just above what it uses, so the headroom the outbox leaves to dedup is what stops it.
 */
const TOKEN = 'fault-suite-access-token-0123456789';
const KEY = { secret: 'fault-suite-outbox-key-0123456789' };
const DOWN_PIXEL = '700000000000099';
const LEADS = 300;
const DRAIN_EVERY = 50;
const BUDGET_MB = 0.25;
const BUDGET = BUDGET_MB * 1024 * 1024;
const PLATFORM_DOWN = { status: 503, headers: { 'retry-after': '0' } };

const ROW = {
	id: 'outbox-bound-down-platform',
	order: 350,
	scenario: 'One platform down for long: the outbox at its bound (byte budget per destination)',
	done: `${LEADS} single-lead executions, each lead to two Meta destinations on one Redis: a healthy pixel (Deliver: now) and a pixel whose platform answers 503 to everything (Deliver: via outbox, drained every ${DRAIN_EVERY} leads, each drained send failing again); the outbox's budget ${BUDGET_MB} MB per destination (LEAD_CAPI_OUTBOX_MAX_MB)`,
	expected:
		"the healthy destination 100 % sent, each once; the down destination's outbox holds at most its budget, and past it each new event is failed, retryable, with a message naming the outbox, the destination and the fix; the queued ones stay queued",
};
const HEADROOM_ROW = {
	id: 'outbox-bound-headroom',
	order: 351,
	scenario: "One platform down, Redis nearly full: the outbox stops at the dedup markers' headroom",
	done: `the same flow of ${LEADS} leads with the outbox's budget at its default (64 MB); redis-server's maxmemory lowered so that 256 KB are left below the 20 % headroom (noeviction)`,
	expected:
		"the healthy destination 100 % sent (its dedup claims and markers never refused: OOM), the down destination's new events refused once Redis reaches maxmemory less the headroom (20 %), failed, retryable, naming the outbox, the destination and the fix",
};

describe('one platform down until the outbox is at its bound; the healthy destination on the same Redis keeps sending', () => {
	const meta = new MetaConversions();
	const trigger = new LeadCapiOutboxTrigger();
	let down: { url: string; queueFaults(f: unknown[]): void; received: unknown[]; close(): Promise<void>; reset(): void };
	const redisCredential = () => ({ connection: 'url', url: h.redis.url, keyPrefix: h.prefix });
	afterAll(() => closePooledClient(redisCredential()));
	const h = faultHarness('outbox-bound', { redisConfig: ['maxmemory 64mb', 'maxmemory-policy noeviction'] });
	const saved = process.env.LEAD_CAPI_OUTBOX_MAX_MB;
	beforeAll(async () => {
		down = await startMetaStandIn({ accessToken: TOKEN });
	});
	afterAll(async () => {
		if (saved === undefined) delete process.env.LEAD_CAPI_OUTBOX_MAX_MB;
		else process.env.LEAD_CAPI_OUTBOX_MAX_MB = saved;
		await down?.close();
	});
	const credentials = (pixelId: string, baseUrl: string) => ({
		leadCapiMetaApi: { pixelId, accessToken: TOKEN, baseUrl },
		leadCapiRedisApi: redisCredential(),
		leadCapiOutboxApi: KEY,
	});
	const json = (items: INodeExecutionData[]) => items.map((i) => i.json as IDataObject);
	const downQueue = { platform: 'meta' as const, destination: DOWN_PIXEL };

	/** The flow: each lead to both destinations; every DRAIN_EVERY leads a drain whose sends fail. */
	async function steadyFlow(first: number) {
		const healthy: IDataObject[] = [];
		const downResults: IDataObject[] = [];
		let maxBytes = 0;
		for (let i = 0; i < LEADS; i++) {
			const record = crmLead(first + i) as unknown as IDataObject;
			const sent = await runExecute(meta, [record], {
				credentials: credentials(FAULT_PIXEL, h.standIn.url),
				onError: 'continueRegularOutput',
			});
			healthy.push(...json(sent.outputs[0]));
			const queued = await runExecute(meta, [record], {
				credentials: credentials(DOWN_PIXEL, down.url),
				params: { deliver: 'outbox' },
				onError: 'continueRegularOutput',
			});
			downResults.push(...json(queued.outputs[0]));
			const bytes = await new outbox.OutboxStore(h.admin, h.prefix).bytes(downQueue);
			maxBytes = Math.max(maxBytes, bytes.queued + bytes.dead);
			if ((i + 1) % DRAIN_EVERY === 0) {
				await h.admin.eval(
					"for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('ZADD', KEYS[1], 0, id) end",
					1,
					`${h.prefix}:outbox:{meta:${DOWN_PIXEL}}:due`,
				);
				const taken = (await trigger.poll!.call(outboxPollContext(credentials(DOWN_PIXEL, down.url), 1000)))?.[0] ?? [];
				down.queueFaults(Array(10).fill(PLATFORM_DOWN));
				const again = json(
					(await runExecute(meta, taken, { credentials: credentials(DOWN_PIXEL, down.url), onError: 'continueRegularOutput' }))
						.outputs[0],
				);
				expect(again.every((r) => r.status === 'queued')).toBe(true);
			}
		}
		return { healthy, downResults, maxBytes };
	}

	function refusals(results: IDataObject[]) {
		const refused = results.filter((r) => r.status === 'failed');
		for (const r of refused) {
			expect(r.retryable).toBe(true);
			expect(String(r.error)).toMatch(new RegExp(`^not queued: the outbox of meta destination ${DOWN_PIXEL} `));
			expect(String(r.error)).toMatch(/Fix: /);
		}
		return refused;
	}

	it(`at the byte budget (${BUDGET_MB} MB): only the down destination's new events are refused, loudly; the healthy one 100 % sent`, async () => {
		process.env.LEAD_CAPI_OUTBOX_MAX_MB = String(BUDGET_MB);
		const { healthy, downResults, maxBytes } = await steadyFlow(200_000);
		expect(statusCounts(healthy as never)).toEqual({ sent: LEADS });
		const refused = refusals(downResults);
		const queued = downResults.filter((r) => r.status === 'queued').length;
		expect(queued + refused.length).toBe(LEADS);
		expect(refused.length).toBeGreaterThan(0);
		expect(String(refused[0].error)).toContain('is full (256.0 KB of queued events and dead letters, LEAD_CAPI_OUTBOX_MAX_MB)');
		expect(maxBytes).toBeLessThanOrEqual(BUDGET);
		const store = new outbox.OutboxStore(h.admin, h.prefix);
		expect(await store.pendingCount(downQueue)).toBe(queued);
		const bytes = await store.bytes(downQueue);
		const perEvent = Math.round(bytes.queued / queued);
		const usage = Number(await h.admin.call('MEMORY', 'USAGE', `${h.prefix}:outbox:{meta:${DOWN_PIXEL}}:entries`));
		const items: DispatchItem[] = Array.from({ length: LEADS }, (_, i) => ({ record: crmLead(200_000 + i), eventName: 'Lead' }));
		await h.record(
			{
				...ROW,
				details: { queued, refused: refused.length, maxBytes, perEvent, usage, budget: BUDGET },
				notes: `the down destination: ${queued} events queued (${formatBytes(bytes.queued)} counted, at most ${formatBytes(maxBytes)}; ${perEvent.toLocaleString('en-US')} B per queued event sealed, ${Math.round(usage / queued).toLocaleString('en-US')} B by MEMORY USAGE of its entries), then ${refused.length} refused at the ${formatBytes(BUDGET)} budget, each failed and retryable: "${String(refused[0].error).slice(0, 120)}…"; the healthy destination ${LEADS} of ${LEADS} sent`,
			},
			items,
			{ errorsReported: refused.length, rerunSent: 0 },
		);
	});

	it("Redis nearly full: the outbox stops at the dedup headroom, the healthy destination's claims never fail", async () => {
		delete process.env.LEAD_CAPI_OUTBOX_MAX_MB;
		const info = await h.admin.info('memory');
		const used = Number(/used_memory:(\d+)/.exec(info)![1]);
		// Room for about 256 KB of outbox below the headroom: some queued, then refused.
		await h.admin.call('CONFIG', 'SET', 'maxmemory', String(Math.round((used + 256 * 1024) / 0.8)));
		try {
			const { healthy, downResults } = await steadyFlow(300_000);
			expect(statusCounts(healthy as never)).toEqual({ sent: LEADS });
			const refused = refusals(downResults);
			expect(refused.length).toBeGreaterThan(0);
			expect(refused.length).toBeLessThan(LEADS);
			expect(String(refused[0].error)).toContain('Redis is within the 20 % of maxmemory the outbox leaves to the dedup markers');
			const after = await h.admin.info('memory');
			const max = Number(/\nmaxmemory:(\d+)/.exec(after)![1]);
			const usedAfter = Number(/used_memory:(\d+)/.exec(after)![1]);
			expect(usedAfter).toBeLessThan(max);
			const items: DispatchItem[] = Array.from({ length: LEADS }, (_, i) => ({ record: crmLead(300_000 + i), eventName: 'Lead' }));
			await h.record(
				{
					...HEADROOM_ROW,
					details: { refused: refused.length, used: usedAfter, max },
					notes: `maxmemory ${formatBytes(max)}, used ${formatBytes(usedAfter)} at the end; the down destination ${LEADS - refused.length} queued, ${refused.length} refused at the headroom; the healthy destination ${LEADS} of ${LEADS} sent, no OOM`,
				},
				items,
				{ errorsReported: refused.length, rerunSent: 0 },
			);
		} finally {
			await h.admin.call('CONFIG', 'SET', 'maxmemory', '64mb');
		}
	});
});
