import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { LeadCapiOutboxTrigger } from '../../nodes/LeadCapiOutboxTrigger/LeadCapiOutboxTrigger.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { outbox, type DispatchItem } from '../../shared';
import { statusCounts } from '../support/faultFigures';
import { closePooledClient, FAULT_PIXEL, faultHarness, sleep } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { outboxPollContext, runExecute } from '../nodes/support/context';

/*
 * The outbox under faults, through the nodes themselves (the Meta sender and the Lead CAPI
 * Outbox Trigger with n8n's contexts mocked, real Redis of the suite's own, the Meta stand-in):
 * one execution per lead as a webhook workflow runs them. "Time passes" moves every queued
 * entry's next try to now — what the clock does in two hours — so the suite needs no real wait.
 */
const TOKEN = 'fault-suite-access-token-0123456789';
const KEY = { secret: 'fault-suite-outbox-key-0123456789' };
const ROTATED = { secret: 'fault-suite-rotated-key-987654321' };
/** Meta down: 503 with Retry-After 0 (so the in-run retries do not wait). */
const DOWN = {
	status: 503,
	headers: { 'retry-after': '0' },
	body: { error: { message: 'Service temporarily unavailable', code: 2, is_transient: true } },
};
const ATTEMPTS_PER_RUN = 5;

const ROWS = {
	'outbox-platform-down-2h': {
		order: 300,
		scenario: 'Platform down for 2 hours (outbox)',
		done: '1,000 leads, one execution each, while Meta answers 503 to every attempt; a drain while still down; Meta recovers; the next drain',
		expected:
			'every lead queued (status queued), none sent while down; after recovery every event delivered once, the outbox empty, no dead letters',
	},
	'outbox-two-drainers': {
		order: 310,
		scenario: 'Two drainers at once (outbox)',
		done: '500 queued events; two triggers poll at the same moment and two sender executions send what each got; then a drainer that dies after polling',
		expected:
			'no event emitted twice; every event delivered once; the dead drainer’s events come due again and are delivered once',
	},
	'outbox-undecryptable': {
		order: 320,
		scenario: 'Outbox entry that cannot be decrypted',
		done: '200 queued events, 1 more sealed with a rotated key; drain with the current key',
		expected:
			'the 200 delivered once; the other moved to dead letters as undecryptable, with the reason; nothing blocked',
	},
	'outbox-expired': {
		order: 330,
		scenario: 'Event window passes while queued (outbox)',
		done: '3 leads queued with 65 s left of Meta’s 7-day window; the drain runs after the window closed (Meta back up)',
		expected: 'all 3 dead-lettered as expired, none sent late',
	},
};

