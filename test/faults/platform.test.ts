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
		done: '3 connections reset by the platform before it accepted anything, on a dispatch of 2,000 (2 batches)',
		expected: 'retried, every event delivered once',
	},
	'platform-ambiguous-dropped': {
		order: 100,
		scenario: 'Accepted, connection dropped (ambiguous)',
		done: 'the platform accepted the batch of 1,000 and dropped the connection instead of answering, on all 4 attempts; re-run',
		expected:
			'fails retryable, nothing marked sent (no answer = not acknowledged); the re-run resends the same 1,000 event ids, answered this time',
	},
	'platform-ambiguous-timeout': {
		order: 110,
		scenario: 'Accepted, no answer (ambiguous)',
		done: 'the platform accepted a batch of 1,000 and never answered; the 10 s request timeout ran out',
		expected:
			'retried: the same 1,000 event ids resent, answered, recorded as sent once; the re-run sends nothing',
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

	it('connection resets before the platform reads the request: retried, delivered once', async () => {
		const items = leadItems(2000, (i) => crmLead(5000 + i), 'Lead');
		const { faulted, waits } = await faultedThenRerun('platform-reset', items, [
			{ kind: 'reset' },
			{ kind: 'reset' },
			{ kind: 'reset' },
		]);
		expect(statusCounts(faulted)).toEqual({ sent: 2000 });
		expect(waits).toHaveLength(3);
	});

	it('accepted, then the connection drops on every attempt (ambiguous): fails retryable, nothing marked sent; the re-run resends the same events with the same ids', async () => {
		const items = leadItems(1000, (i) => crmLead(6000 + i), 'Lead');
		const { faulted, rerun } = await faultedThenRerun(
			'platform-ambiguous-dropped',
			items,
			Array.from({ length: ATTEMPTS }, () => ({ kind: 'accept-reset' })),
		);
		expect(statusCounts(faulted)).toEqual({ failed: 1000 });
		expect(faulted[0]).toMatchObject({
			retryable: true,
			outcome_unknown: true,
			error: expect.stringMatching(/^network error.*\(gave up after 4 attempts\)$/),
		});
		// Each item says the platform may have it, and that Meta may count a resend twice.
		expect(faulted.every((r) => r.outcome_unknown === true)).toBe(true);
		expect(faulted[0].warnings).toEqual([
			expect.stringMatching(
				/^outcome unknown: the request went out and no answer came back, so meta may have this event already\. A retry resends it with the same event id \(never lost\), and meta may count it twice: Meta documents .* \(UNCONFIRMED\)$/,
			),
		]);
		// The stand-in has each event 5 times (4 unanswered, the re-run's answered), always the
		// same event: same id, same name, same event time.
		const deliveries = countBy(
			h.standIn.received.map((r: { event: { event_id: string } }) => r.event.event_id),
		);
		expect(new Set(Object.values(deliveries))).toEqual(new Set([ATTEMPTS + 1]));
		expect(sameEventEverywhere(rerun, h.standIn.received)).toBe(true);
	});

	it('accepted, then no answer at all (ambiguous, timeout): resent with the same ids after the 10 s request timeout, acknowledged, recorded once', async () => {
		const items = leadItems(1000, (i) => crmLead(7000 + i), 'Lead');
		const { faulted } = await faultedThenRerun('platform-ambiguous-timeout', items, [
			{ kind: 'accept-hang' },
		]);
		expect(statusCounts(faulted)).toEqual({ sent: 1000 });
		expect(h.standIn.requests).toHaveLength(2);
		expect(h.standIn.requests[0].answeredAt).toBeUndefined();
		expect(sameEventEverywhere(faulted, h.standIn.received)).toBe(true);
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
