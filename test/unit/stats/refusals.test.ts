import {
	describeRefusal,
	MemoryDedupStore,
	refusalIncrement,
	RefusalLogLimiter,
	refusalReason,
	STATS_TTL_MS,
	summarizeRefusals,
} from '../../../shared';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1, 10, 15);

describe('refused captures: reasons', () => {
	it.each([
		[401, 'signature'],
		[403, 'origin'],
		[413, 'size'],
		[405, 'method'],
		[400, 'body'],
		[415, 'body'],
		[422, 'record'],
	])('HTTP %i is counted as %s', (status, reason) => {
		expect(refusalReason(status)).toBe(reason);
	});
});

describe('refused captures: counters', () => {
	it('are hourly buckets per path, kept as long as the send counters', () => {
		expect(refusalIncrement('leadcapi:acme', 'leads/typeform', 'signature', T0)).toEqual({
			key: 'leadcapi:acme:refused:leads/typeform:2026120110',
			path: 'leads/typeform',
			reason: 'signature',
			ttlMs: STATS_TTL_MS,
		});
	});

	it('sum per path and reason over the buckets of the window, paths with none left out', () => {
		expect(
			summarizeRefusals(
				[
					{ _path: 'leads', signature: '3', origin: '1' },
					{ _path: 'leads', signature: '2', body: '1' },
					{ _path: 'quiet' },
					{ _path: 'book', size: '1', junk: 'x' },
					{ signature: '9' },
				],
				24,
			),
		).toEqual([
			{ capture_path: 'book', window_hours: 24, refused: 1, reasons: { size: 1 } },
			{
				capture_path: 'leads',
				window_hours: 24,
				refused: 7,
				reasons: { signature: 5, origin: 1, body: 1 },
			},
		]);
	});

	it('the in-memory store counts them, reads only the window, and expires them', async () => {
		let now = T0;
		const store = new MemoryDedupStore(() => now);
		await store.recordRefusal(refusalIncrement('p', 'leads', 'signature', now));
		await store.recordRefusal(refusalIncrement('p', 'leads', 'signature', now));
		await store.recordRefusal(refusalIncrement('p', 'leads', 'origin', now));
		await store.recordRefusal(refusalIncrement('other', 'leads', 'origin', now));
		now += 2 * HOUR;
		await store.recordRefusal(refusalIncrement('p', 'leads', 'signature', now));
		expect(await store.readRefusals('p', { hours: 1 })).toEqual([
			{ capture_path: 'leads', window_hours: 1, refused: 1, reasons: { signature: 1 } },
		]);
		expect(await store.readRefusals('p', { hours: 24 })).toEqual([
			{ capture_path: 'leads', window_hours: 24, refused: 4, reasons: { signature: 3, origin: 1 } },
		]);
		// Not mixed into the send counters.
		expect(await store.readStats('p', { hours: 24 })).toEqual([]);
		now += STATS_TTL_MS + HOUR;
		expect(await store.readRefusals('p', { hours: 48 })).toEqual([]);
	});
});

describe('refused captures: the log limiter', () => {
	it('logs one line per path and reason per window, then the next with how many were held back', () => {
		const limiter = new RefusalLogLimiter(60_000);
		expect(limiter.admit('leads', 'signature', T0)).toEqual({ log: true, suppressed: 0 });
		expect(limiter.admit('leads', 'signature', T0 + 1_000)).toEqual({ log: false, suppressed: 1 });
		expect(limiter.admit('leads', 'signature', T0 + 59_999)).toEqual({ log: false, suppressed: 2 });
		// Another reason or another path has its own window.
		expect(limiter.admit('leads', 'origin', T0 + 2_000)).toEqual({ log: true, suppressed: 0 });
		expect(limiter.admit('book', 'signature', T0 + 2_000)).toEqual({ log: true, suppressed: 0 });
		expect(limiter.admit('leads', 'signature', T0 + 60_000)).toEqual({ log: true, suppressed: 2 });
		expect(limiter.admit('leads', 'signature', T0 + 60_001)).toEqual({ log: false, suppressed: 1 });
	});

	it('remembers a bounded number of paths, so a flood of made-up paths cannot grow it', () => {
		const limiter = new RefusalLogLimiter(60_000, 3);
		for (let i = 0; i < 100; i++) expect(limiter.admit(`p${i}`, 'signature', T0).log).toBe(true);
		// The oldest were forgotten: a repeat of p0 is logged again; p99 is still held back.
		expect(limiter.admit('p0', 'signature', T0 + 1).log).toBe(true);
		expect(limiter.admit('p99', 'signature', T0 + 1).log).toBe(false);
	});
});

describe('refused captures: the log line', () => {
	it('names path, source, status, reason and what to check, and how many were held back', () => {
		expect(
			describeRefusal({
				path: 'leads',
				source: 'typeform',
				status: 401,
				reason: 'signature does not match',
				suppressed: 4,
			}),
		).toBe(
			"Lead Capture Trigger: refused a delivery to /leads (source typeform, HTTP 401, signature): signature does not match; check that the trigger's Lead Capture Webhook credential holds the exact secret the sender signs with (Typeform: the webhook's Secret; Tally: Signing secret; Calendly: webhook signing key; Cal.com: the webhook's Secret) (4 more refused for this reason since the last such line; at most one line per 60 s)",
		);
	});
});
