import type { DispatchItem, ItemResult } from '../../shared';
import { statusCounts } from '../support/faultFigures';
import { faultHarness, runCounts, sleep } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { FAST_RETRY, fastTransport, leadItems } from '../support/senderHarness';

/** Meta's own throttle answer (code 17, "User request limit reached"). */
const THROTTLED = {
	error: { message: 'User request limit reached', code: 17, error_subcode: 2446079 },
};
const UNAVAILABLE = {
	error: { message: 'Service temporarily unavailable', code: 2, is_transient: true },
};
const ATTEMPTS = FAST_RETRY.maxRetries + 1;

/** The rows of RELIABILITY.md these scenarios write: what was done, what was expected. */
const ROWS = {
	'platform-500-burst': {
		order: 40,
		scenario: 'Burst of HTTP 500',
		done: '3 × HTTP 500 (Meta code 1) on a dispatch of 2,500 leads (3 batches)',
		expected: 'retried with backoff, every event delivered once',
	},
	'platform-500-beyond-retries': {
		order: 50,
		scenario: 'HTTP 503 beyond the retry budget',
		done: '4 × HTTP 503 on a batch of 1,000 (as many as the attempts allowed); re-run',
		expected:
			'fails retryable after 4 attempts ("gave up after 4 attempts"), nothing marked sent; the re-run delivers all 1,000 once',
	},
	'platform-429-retry-after': {
		order: 60,
		scenario: 'HTTP 429 with Retry-After',
		done: '2 × HTTP 429 "User request limit reached" with Retry-After: 1 on a batch of 1,000',
		expected: 'waits 1 s before each retry (as told), delivers once',
	},
	'platform-429-backoff': {
		order: 70,
		scenario: 'HTTP 429 without Retry-After',
		done: '3 × HTTP 429 without Retry-After on a batch of 1,000',
		expected: 'exponential backoff with jitter inside the retry policy, delivers once',
	},
	'platform-429-beyond-budget': {
		order: 80,
		scenario: 'HTTP 429, Retry-After beyond the budget',
		done: 'HTTP 429 with Retry-After: 120 (the request budget is 20 s) on a batch of 1,000; re-run',
		expected:
			'no 2-minute wait: fails retryable at once, naming the wait and the budget; the re-run delivers all 1,000 once',
	},
	'platform-reset': {
		order: 90,
		scenario: 'Connection reset',
		done: 'the platform reset the connection of each of 2 batches (2,000 leads) after reading the request headers, before accepting anything; re-run; re-run with After an Unknown Outcome: Resend',
		expected:
			'Meta: not resent — from the client a reset after sending cannot be told from a lost answer — so held (outcome_unknown); the re-run sends nothing and says held; the Resend re-run delivers every event once',
	},
	'platform-ambiguous-dropped': {
		order: 100,
		scenario: 'Accepted, connection dropped (ambiguous)',
		done: 'the platform accepted the batch of 1,000 and dropped the connection instead of answering; re-run',
		expected:
			'Meta may count a resend twice: one delivery, not resent in the run; items outcome_unknown, held (nothing marked sent); the re-run sends nothing and says held',
	},
	'platform-ambiguous-resend': {
		order: 105,
		scenario: 'Accepted, connection dropped, Resend',
		done: 'as above with After an Unknown Outcome: Resend (what TikTok and Google get by default: they drop a resend of the same id), dropped on all 4 attempts; re-run',
		expected:
			'fails retryable, nothing marked sent; the re-run resends the same 1,000 event ids, answered this time',
	},
	'platform-ambiguous-timeout': {
		order: 110,
		scenario: 'Accepted, no answer (ambiguous)',
		done: 'the platform accepted a batch of 1,000 and never answered; the 10 s request timeout ran out; re-run',
		expected:
			'Meta: not resent after the timeout; items outcome_unknown, held; the re-run sends nothing and says held',
	},
} as const;

type Fault = { status?: number; headers?: Record<string, string>; body?: unknown; kind?: string };

