import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { LeadCapiOutboxTrigger } from '../../nodes/LeadCapiOutboxTrigger/LeadCapiOutboxTrigger.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { outbox, type DispatchItem } from '../../shared';
import { statusCounts } from '../support/faultFigures';
import { closePooledClient, FAULT_PIXEL, faultHarness, sleep } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { until } from '../support/redisTopology';
import { outboxPollContext, runExecute } from '../nodes/support/context';

/*
 * The outbox's Redis killed mid-drain and restarted from its append-only file (appendonly yes,
 * appendfsync always), through the nodes (Meta sender, Lead CAPI Outbox Trigger; n8n's contexts
 * mocked, nothing of ours): 500 webhook executions queue one lead each (Deliver: via outbox);
 * the trigger drains 100 per poll; Redis is SIGKILLed while a drained batch is at Meta.
 */
const TOKEN = 'fault-suite-access-token-0123456789';
const KEY = { secret: 'fault-suite-outbox-key-0123456789' };
const LEADS = 500;
const PER_POLL = 100;
/** Beyond the store's 3 s wait for a reconnection, well within the 30 s claim lease. */
const OUTAGE_MS = 5_000;

const ROW = {
	id: 'outbox-redis-aof-restart',
	order: 340,
	scenario: 'Redis restarted from its append-only file mid-drain (outbox)',
	done: `${LEADS} leads queued by ${LEADS} single-lead executions (Deliver: via outbox); the trigger drains ${PER_POLL} per poll; SIGKILL of redis-server while the 3rd drained batch was at Meta (its answer released while Redis was down); a poll and a second drain execution during the outage; redis-server restarted from its append-only file ${OUTAGE_MS / 1000} s later; the drain goes on to the end`,
	expected:
		'the batch at Meta is recorded once Redis is back (the run holds its claims meanwhile) and leaves the outbox; the poll during the outage fails, the drain during it fails each of its items, and neither takes anything; every event delivered once, the outbox empty, no dead letters',
};

describe('the outbox with its Redis killed mid-drain and restarted from the append-only file', () => {
	const meta = new MetaConversions();
	const trigger = new LeadCapiOutboxTrigger();
	const redisCredential = () => ({ connection: 'url', url: h.redis.url, keyPrefix: h.prefix });
	// Before the harness's hooks, so that it runs first: the nodes' pooled connection is closed
	// while its Redis still answers.
	afterAll(() => closePooledClient(redisCredential()));
	const h = faultHarness('outbox-aof', { persistent: true });
	const credentials = () => ({
		leadCapiMetaApi: { pixelId: FAULT_PIXEL, accessToken: TOKEN, baseUrl: h.standIn.url },
		leadCapiRedisApi: redisCredential(),
		leadCapiOutboxApi: KEY,
	});
	const json = (items: INodeExecutionData[]) => items.map((i) => i.json as IDataObject);
	const queue = { platform: 'meta' as const, destination: FAULT_PIXEL };
	const store = () => new outbox.OutboxStore(h.admin, h.prefix);
	const poll = async () => (await trigger.poll!.call(outboxPollContext(credentials(), PER_POLL)))?.[0] ?? [];
	const drainSend = (items: INodeExecutionData[]) =>
		runExecute(meta, items, { credentials: credentials(), onError: 'continueRegularOutput' });
	const ids = (items: INodeExecutionData[]) =>
		items.map((i) => String((i.json.outbox as IDataObject).event_id));

	it(`SIGKILLed while a drained batch is at Meta, restarted from its AOF: each of ${LEADS} queued events delivered once`, async () => {
		const records = Array.from({ length: LEADS }, (_, i) => crmLead(90_000 + i));
		for (const record of records) {
			const out = await runExecute(meta, [record as unknown as IDataObject], {
				credentials: credentials(),
				params: { deliver: 'outbox' },
				onError: 'continueRegularOutput',
			});
			expect(json(out.outputs[0])[0]).toMatchObject({ status: 'queued', outbox: { attempts: 0 } });
		}
		expect(h.standIn.received).toHaveLength(0);
		expect(await store().pendingCount(queue)).toBe(LEADS);

		// Two drains go through.
		const emitted: string[] = [];
		const sentCounts: Array<Record<string, number>> = [];
		for (let round = 0; round < 2; round++) {
			const due = await poll();
			emitted.push(...ids(due));
			sentCounts.push(statusCounts(json((await drainSend(due)).outputs[0]) as never));
		}

		// The third: Meta accepts the batch and its answer is held until Redis is gone.
		h.standIn.queueFaults([{ kind: 'accept-hold' }]);
		const third = await poll();
		emitted.push(...ids(third));
		const inFlight = drainSend(third);
		await until(
			'the 3rd batch held at the stand-in',
			async () => h.standIn.heldAnswers() === 1,
			60_000,
		);
		// Another drainer's poll had reserved the 4th hundred just before.
		const fourth = await poll();
		emitted.push(...ids(fourth));

		await h.redis.server.kill('SIGKILL');
		expect(h.standIn.releaseHeld()).toBe(1);
		// During the outage: a poll fails (n8n logs the poll's error) and takes nothing; the drain
		// of the reserved hundred cannot read the outbox: each of its items fails (On Error →
		// Continue), nothing is sent, and the entries stay in the outbox, reserved.
		await expect(poll()).rejects.toThrow();
		const duringOutage = statusCounts(json((await drainSend(fourth)).outputs[0]) as never);
		expect(duringOutage).toEqual({ failed: PER_POLL });
		expect(h.standIn.requests).toHaveLength(3);

		await sleep(OUTAGE_MS);
		await h.redis.restart();
		const thirdResults = json((await inFlight).outputs[0]);
		expect(statusCounts(thirdResults as never)).toEqual({ sent: PER_POLL });
		expect([...new Set(thirdResults.flatMap((r) => r.warnings as string[]))]).toEqual([]);
		expect(await h.audit()).toBe(0);

		// What the append-only file kept: the first 300 removed, the 4th hundred still reserved
		// (its drain never sent), the last hundred due.
		expect(await store().pendingCount(queue)).toBe(LEADS - 3 * PER_POLL);
		// The drain goes on; the reserved hundred comes due again when its reservation ends
		// (5 minutes: here the clock is moved on, as in the other outbox scenarios).
		const due = `${h.prefix}:outbox:{meta:${FAULT_PIXEL}}:due`;
		let round = 0;
		for (;;) {
			const taken = await poll();
			if (taken.length === 0) {
				if (round++ > 0) break;
				for (const id of await h.admin.zrange(due, 0, -1)) await h.admin.zadd(due, 0, id);
				continue;
			}
			emitted.push(...ids(taken));
			sentCounts.push(statusCounts(json((await drainSend(taken)).outputs[0]) as never));
		}
		expect(await store().pendingCount(queue)).toBe(0);
		expect(await store().deadLetters(queue)).toEqual([]);
		expect(sentCounts.reduce((n, c) => n + (c.sent ?? 0), 0)).toBe(LEADS - PER_POLL);
		// The reserved hundred was emitted twice (before the kill, and after its reservation
		// ended): sent once.
		expect(emitted).toHaveLength(LEADS + PER_POLL);
		expect(new Set(emitted).size).toBe(LEADS);
		expect(await h.audit()).toBe(0);

		const items: DispatchItem[] = records.map((record) => ({ record, eventName: 'Lead' }));
		await h.record({ ...ROW, details: { duringOutage, sentCounts } }, items, {
			errorsReported: PER_POLL,
			rerunSent: PER_POLL,
		});
	});
});
