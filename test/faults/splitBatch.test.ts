import { deriveEventId, type DispatchItem } from '../../shared';
import { statusCounts } from '../support/faultFigures';
import { FAULT_PIXEL, faultHarness } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { until } from '../support/redisTopology';
import { leadItems } from '../support/senderHarness';

/** The lease here (production: 30 s); the split below takes ten times as long. */
const LEASE_MS = 2_000;
/** How long the stand-in takes per request (seen in production: 1.5 s). */
const LATENCY_MS = 250;
const LEADS = 1000;
/** Events Meta refuses, which make it refuse every request that carries one of them. */
const BAD = [37, 211, 480, 702, 955];

/**
 * Issue 12, case 1: Meta refuses a whole batch for one bad event, so the sender splits it and
 * resends halves one request at a time; with a slow platform that takes far longer than a claim
 * lives. A second run of the same leads (another OS process) starts in the middle of the split.
 * Before leases the first run's claims expired under it and the second run sent almost every
 * event again; now the first run renews its lease and commits each accepted part at once.
 */
describe('a split batch that takes longer than a claim lives', () => {
	const h = faultHarness('faults-split');

	it('a second run in the middle of a slow split sends nothing twice, and both runs say what happened', async () => {
		const items = leadItems(LEADS, (i) => crmLead(30_000 + i), 'Lead');
		const bad = new Set(BAD);
		for (const i of BAD)
			h.standIn.poison(deriveEventId(FAULT_PIXEL, 'Lead', String(items[i].record.record_id)));
		const valid = items.filter((_, i) => !bad.has(i));
		const second = await h.dispatcher();
		await second.prepare(items, { claimTtlMs: LEASE_MS });
		h.standIn.setLatency(LATENCY_MS);
		try {
			const startedAt = Date.now();
			const running = h
				.run(items, { claimTtlMs: LEASE_MS })
				.then((results) => ({ results, ms: Date.now() - startedAt }));
			// Well into the split: several leases' worth of time has passed.
			await until(
				'30 requests at the stand-in',
				async () => h.standIn.requests.length >= 30,
				120_000,
			);
			const secondStartedAt = Date.now() - startedAt;
			const [first, other] = await Promise.all([running, second.go()]);

			expect(first.ms).toBeGreaterThan(5 * LEASE_MS);
			expect(statusCounts(first.results)).toEqual({ sent: LEADS - BAD.length, failed: BAD.length });
			for (const i of BAD) {
				expect(first.results[i]).toMatchObject({
					status: 'failed',
					retryable: false,
					dedup: 'released',
				});
			}
			// The second run sent none of the valid events: each was committed already (duplicate,
			// sent_before) or still held by the first run (failed, retryable, in_flight).
			expect(other.status.sent ?? 0).toBe(0);
			expect(
				Object.keys(other.dedup).every((d) => ['sent_before', 'in_flight', 'released'].includes(d)),
			).toBe(true);
			expect(other.dedup.sent_before).toBeGreaterThan(0);
			expect(await h.audit()).toBe(0);

			h.standIn.setLatency(0);
			const rerun = await h.run(items);
			expect(statusCounts(rerun)).toEqual({ duplicate: LEADS - BAD.length, failed: BAD.length });

			await h.record(
				{
					id: 'split-batch-lease',
					order: 115,
					scenario: 'Slow split batch, second run in the middle',
					done: `${LEADS.toLocaleString('en-US')} leads to Meta, ${BAD.length} of them refused (the batch is split and resent in halves, one request at a time), ${LATENCY_MS} ms per request, claim lease ${LEASE_MS / 1000} s: the split took ${(first.ms / 1000).toFixed(0)} s; a second run of the same leads in another process started at ${(secondStartedAt / 1000).toFixed(0)} s; then a re-run`,
					expected:
						'the first run keeps its claims for as long as it works and commits each accepted part at once: the second run sends nothing (duplicate, or in_flight while the first still holds the event); only the refused events fail; the re-run sends nothing',
					details: {
						firstMs: first.ms,
						secondStartedAt,
						second: other,
						requests: h.standIn.requests.length,
					},
				},
				valid as DispatchItem[],
				{
					errorsReported: BAD.length + (other.status.failed ?? 0),
					rerunSent: rerun.filter((r) => r.status === 'sent').length,
				},
			);
		} finally {
			h.standIn.setLatency(0);
		}
	});
});