describe('outbox under faults', () => {
	const meta = new MetaConversions();
	const trigger = new LeadCapiOutboxTrigger();
	const redisCredential = () => ({ connection: 'url', url: h.redis.url, keyPrefix: h.prefix });
	// Before the harness's hooks, so that it runs first: the nodes' pooled connection is closed
	// while its Redis still answers. Behind them, Redis was gone, QUIT failed ("Stream isn't
	// writeable") and the client went on reconnecting forever, which kept jest from exiting.
	afterAll(() => closePooledClient(redisCredential()));
	const h = faultHarness('outbox-faults');
	const credentials = (key = KEY) => ({
		leadCapiMetaApi: { pixelId: FAULT_PIXEL, accessToken: TOKEN, baseUrl: h.standIn.url },
		leadCapiRedisApi: redisCredential(),
		leadCapiOutboxApi: key,
	});

	const json = (items: INodeExecutionData[]) => items.map((i) => i.json as IDataObject);
	const store = () => new outbox.OutboxStore(h.admin, h.prefix);
	const queue = { platform: 'meta' as const, destination: FAULT_PIXEL };
	/** One execution per lead, as webhook workflows run them. */
	const singleExecutions = async (records: ReturnType<typeof crmLead>[], key = KEY) => {
		const results: IDataObject[] = [];
		for (const record of records) {
			const out = await runExecute(meta, [record as unknown as IDataObject], {
				credentials: credentials(key),
				onError: 'continueRegularOutput',
			});
			results.push(...json(out.outputs[0]));
		}
		return results;
	};
	const timePasses = async () => {
		const due = `${h.prefix}:outbox:{meta:${FAULT_PIXEL}}:due`;
		for (const id of await h.admin.zrange(due, 0, -1)) await h.admin.zadd(due, 0, id);
	};
	const poll = async (key = KEY) =>
		(await trigger.poll!.call(outboxPollContext(credentials(key), 5000)))?.[0] ?? [];
	const drainSend = (items: INodeExecutionData[]) =>
		runExecute(meta, items, { credentials: credentials(), onError: 'continueRegularOutput' });
	const asItems = (records: ReturnType<typeof crmLead>[]): DispatchItem[] =>
		records.map((record) => ({ record, eventName: 'Lead' }));

	it('platform down for 2 hours while 1,000 leads arrive one execution each: after recovery every event delivered once', async () => {
		const records = Array.from({ length: 1000 }, (_, i) => crmLead(50_000 + i));
		h.standIn.queueFaults(Array.from({ length: 1000 * ATTEMPTS_PER_RUN }, () => DOWN));
		const arrived = await singleExecutions(records);
		expect(statusCounts(arrived as never)).toEqual({ queued: 1000 });
		expect(h.standIn.received).toHaveLength(0);

		// An hour later: still down. The drain sends, fails, queues again with one more attempt.
		await timePasses();
		const first = await poll();
		expect(first).toHaveLength(1000);
		h.standIn.queueFaults(Array.from({ length: ATTEMPTS_PER_RUN }, () => DOWN));
		const stillDown = json((await drainSend(first)).outputs[0]);
		expect(statusCounts(stillDown as never)).toEqual({ queued: 1000 });
		expect(stillDown.every((r) => (r.outbox as IDataObject).attempts === 2)).toBe(true);

		// Two hours: Meta is back.
		expect(h.standIn.pendingFaults()).toBe(0);
		await timePasses();
		const second = await poll();
		const delivered = json((await drainSend(second)).outputs[0]);
		expect(statusCounts(delivered as never)).toEqual({ sent: 1000 });
		await timePasses();
		expect(await poll()).toHaveLength(0);
		expect(await store().pendingCount(queue)).toBe(0);
		expect(await store().deadLetters(queue)).toEqual([]);
		// The same leads again (a retried webhook): duplicates, never resent.
		const again = await singleExecutions(records.slice(0, 10));
		expect(statusCounts(again as never)).toEqual({ duplicate: 10 });
		expect(await h.audit()).toBe(0);
		await h.record(
			{ id: 'outbox-platform-down-2h', ...ROWS['outbox-platform-down-2h'] },
			asItems(records),
			{
				errorsReported: 0,
				rerunSent: 0,
			},
		);
	});

	it('two drainers at once, and one that dies after polling: every event delivered once', async () => {
		const records = Array.from({ length: 500 }, (_, i) => crmLead(60_000 + i));
		h.standIn.queueFaults(Array.from({ length: 500 * ATTEMPTS_PER_RUN }, () => DOWN));
		await singleExecutions(records);
		await timePasses();
		const [a, b] = await Promise.all([poll(), poll()]);
		const ids = [...a, ...b].map((i) => (i.json.outbox as IDataObject).event_id);
		expect(ids).toHaveLength(500);
		expect(new Set(ids).size).toBe(500);
		// The drainer of `b` dies before sending; `a`'s events are sent by two executions at once.
		const half = Math.floor(a.length / 2);
		await Promise.all([drainSend(a.slice(0, half)), drainSend(a.slice(half))]);
		// Its reservation lapses: the events come due again and another drainer sends them.
		await timePasses();
		const retaken = await poll();
		expect(retaken).toHaveLength(b.length);
		// Sent twice at the same moment by two executions: dedup sends each once.
		await Promise.all([drainSend(retaken), drainSend(retaken)]);
		await timePasses();
		expect(await poll()).toHaveLength(0);
		expect(await h.audit()).toBe(0);
		await h.record(
			{ id: 'outbox-two-drainers', ...ROWS['outbox-two-drainers'] },
			asItems(records),
			{
				errorsReported: 0,
				rerunSent: 0,
			},
		);
	});

	it('an entry sealed with a rotated key: dead letter with the reason, the others delivered', async () => {
		const records = Array.from({ length: 200 }, (_, i) => crmLead(70_000 + i));
		const old = crmLead(79_999);
		h.standIn.queueFaults(Array.from({ length: 201 * ATTEMPTS_PER_RUN }, () => DOWN));
		await singleExecutions(records);
		await singleExecutions([old], ROTATED);
		await timePasses();
		const due = await poll();
		expect(due).toHaveLength(200);
		expect(statusCounts(json((await drainSend(due)).outputs[0]) as never)).toEqual({ sent: 200 });
		const dead = await store().deadLetters(queue);
		expect(dead).toHaveLength(1);
		expect(dead[0]).toMatchObject({ reason: 'undecryptable' });
		expect(dead[0].message).toMatch(/sealed with another key/);
		await h.record(
			{ id: 'outbox-undecryptable', ...ROWS['outbox-undecryptable'] },
			asItems(records),
			{
				errorsReported: 1,
				rerunSent: 0,
			},
		);
	});

	it('an event whose window passes while queued: expired, never sent late', async () => {
		const windowMs = 7 * 86_400_000;
		const records = [0, 1, 2].map((i) =>
			crmLead(80_000 + i, { occurred_at: new Date(Date.now() - windowMs + 65_000).toISOString() }),
		);
		h.standIn.queueFaults(Array.from({ length: 3 * ATTEMPTS_PER_RUN }, () => DOWN));
		const arrived = await singleExecutions(records);
		// Each is queued (its next try is before its deadline) or expired at once.
		for (const r of arrived) expect(['queued', 'failed']).toContain(r.status);
		const key = outbox.outboxKey(KEY.secret);
		const deadlines: number[] = [];
		for (const id of await h.admin.hkeys(`${h.prefix}:outbox:{meta:${FAULT_PIXEL}}:entries`)) {
			const [sealed] = await store().load(queue, [id]);
			const opened = outbox.openEntry(key, queue, id, sealed);
			if (opened.ok) deadlines.push(opened.entry.deadline);
		}
		await sleep(Math.max(0, Math.max(...deadlines, Date.now()) - Date.now() + 1_000));
		await timePasses();
		expect(await poll()).toHaveLength(0);
		const dead = await store().deadLetters(queue);
		expect(dead.map((d) => d.reason)).toEqual(['expired', 'expired', 'expired']);
		expect(h.standIn.received).toHaveLength(0);
		await h.record({ id: 'outbox-expired', ...ROWS['outbox-expired'] }, [], {
			errorsReported: 0,
			rerunSent: 0,
		});
	});
});
