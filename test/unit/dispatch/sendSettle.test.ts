import { MemoryDedupStore } from '../../../shared';
import { claimBatch } from '../../../shared/dispatch/claim';
import { planRun } from '../../../shared/dispatch/plan';
import { applySendOutcomes, sendChunk } from '../../../shared/dispatch/send';
import type { SettlePlan } from '../../../shared/dispatch/types';
import { settleBatch, startSettleRetry } from '../../../shared/dispatch/settle';
import { lead, testPlatform, testRun } from './fixtures';

const HOUR = 3_600_000;

describe('dispatch stage 4: send', () => {
	it("returns the platform's per-event outcomes", async () => {
		const { adapter } = testPlatform((p) =>
			p.map((_, i) =>
				i ? { status: 'failed', error: 'bad', retryable: false } : { status: 'sent' },
			),
		);
		const { run } = testRun({ adapter });
		expect((await sendChunk(run, ['x', 'y'])).map((o) => o.status)).toEqual(['sent', 'failed']);
	});

	it('fails the chunk retryable when the adapter throws or miscounts', async () => {
		const { adapter } = testPlatform(() => [{ status: 'sent' }]);
		const { run } = testRun({ adapter });
		const outcomes = await sendChunk(run, ['x', 'y']);
		expect(outcomes).toEqual([
			{
				status: 'failed',
				retryable: true,
				error: 'meta: unexpected error while sending: got 1 results for 2 events',
			},
			{
				status: 'failed',
				retryable: true,
				error: 'meta: unexpected error while sending: got 1 results for 2 events',
			},
		]);
	});

	it('sorts acknowledged events to commit and the rest to release, writing each result', () => {
		const { run } = testRun({}, 3);
		const batch = planRun(run, [lead('a'), lead('b'), lead('c')]).candidates;
		for (const c of batch) run.results[c.index].dedup = 'claimed';
		const plan: SettlePlan = { commit: [], release: [] };
		applySendOutcomes(
			run,
			batch,
			[
				{ status: 'duplicate', warning: 'ORDER_ID_ALREADY_IN_USE' },
				{ status: 'skipped', reason: 'too recent', retryable: true },
				{ status: 'failed', error: 'rejected', retryable: false },
			],
			plan,
		);
		expect(plan).toEqual({ commit: [batch[0].key], release: [batch[1].key, batch[2].key] });
		expect(run.results.map((r) => [r.status, r.dedup, r.error ?? null])).toEqual([
			['duplicate', 'claimed', null],
			['skipped', 'released', 'too recent'],
			['failed', 'released', 'rejected'],
		]);
	});
});

describe('dispatch stage 5: settle', () => {
	it('commits and releases in one round trip and counts the batch', async () => {
		const store = new MemoryDedupStore();
		const { run } = testRun({ store }, 2);
		const batch = planRun(run, [lead('a'), lead('b')]).candidates;
		const { claimed, token } = await claimBatch(run, batch);
		run.results[0].status = 'sent';
		await settleBatch(
			run,
			{ batch, claimed, token: token! },
			{ commit: [batch[0].key], release: [batch[1].key] },
			startSettleRetry(0),
		);
		expect((await store.claimBatch([batch[0].key, batch[1].key], HOUR)).outcomes).toEqual([
			'sent',
			'claimed',
		]);
		const [stats] = await store.readStats('leadcapi', { hours: 1 });
		expect(stats).toMatchObject({ destination: 'd1' });
	});

	it('retries a failed settle of acknowledged events while the claims last, then warns', async () => {
		const store = new MemoryDedupStore();
		let now = 0;
		let tries = 0;
		const { run } = testRun(
			{ store, claimTtlMs: 1_000, clock: () => now, sleep: async (ms) => void (now += ms) },
			1,
		);
		const batch = planRun(run, [lead('a')]).candidates;
		const { claimed, token } = await claimBatch(run, batch);
		store.settleBatch = () => (++tries, Promise.reject(new Error('store went away')));
		run.results[0].status = 'sent';
		await settleBatch(
			run,
			{ batch, claimed, token: token! },
			{ commit: [batch[0].key], release: [] },
			startSettleRetry(0),
		);
		expect(tries).toBe(3);
		expect(run.results[0].warnings.join()).toMatch(
			/store went away: sent, but not recorded as sent/,
		);
	});
});
