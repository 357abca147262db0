import type { DispatchItem } from '../../shared';
import type { DispatcherProcess } from '../support/dispatcherProcess';
import { markedSent } from '../support/faultFigures';
import { faultHarness } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { until } from '../support/redisTopology';
import { leadItems } from '../support/senderHarness';

/** The claim lease here (production: 30 s), so that the dead run's claims expire within the test. */
const LEASE_MS = 3_000;
/**
 * How long the first re-run waits for a live claim here, to see the dead run's claims live
 * (production default: the lease + 2 s, which outlasts a crashed run's claims — see the last test).
 */
const IN_FLIGHT_WAIT_MS = 500;
const options = { claimTtlMs: LEASE_MS, inFlightWaitMs: IN_FLIGHT_WAIT_MS };

/**
 * A dispatching process (the built core, as an n8n worker runs it) SIGKILLed with 4 of its 5
 * batches at the platform — before the platform accepted them, or after it accepted them and
 * before the answers came back. Its claims are leases it no longer renews: a re-run while they
 * live sends what the dead run never claimed and reports the rest `in_flight` (never a silent
 * duplicate: the dead run may have sent them); once they expire — one lease after the kill, as
 * n8n's re-run of a stalled execution (~83 s later) finds them with the default 30 s lease — a
 * re-run sends those events, with the same ids. Nothing is lost; an event is delivered twice
 * only where the platform had accepted it and its answer was lost (the ambiguous case).
 */
