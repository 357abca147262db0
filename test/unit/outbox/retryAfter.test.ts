import { outboxKey, OutboxWrites, planQueue, type OutboxEntry } from '../../../shared/outbox';
import { classifyHttpStatus, Transport } from '../../../shared/transport';
import { scriptedServer } from '../../support/scriptedServer';

const key = outboxKey('retry-after-unit-secret-0001');
const q = { platform: 'meta' as const, destination: 'px' };
const entry = (attempts: number): OutboxEntry => ({
	event_id: 'e1',
	event_name: 'Lead',
	event_time: 0,
	payload: {},
	attempts,
	deadline: 7 * 86_400_000,
	queued_at: 0,
});

describe("the platform's Retry-After, kept for the outbox", () => {
	/** A transport that never sleeps: the in-run budget decides (60 s by default). */
	const transport = () => new Transport({ sleep: async () => undefined, random: () => 0.5 });

	it.each([
		['seconds', '120', 120_000],
		['an HTTP date', new Date(Date.now() + 300_000).toUTCString(), 300_000],
	])(
		'a 429 with Retry-After in %s past the in-run budget: the failure says how long to wait',
		async (_form, header, ms) => {
			const server = await scriptedServer([{ status: 429, headers: { 'retry-after': header } }]);
			try {
				const seen: unknown[] = [];
				const result = await transport()
					.observed((r) => seen.push(r))
					.request({ method: 'POST', url: server.url, body: {} }, classifyHttpStatus);
				expect(result).toMatchObject({ ok: false, failure: 'retryable', attempts: 1 });
				const asked = (result as { retryAfterMs?: number }).retryAfterMs!;
				expect(asked).toBeGreaterThan(ms - 2_000);
				expect(asked).toBeLessThanOrEqual(ms);
				expect(seen).toEqual([result]);
			} finally {
				await server.close();
			}
		},
	);

	it('a failure without Retry-After carries none', async () => {
		const server = await scriptedServer(Array(5).fill({ status: 503 }));
		try {
			const result = await new Transport({
				sleep: async () => undefined,
				retry: { maxRetries: 1 },
			}).request({ method: 'POST', url: server.url, body: {} }, classifyHttpStatus);
			expect(result.ok).toBe(false);
			expect((result as { retryAfterMs?: number }).retryAfterMs).toBeUndefined();
		} finally {
			await server.close();
		}
	});

	it('the next try is the Retry-After when longer than the backoff, and says so; else the backoff', () => {
		const writes = new OutboxWrites();
		expect(
			planQueue(key, q, entry(1), { now: 1_000, retryAfterMs: 120_000, random: () => 1 }, writes),
		).toEqual({
			queued: true,
			nextTry: 121_000,
			attempts: 1,
			retryAfterMs: 120_000,
		});
		// Attempt 3: the backoff (2–4 minutes) is longer than a Retry-After of 10 s.
		expect(
			planQueue(key, q, entry(3), { now: 0, retryAfterMs: 10_000, random: () => 0 }, writes),
		).toEqual({
			queued: true,
			nextTry: 120_000,
			attempts: 3,
		});
		// Deliver → Via Outbox: due at once, whatever was asked.
		expect(planQueue(key, q, entry(0), { now: 5, dueAt: 5 }, writes)).toEqual({
			queued: true,
			nextTry: 5,
			attempts: 0,
		});
	});
});
