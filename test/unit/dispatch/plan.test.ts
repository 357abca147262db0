import { deriveEventId, MemoryDedupStore } from '../../../shared';
import { planRun, resolveRepeats } from '../../../shared/dispatch/plan';
import { lead, testRun } from './fixtures';

describe('dispatch stage 1: plan', () => {
	it('gives each sendable item its event id, event time and dedup key, and ends the others with their reason', () => {
		const items = [
			lead('a'),
			{ record: {}, eventName: 'Lead', error: 'mapping failed' },
			{ record: { contact: {} }, eventName: 'Lead' },
			{ ...lead('b'), eventName: '' },
			lead('old', { occurred_at: '2001-01-01T00:00:00Z' }),
		];
		const { run } = testRun({ eventWindowPolicy: 'skip' }, items.length);
		const plan = planRun(run, items as never);
		expect(plan.candidates.map((c) => [c.index, c.eventId, c.key])).toEqual([
			[0, deriveEventId('d1', 'Lead', 'a'), `leadcapi:meta:d1:${deriveEventId('d1', 'Lead', 'a')}`],
		]);
		expect(plan.candidates[0].eventTime).toBe(run.results[0].event_time);
		expect(run.results.map((r) => [r.status, r.error?.slice(0, 24) ?? null])).toEqual([
			['failed', null],
			['failed', 'mapping failed'],
			['failed', 'record_id is missing: gi'],
			['failed', 'event name is empty'],
			['skipped', expect.any(String)],
		]);
	});

	it('finds repeats within the run; each reports what happened to its first item', () => {
		const items = [lead('a'), lead('b'), lead('a'), lead('b')];
		const { run } = testRun({}, items.length);
		const plan = planRun(run, items);
		expect(plan.candidates.map((c) => c.index)).toEqual([0, 1]);
		expect(plan.repeats).toEqual([
			{ index: 2, first: 0 },
			{ index: 3, first: 1 },
		]);
		run.results[0].status = 'sent';
		run.results[1].error = 'rejected';
		run.results[1].retryable = true;
		resolveRepeats(run, plan.repeats);
		expect(run.results[2]).toMatchObject({ status: 'duplicate', dedup: 'in_batch' });
		expect(run.results[3]).toMatchObject({
			status: 'failed',
			retryable: true,
			error: 'same event as item 1 of this batch, which was failed: rejected',
		});
	});

	it('hash-tags the destination in the key for a cluster store', () => {
		const { run } = testRun(
			{ store: Object.assign(new MemoryDedupStore(), { hashTagKeys: true }) },
			1,
		);
		expect(planRun(run, [lead('a')]).candidates[0].key).toMatch(/^leadcapi:meta:\{d1\}:/);
	});
});
