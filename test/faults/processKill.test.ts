import { markedSent } from '../support/faultFigures';
import { faultHarness } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { until } from '../support/redisTopology';
import { leadItems } from '../support/senderHarness';

/** Short, so the dead run's claims expire within the test (production: 120 s). */
const CLAIM_TTL_MS = 10_000;
/** How long a re-run waits for a live claim here (production: 10 s, shorter than the claim TTL). */
const IN_FLIGHT_WAIT_MS = 500;

/**
 * A dispatching process (the built core, as an n8n worker runs it) SIGKILLed after the platform
 * accepted its batches and before it could settle them: its claims outlive it. A re-run while
 * they live sends what the dead run never claimed and reports the rest `in_flight` (never a
 * silent duplicate: the dead run may not have sent them); once they expire, a re-run sends those
 * events again, with the same ids. Nothing is lost.
 */
describe('a dispatching process killed between send and settle', () => {
	const h = faultHarness('faults-kill');

	it('after its claims expire, a re-run resends the accepted batches with the same event ids; nothing is lost', async () => {
		const items = leadItems(5000, crmLead, 'Lead');
		const options = { claimTtlMs: CLAIM_TTL_MS, inFlightWaitMs: IN_FLIGHT_WAIT_MS };
		const [doomed, survivor] = await Promise.all([h.dispatcher(), h.dispatcher()]);
		await survivor.prepare(items, options);

		// The platform accepts the first 4 batches (4,000 events) and holds its answers: the
		// process has sent them and waits to settle when it is killed. Batch 5 is not claimed yet.
		h.standIn.queueFaults(Array.from({ length: 4 }, () => ({ kind: 'accept-hold' })));
		await doomed.prepare(items, options);
		const dying = doomed.go().then(
			() => 'finished',
			(error: Error) => error.message,
		);
		await until(
			'4 batches held at the stand-in',
			async () => h.standIn.heldAnswers() === 4,
			120_000,
		);
		await doomed.kill('SIGKILL');
		expect(await dying).toMatch(/exited \(SIGKILL\)/);
		h.standIn.dropHeld();
		expect(h.standIn.received).toHaveLength(4000);
		expect(await markedSent(h.admin, h.prefix)).toEqual(new Set());

		// Another process re-runs at once: the dead run's claims are live.
		const whileClaimed = await survivor.go();
		expect(whileClaimed.status).toEqual({ sent: 1000, failed: 4000 });
		expect(whileClaimed.dedup).toEqual({ claimed: 1000, in_flight: 4000 });
		expect(Object.keys(whileClaimed.errors)).toEqual([
			`retryable: another run claimed this event and has not settled it within 1 s; nothing was sent here. If that run crashed, its claim expires within ${CLAIM_TTL_MS / 1000} s and a retry sends the event`,
		]);
		expect(await h.audit()).toBe(0);

		// Once they expire, the next re-run sends those 4,000 again: same events, same ids.
		await until(
			"the dead run's claims to expire",
			async () => (await h.admin.keys(`${h.prefix}:meta:*`)).length === 1000,
			60_000,
		);
		const afterExpiry = await survivor.dispatch(items, options);
		expect(afterExpiry.status).toEqual({ sent: 4000, duplicate: 1000 });
		expect(h.standIn.received).toHaveLength(9000);

		await h.record(
			{
				id: 'process-killed',
				order: 120,
				scenario: 'Dispatching process killed between send and settle',
				done: `SIGKILL of a dispatching process (built core) after the platform accepted 4 of its 5 batches, before any settle (claim TTL ${CLAIM_TTL_MS / 1000} s); a re-run in another process at once, another after the claims expired`,
				expected:
					'the first re-run sends the never-claimed batch and reports the 4,000 as in_flight (retryable, not duplicate); after expiry the re-run resends those 4,000 with the same event ids; nothing lost',
			},
			items,
			{
				errorsReported: whileClaimed.status.failed ?? 0,
				rerunSent: (whileClaimed.status.sent ?? 0) + (afterExpiry.status.sent ?? 0),
			},
		);
	});
});