/**
 * The platform misbehaving, as the Meta stand-in is told to: bursts of 500, 429 with and
 * without Retry-After, connection resets, and the ambiguous case — the request accepted, its
 * answer lost. Retries are bounded (4 attempts, 20 s at most per request); an answer that never
 * came leaves nothing marked sent, and what is sent again is the same event with the same id.
 */
describe('the platform failing: 5xx, 429, resets, lost answers', () => {
	const h = faultHarness('faults-platform');

	/**
	 * One dispatch of `items` with `faults` queued at the stand-in (the waits the transport makes
	 * between attempts recorded), an audit that nothing unacknowledged is marked sent, and the
	 * recovery re-run, which must send exactly what the faulted run did not; then the scenario's
	 * row of RELIABILITY.md.
	 */
	const faultedThenRerun = async (
		id: keyof typeof ROWS,
		items: DispatchItem[],
		faults: Fault[],
	) => {
		const waits: number[] = [];
		const transport = fastTransport({
			sleep: async (ms) => {
				waits.push(ms);
				await sleep(ms);
			},
		});
		h.standIn.queueFaults(faults);
		const faulted = await h.run(items, { transport });
		expect(await h.audit()).toBe(0);
		const rerun = await h.run(items);
		const notSent = faulted.flatMap((r, i) => (r.status === 'sent' ? [] : [i]));
		expect(rerun.flatMap((r, i) => (r.status === 'sent' ? [i] : []))).toEqual(notSent);
		expect(h.standIn.pendingFaults()).toBe(0);
		await h.record({ id, ...ROWS[id] }, items, runCounts(faulted, rerun));
		return { faulted, rerun, waits };
	};

	it('a burst of 500s within the retry budget: retried, every event delivered once', async () => {
		const items = leadItems(2500, crmLead, 'Lead');
		const { faulted, waits } = await faultedThenRerun(
			'platform-500-burst',
			items,
			Array.from({ length: 3 }, () => ({
				status: 500,
				body: { error: { message: 'An unknown error occurred', code: 1 } },
			})),
		);
		expect(statusCounts(faulted)).toEqual({ sent: 2500 });
		// 3 batches, 3 of their attempts answered 500: 6 requests in all, a wait before each retry.
		expect(h.standIn.requests).toHaveLength(6);
		expect(waits).toHaveLength(3);
	});

	it('500s beyond the retry budget: after 4 attempts the batch fails retryable, nothing is marked sent; the re-run delivers it', async () => {
		const items = leadItems(1000, (i) => crmLead(1000 + i), 'Lead');
		const { faulted } = await faultedThenRerun(
			'platform-500-beyond-retries',
			items,
			Array.from({ length: ATTEMPTS }, () => ({ status: 503, body: UNAVAILABLE })),
		);
		expect(statusCounts(faulted)).toEqual({ failed: 1000 });
		expect(faulted[0]).toMatchObject({
			retryable: true,
			error: 'Meta: Service temporarily unavailable [code 2] (gave up after 4 attempts)',
		});
		// Meta answered (503): nothing unknown about it.
		expect(faulted[0].outcome_unknown).toBeUndefined();
		expect(h.standIn.requests).toHaveLength(ATTEMPTS + 1);
	});

	it('429 with Retry-After: waits exactly what Meta asks, then delivers once', async () => {
		const items = leadItems(1000, (i) => crmLead(2000 + i), 'Lead');
		const { faulted, waits } = await faultedThenRerun(
			'platform-429-retry-after',
			items,
			Array.from({ length: 2 }, () => ({
				status: 429,
				headers: { 'retry-after': '1' },
				body: THROTTLED,
			})),
		);
		expect(statusCounts(faulted)).toEqual({ sent: 1000 });
		expect(waits).toEqual([1000, 1000]);
	});

	it('429 without Retry-After: backs off with jitter within the policy, then delivers once', async () => {
		const items = leadItems(1000, (i) => crmLead(3000 + i), 'Lead');
		const { faulted, waits } = await faultedThenRerun(
			'platform-429-backoff',
			items,
			Array.from({ length: 3 }, () => ({ status: 429, body: THROTTLED })),
		);
		expect(statusCounts(faulted)).toEqual({ sent: 1000 });
		expect(waits).toHaveLength(3);
		for (const ms of waits) {
			expect(ms).toBeGreaterThanOrEqual(FAST_RETRY.baseDelayMs);
			expect(ms).toBeLessThanOrEqual(FAST_RETRY.maxDelayMs);
		}
	});

	it('429 asking for longer than the time budget: fails retryable at once, saying why; the re-run delivers', async () => {
		const items = leadItems(1000, (i) => crmLead(4000 + i), 'Lead');
		const { faulted, waits } = await faultedThenRerun('platform-429-beyond-budget', items, [
			{ status: 429, headers: { 'retry-after': '120' }, body: THROTTLED },
		]);
		expect(statusCounts(faulted)).toEqual({ failed: 1000 });
		expect(faulted[0]).toMatchObject({
			retryable: true,
			error: expect.stringMatching(
				/User request limit reached.*\(gave up after 1 attempts: the next wait \(120000 ms\) would exceed the 20000 ms budget\)$/,
			),
		});
		expect(waits).toEqual([]);
	});

	/**
	 * An unknown outcome on Meta (which may count a resend twice): the faulted run sends each
	 * batch once and holds it; the re-run sends nothing and says held; an audit after each run.
	 */
	const heldThenRerun = async (items: DispatchItem[], faults: Fault[]) => {
		h.standIn.queueFaults(faults);
		const faulted = await h.run(items);
		expect(await h.audit()).toBe(0);
		const requests = h.standIn.requests.length;
		const rerun = await h.run(items);
		expect(await h.audit()).toBe(0);
		expect(h.standIn.requests).toHaveLength(requests);
		expect(statusCounts(rerun)).toEqual({ skipped: items.length });
		expect(rerun.every((r) => r.dedup === 'held' && r.outcome_unknown === true)).toBe(true);
		expect(rerun[0].error).toMatch(
			/^not sent: an earlier run sent this event and got no answer \(outcome unknown\), so meta may have it already\. It is held, not resent .*events manager.*After an Unknown Outcome → Resend/,
		);
		expect(h.standIn.pendingFaults()).toBe(0);
		return { faulted, rerun };
	};

	const expectHeld = (faulted: ItemResult[], error: RegExp) => {
		expect(statusCounts(faulted)).toEqual({ failed: faulted.length });
		expect(faulted.every((r) => r.outcome_unknown === true && r.dedup === 'held')).toBe(true);
		expect(faulted[0]).toMatchObject({ retryable: false, error: expect.stringMatching(error) });
		expect(faulted[0].warnings).toEqual([
			expect.stringMatching(
				/^outcome unknown: the request went out and no answer came back, so meta may have this event already\. It is held, not resent \(meta may count a resend twice\): check the platform's events manager .*: Meta documents .* \(UNCONFIRMED\)$/,
			),
		]);
	};

	it('connection reset after the request went out (Meta): not resent, held; the re-run says held; Resend delivers once', async () => {
		const items = leadItems(2000, (i) => crmLead(5000 + i), 'Lead');
		const { faulted } = await heldThenRerun(items, [{ kind: 'reset' }, { kind: 'reset' }]);
		expectHeld(
			faulted,
			/^network error .*\(not resent: the request may have reached the platform\)$/,
		);
		// The stand-in accepted nothing: these events are at risk until the user resends them.
		expect(h.standIn.received).toHaveLength(0);
		const resent = await h.run(items, { afterUnknownOutcome: 'resend' });
		expect(statusCounts(resent)).toEqual({ sent: 2000 });
		await h.record({ id: 'platform-reset', ...ROWS['platform-reset'] }, items, {
			errorsReported: 2000,
			rerunSent: 2000,
		});
	});

	it('accepted, then the connection drops (ambiguous, Meta): delivered once, not resent, held; the re-run sends nothing and says held', async () => {
		const items = leadItems(1000, (i) => crmLead(6000 + i), 'Lead');
		const { faulted, rerun } = await heldThenRerun(items, [{ kind: 'accept-reset' }]);
		expectHeld(
			faulted,
			/^network error .*\(not resent: the request may have reached the platform\)$/,
		);
		expect(h.standIn.requests).toHaveLength(1);
		const deliveries = countBy(
			h.standIn.received.map((r: { event: { event_id: string } }) => r.event.event_id),
		);
		expect(new Set(Object.values(deliveries))).toEqual(new Set([1]));
		expect(Object.keys(deliveries).sort()).toEqual(faulted.map((r) => r.event_id).sort());
		await h.record(
			{ id: 'platform-ambiguous-dropped', ...ROWS['platform-ambiguous-dropped'] },
			items,
			runCounts(faulted, rerun),
		);
	});

	it('accepted, then the connection drops on every attempt, with Resend (the TikTok/Google default): fails retryable, nothing marked sent; the re-run resends the same events with the same ids', async () => {
		const items = leadItems(1000, (i) => crmLead(6500 + i), 'Lead');
		const resend = { afterUnknownOutcome: 'resend' as const };
		h.standIn.queueFaults(Array.from({ length: ATTEMPTS }, () => ({ kind: 'accept-reset' })));
		const faulted = await h.run(items, { transport: fastTransport(), ...resend });
		expect(await h.audit()).toBe(0);
		const rerun = await h.run(items, resend);
		expect(statusCounts(faulted)).toEqual({ failed: 1000 });
		expect(statusCounts(rerun)).toEqual({ sent: 1000 });
		expect(faulted[0]).toMatchObject({
			retryable: true,
			outcome_unknown: true,
			dedup: 'released',
			error: expect.stringMatching(/^network error.*\(gave up after 4 attempts\)$/),
		});
		expect(faulted[0].warnings).toEqual([
			expect.stringMatching(
				/^outcome unknown: .* A retry resends it with the same event id \(After an Unknown Outcome: Resend\), and meta may count it twice: Meta documents .* \(UNCONFIRMED\)$/,
			),
		]);
		// The stand-in has each event 5 times (4 unanswered, the re-run's answered), always the
		// same event: same id, same name, same event time.
		const deliveries = countBy(
			h.standIn.received.map((r: { event: { event_id: string } }) => r.event.event_id),
		);
		expect(new Set(Object.values(deliveries))).toEqual(new Set([ATTEMPTS + 1]));
		expect(sameEventEverywhere(rerun, h.standIn.received)).toBe(true);
		expect(h.standIn.pendingFaults()).toBe(0);
		await h.record(
			{ id: 'platform-ambiguous-resend', ...ROWS['platform-ambiguous-resend'] },
			items,
			runCounts(faulted, rerun),
		);
	});

	it('accepted, then no answer at all (ambiguous, timeout, Meta): not resent after the 10 s request timeout, held; the re-run sends nothing', async () => {
		const items = leadItems(1000, (i) => crmLead(7000 + i), 'Lead');
		const { faulted, rerun } = await heldThenRerun(items, [{ kind: 'accept-hang' }]);
		expectHeld(
			faulted,
			/^no response within 10000 ms \(not resent: the request may have reached the platform\)$/,
		);
		expect(h.standIn.requests).toHaveLength(1);
		expect(h.standIn.requests[0].answeredAt).toBeUndefined();
		expect(h.standIn.received).toHaveLength(1000);
		await h.record(
			{ id: 'platform-ambiguous-timeout', ...ROWS['platform-ambiguous-timeout'] },
			items,
			runCounts(faulted, rerun),
		);
	});
});

function countBy(values: string[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
	return counts;
}

/** Every delivery of an event carries the event id, name and time the results report for it. */
function sameEventEverywhere(
	results: ItemResult[],
	received: Array<{ event: { event_id: string; event_name: string; event_time: number } }>,
): boolean {
	const byId = new Map(results.map((r) => [r.event_id, r]));
	return received.every(({ event }) => {
		const r = byId.get(event.event_id);
		return (
			r !== undefined && r.event_name === event.event_name && r.event_time === event.event_time
		);
	});
}
