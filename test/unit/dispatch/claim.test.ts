import { MemoryDedupStore } from '../../../shared';
import { claimBatch, DEDUP_FAIL_CLOSED_NOTE } from '../../../shared/dispatch/claim';
import { planRun } from '../../../shared/dispatch/plan';
import { lead, testRun } from './fixtures';

const HOUR = 3_600_000;

describe('dispatch stage 3: claim', () => {
	it('claims free events, reports events sent before as duplicates', async () => {
		const store = new MemoryDedupStore();
		const { run } = testRun({ store }, 2);
		const batch = planRun(run, [lead('a'), lead('b')]).candidates;
		const earlier = await store.claimBatch([batch[1].key], HOUR);
		await store.settleBatch(earlier.token, {
			commit: [batch[1].key],
			release: [],
			committedTtlMs: HOUR,
		});
		const claim = await claimBatch(run, batch);
		expect(claim.claimed).toEqual([batch[0]]);
		expect(claim.state).toBe('claimed');
		expect(run.results[1]).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
		expect((await store.claimBatch([batch[0].key], HOUR)).outcomes).toEqual(['in_flight']);
	});

	it('without a store everything is "claimed" with dedup off', async () => {
		const { run } = testRun({ store: null }, 1);
		const batch = planRun(run, [lead('a')]).candidates;
		expect(await claimBatch(run, batch)).toEqual({ claimed: batch, state: 'off' });
	});

	it('fails closed by default, sends unclaimed (bypassed) when told to fail open', async () => {
		const down = new MemoryDedupStore();
		down.claimBatch = () => Promise.reject(new Error('store went away'));
		const closed = testRun({ store: down }, 1).run;
		const closedClaim = await claimBatch(closed, planRun(closed, [lead('a')]).candidates);
		expect(closedClaim.claimed).toEqual([]);
		expect(closed.results[0]).toMatchObject({
			status: 'failed',
			retryable: true,
			dedup: 'unavailable',
		});
		expect(closed.results[0].error).toBe(`store went away. ${DEDUP_FAIL_CLOSED_NOTE}`);

		const open = testRun({ store: down, failMode: 'open' }, 1).run;
		const openClaim = await claimBatch(open, planRun(open, [lead('a')]).candidates);
		expect(openClaim).toMatchObject({ state: 'bypassed' });
		expect(openClaim.claimed).toHaveLength(1);
		expect(open.results[0].warnings.join()).toMatch(/sent without a claim \(fail open\)/);
	});

	it("waits (bounded) for another run's live claim and fails the item in_flight when it outlives the wait", async () => {
		const store = new MemoryDedupStore();
		const slept: number[] = [];
		const { run } = testRun(
			{ store, inFlightWaitMs: 1_000, sleep: async (ms) => void slept.push(ms) },
			1,
		);
		const batch = planRun(run, [lead('a')]).candidates;
		await store.claimBatch([batch[0].key], HOUR);
		const claim = await claimBatch(run, batch);
		expect(claim.claimed).toEqual([]);
		expect(slept).toEqual([200, 400]);
		expect(run.results[0]).toMatchObject({ status: 'failed', retryable: true, dedup: 'in_flight' });
	});
});
