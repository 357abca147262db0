import { deriveEventId, ledgerKey, type ItemResult } from '../../shared';
import {
	deliveryLedger,
	markedSent,
	measure,
	recordFigures,
	statusCounts,
} from '../support/faultFigures';
import { FAULT_PIXEL, faultHarness, runCounts, sleep } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { until } from '../support/redisTopology';

/** Long enough to outlive the outage: this is not a claim-expiry test. */
const LONG_CLAIM_TTL_MS = 30_000;
/** Beyond the store's 3 s wait for a reconnection. */
const OUTAGE_MS = 5_000;
const LEADS = 3000;
const ORDER = ['Lead', 'Qualified'];

const ROW = {
	id: 'ledger-redis-killed',
	order: 15,
	scenario: 'Stage ledger: Redis killed mid-dispatch of stage events, then back',
	done: `${LEADS.toLocaleString('en-US')} leads sent as Lead; their Qualified stage dispatched (3 batches); SIGKILL of redis-server while 2 batches were at the platform, their answers released while Redis was down; restarted from its append-only file 5 s later; re-run; then every dedup key deleted (as when the 30-day dedup TTL has passed) and re-run again`,
	expected:
		'the answered stages are recorded in the dedup keys and the stage ledger in the same settle once Redis is back; neither re-run sends a stage again (the second one stopped by the ledger alone)',
};

/**
 * The stage ledger under the dedup store's faults: its writes ride in the settle script with the
 * commits (one EVAL), so a lead's stage is in the ledger exactly when its event is marked sent —
 * across a SIGKILL of Redis and a restart from its append-only file.
 */
describe('the stage ledger with its Redis killed and back', () => {
	const h = faultHarness('faults-ledger', { persistent: true });
	const stage = (i: number) =>
		crmLead(i, { stage: 'qualified', stage_at: new Date(Date.now() - 60_000).toISOString() });
	const withLedger = { claimTtlMs: LONG_CLAIM_TTL_MS, ledger: { stageOrder: ORDER } };

	it('SIGKILLed while stage events are at the platform: each stage lands in the ledger with its commit, and is never sent twice, even once its dedup key is gone', async () => {
		const leads = Array.from({ length: LEADS }, (_, i) => ({ record: crmLead(i), eventName: 'Lead' }));
		const qualified = Array.from({ length: LEADS }, (_, i) => ({ record: stage(i), eventName: 'Qualified' }));
		expect(statusCounts(await h.run(leads, withLedger))).toEqual({ sent: LEADS });
		h.standIn.reset();

		h.standIn.queueFaults([{ kind: 'accept-hold' }, { kind: 'accept-hold' }]);
		const first = h.run(qualified, withLedger);
		await until('2 batches held at the stand-in', async () => h.standIn.heldAnswers() === 2, 120_000);
		await h.redis.server.kill('SIGKILL');
		expect(h.standIn.releaseHeld()).toBe(2);
		await sleep(OUTAGE_MS);
		await h.redis.restart();
		const completed = await first;
		expect(statusCounts(completed)).toEqual({ sent: LEADS });
		expect([...new Set(completed.flatMap((r) => r.warnings))]).toEqual([]);

		// Every lead's ledger has both stages, with the times sent, and no contact data.
		const keys = Array.from({ length: LEADS }, (_, i) => ledgerKey(h.prefix, 'meta', FAULT_PIXEL, `deal-${i}`));
		const pipeline = h.admin.pipeline();
		for (const key of keys) pipeline.hmget(key, 'stage:Lead', 'stage:Qualified', 'first_event');
		const rows = ((await pipeline.exec()) ?? []).map(([, value]) => value as Array<string | null>);
		expect(rows.filter((r) => r[0] && r[1] && r[2] === 'Lead')).toHaveLength(LEADS);

		const rerun = await h.run(qualified, withLedger);
		expect(statusCounts(rerun)).toEqual({ duplicate: LEADS });

		// The dedup keys gone (their TTL passed): the ledger alone keeps the stages from going out again.
		const dedupKeys = await h.admin.keys(`${h.prefix}:meta:*`);
		expect(dedupKeys.length).toBe(2 * LEADS);
		for (let i = 0; i < dedupKeys.length; i += 1000) await h.admin.del(...dedupKeys.slice(i, i + 1000));
		const afterExpiry: ItemResult[] = await h.run(qualified, withLedger);
		expect(statusCounts(afterExpiry)).toEqual({ duplicate: LEADS });
		expect(afterExpiry[0].warnings).toEqual([
			'the stage ledger has this stage for this lead already: not sent again',
		]);
		expect(await h.admin.keys(`${h.prefix}:meta:*`)).toEqual([]);
		expect(h.standIn.received).toHaveLength(LEADS);

		// Figures: the Qualified events (the dedup keys were deleted on purpose, so "marked sent"
		// is read before that deletion would count them: every acknowledged stage is in the ledger).
		const expected = new Set(
			Array.from({ length: LEADS }, (_, i) => deriveEventId(FAULT_PIXEL, 'Qualified', `deal-${i}`)),
		);
		const inLedger = new Set(
			rows.flatMap((r, i) => (r[1] ? [deriveEventId(FAULT_PIXEL, 'Qualified', `deal-${i}`)] : [])),
		);
		const ledger = deliveryLedger(h.standIn, expected);
		const measured = measure(ledger, inLedger, expected, runCounts(completed, [...rerun, ...afterExpiry]));
		expect(await markedSent(h.admin, h.prefix)).toEqual(new Set());
		recordFigures({ ...ROW, measured });
	});
});