describe('a dispatching process killed mid-dispatch', () => {
	const h = faultHarness('faults-kill');

	/** Starts a dispatch of `items` in a process of its own, kills it once 4 requests are at the stand-in. */
	const killWithFourAtPlatform = async (items: DispatchItem[], held: () => number) => {
		const doomed = await h.dispatcher();
		await doomed.prepare(items, options);
		const dying = doomed.go().then(
			() => 'finished',
			(error: Error) => error.message,
		);
		await until('4 batches at the stand-in', async () => held() === 4, 120_000);
		await doomed.kill('SIGKILL');
		expect(await dying).toMatch(/exited \(SIGKILL\)/);
		return Date.now();
	};

	/** A re-run at once (the dead run's claims live), then one once they expired. */
	const rerunWhileClaimedThenAfterExpiry = async (
		survivor: DispatcherProcess,
		items: DispatchItem[],
		killedAt: number,
	) => {
		const whileClaimed = await survivor.go();
		expect(whileClaimed.status).toEqual({ sent: 1000, failed: 4000 });
		expect(whileClaimed.dedup).toEqual({ claimed: 1000, in_flight: 4000 });
		expect(Object.keys(whileClaimed.errors)).toEqual([
			`retryable: another run claimed this event and has not settled it within 1 s; nothing was sent here. If that run crashed, its claim expires within ${LEASE_MS / 1000} s of its last renewal: retry after that and the event is sent`,
		]);
		expect(await h.audit()).toBe(0);
		await until(
			"the dead run's claims to expire",
			async () => (await h.admin.keys(`${h.prefix}:meta:*`)).length === 1000,
			60_000,
		);
		const expiredAfterMs = Date.now() - killedAt;
		const afterExpiry = await survivor.dispatch(items, options);
		expect(afterExpiry.status).toEqual({ sent: 4000, duplicate: 1000 });
		return { whileClaimed, afterExpiry, expiredAfterMs };
	};

	it('killed after the platform accepted 4 batches: after the lease expires, a re-run resends them with the same event ids (the ambiguous case); nothing is lost', async () => {
		const items = leadItems(5000, crmLead, 'Lead');
		const survivor = await h.dispatcher();
		await survivor.prepare(items, options);
		// The platform accepts the first 4 batches (4,000 events) and holds its answers.
		h.standIn.queueFaults(Array.from({ length: 4 }, () => ({ kind: 'accept-hold' })));
		const killedAt = await killWithFourAtPlatform(items, () => h.standIn.heldAnswers());
		h.standIn.dropHeld();
		expect(h.standIn.received).toHaveLength(4000);
		expect(await markedSent(h.admin, h.prefix)).toEqual(new Set());

		const { whileClaimed, afterExpiry, expiredAfterMs } = await rerunWhileClaimedThenAfterExpiry(
			survivor,
			items,
			killedAt,
		);
		expect(expiredAfterMs).toBeLessThan(LEASE_MS + 5_000);
		expect(h.standIn.received).toHaveLength(9000);

		await h.record(
			{
				id: 'process-killed',
				order: 120,
				scenario: 'Dispatching process killed after the platform accepted',
				done: `SIGKILL of a dispatching process (built core) after the platform accepted 4 of its 5 batches, before the answers came back (claim lease ${LEASE_MS / 1000} s); a re-run in another process at once, another once the dead run's claims expired (${(expiredAfterMs / 1000).toFixed(1)} s after the kill)`,
				expected:
					'the first re-run sends the never-claimed batch and reports the 4,000 as in_flight (retryable, not duplicate); after expiry the re-run resends those 4,000 with the same event ids (accepted, answer lost: the ambiguous case); nothing lost',
			},
			items,
			{
				errorsReported: whileClaimed.status.failed ?? 0,
				rerunSent: (whileClaimed.status.sent ?? 0) + (afterExpiry.status.sent ?? 0),
			},
		);
	});

	it('killed before the platform accepted 4 batches: after the lease expires, a re-run sends them once; nothing lost, nothing twice', async () => {
		const items = leadItems(5000, (i) => crmLead(50_000 + i), 'Lead');
		const survivor = await h.dispatcher();
		await survivor.prepare(items, options);
		// The platform takes the first 4 requests and never looks at them: nothing accepted.
		h.standIn.queueFaults(Array.from({ length: 4 }, () => ({ kind: 'hang' })));
		const killedAt = await killWithFourAtPlatform(items, () => 4 - h.standIn.pendingFaults());
		expect(h.standIn.received).toHaveLength(0);

		const { whileClaimed, afterExpiry, expiredAfterMs } = await rerunWhileClaimedThenAfterExpiry(
			survivor,
			items,
			killedAt,
		);
		expect(expiredAfterMs).toBeLessThan(LEASE_MS + 5_000);
		expect(h.standIn.received).toHaveLength(5000);

		await h.record(
			{
				id: 'process-killed-before-accept',
				order: 119,
				scenario: 'Dispatching process killed before the platform accepted',
				done: `SIGKILL of a dispatching process (built core) while 4 of its 5 batches were at a platform that had not accepted them (claim lease ${LEASE_MS / 1000} s); a re-run in another process at once, another once the dead run's claims expired (${(expiredAfterMs / 1000).toFixed(1)} s after the kill)`,
				expected:
					'the first re-run sends the never-claimed batch and reports the 4,000 as in_flight (retryable); after expiry the re-run sends those 4,000, each delivered once; nothing lost',
			},
			items,
			{
				errorsReported: whileClaimed.status.failed ?? 0,
				rerunSent: (whileClaimed.status.sent ?? 0) + (afterExpiry.status.sent ?? 0),
			},
		);
	});

	it("killed before the platform accepted; a retry at once with the default in-flight wait (lease + 2 s) outlasts the dead run's claims and sends everything once: nothing in_flight", async () => {
		const items = leadItems(5000, (i) => crmLead(90_000 + i), 'Lead');
		const survivor = await h.dispatcher();
		h.standIn.queueFaults(Array.from({ length: 4 }, () => ({ kind: 'hang' })));
		const killedAt = await killWithFourAtPlatform(items, () => 4 - h.standIn.pendingFaults());
		expect(h.standIn.received).toHaveLength(0);

		// No inFlightWaitMs: the default waits the lease out.
		const retry = await survivor.dispatch(items, { claimTtlMs: LEASE_MS });
		const doneAfterMs = Date.now() - killedAt;
		expect(retry.status).toEqual({ sent: 5000 });
		expect(retry.dedup).toEqual({ claimed: 5000 });
		expect(doneAfterMs).toBeLessThan(LEASE_MS + 2_000 + 10_000);
		expect(h.standIn.received).toHaveLength(5000);

		await h.record(
			{
				id: 'process-killed-retry-waits',
				order: 121,
				scenario: 'Retry at once after a kill, default in-flight wait',
				done: `SIGKILL of a dispatching process while 4 of its 5 batches were at a platform that had not accepted them (claim lease ${LEASE_MS / 1000} s); a retry in another process at once, with the default in-flight wait (the lease + 2 s)`,
				expected:
					"the retry waits out the dead run's claims instead of failing them in_flight, and sends all 5,000 once; nothing lost, nothing twice",
			},
			items,
			{ errorsReported: 0, rerunSent: retry.status.sent ?? 0 },
		);
	});
});
