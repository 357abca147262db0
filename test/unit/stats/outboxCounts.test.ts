import { outboxMoveIncrements, summarizeStats, tallyResults } from '../../../shared/stats';

describe('Health Report: queued and dead-lettered events apart from failed', () => {
	it('moves results the outbox took from what the dispatch counted them as', () => {
		const counted = tallyResults([
			{ status: 'failed', match_keys: [] },
			{ status: 'failed', match_keys: [] },
			{ status: 'skipped', match_keys: [] },
			{ status: 'failed', match_keys: [] },
		]);
		const moved = outboxMoveIncrements([
			{ from: 'failed', to: 'queued' },
			{ from: 'skipped', to: 'queued' },
			{ from: 'failed', to: 'dead_lettered' },
			// Deliver → Via Outbox: queued, never counted when it builds them for the outbox (mode buildForOutbox).
			{ to: 'queued' },
		]);
		expect(moved).toEqual({ failed: -2, skipped: -1, queued: 3, dead_lettered: 1 });
		const bucket = (fields: Record<string, number>) =>
			Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
		const [stats] = summarizeStats(
			[
				{ _platform: 'meta', _destination: '42', ...bucket(counted) },
				{ _platform: 'meta', _destination: '42', ...bucket(moved) },
			],
			24,
		);
		expect(stats).toMatchObject({ failed: 1, skipped: 0, queued: 3, dead_lettered: 1 });
	});

	it('shows the figures only when there were some, and never a count below 0', () => {
		const [none] = summarizeStats([{ _platform: 'meta', _destination: '43', sent: '1' }], 24);
		expect(none.queued).toBeUndefined();
		expect(none.dead_lettered).toBeUndefined();
		// The failed count of a correction's event fell out of the report window.
		const [edge] = summarizeStats(
			[{ _platform: 'meta', _destination: '44', failed: '-1', queued: '1' }],
			24,
		);
		expect(edge).toMatchObject({ failed: 0, queued: 1 });
	});
});
