import { planRun } from '../../../shared/dispatch/plan';
import { prepareDryRun, prepareEvent } from '../../../shared/dispatch/prepare';
import { lead, testRun } from './fixtures';

describe('dispatch stage 2: prepare', () => {
	it('normalizes the identity, renders it for the platform and builds the event', () => {
		const { run } = testRun({ includePayload: true }, 1);
		const [c] = planRun(run, [lead('a')]).candidates;
		expect(prepareEvent(run, c)).toBe(c.eventId);
		expect(run.results[0]).toMatchObject({ match_keys: ['email'], payload: c.eventId });
		expect(run.results[0].match_quality).toBeGreaterThan(0);
	});

	it('ends an event the builder refuses with its reason and returns null', () => {
		const { run } = testRun({}, 1);
		const [c] = planRun(run, [
			{
				record: { record_id: 'x', occurred_at: new Date().toISOString(), contact: {} },
				eventName: 'Lead',
			},
		]).candidates;
		expect(prepareEvent(run, c)).toBeNull();
		expect(run.results[0]).toMatchObject({ status: 'failed', error: 'no identity' });
	});

	it('a dry run builds every event and previews one request, sending nothing', () => {
		const { run, sent } = testRun({ mode: { kind: 'dryRun' } }, 2);
		const { candidates } = planRun(run, [lead('a'), lead('b')]);
		prepareDryRun(run, candidates);
		expect(run.results.map((r) => [r.status, r.dry_run])).toEqual([
			['skipped', true],
			['skipped', true],
		]);
		expect(run.results[0].response).toEqual({
			request_preview: { data: candidates.map((c) => c.eventId) },
		});
		expect(sent).toHaveLength(0);
	});
});
