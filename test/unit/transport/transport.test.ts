import { classifyHttpStatus, parseRetryAfter, scrubText, scrubValue, Transport, backoffDelay } from '../../../shared/transport';
import { scriptedServer, type Step } from '../../support/scriptedServer';

/** A transport that records its waits instead of sleeping them. */
function recordingTransport(options: ConstructorParameters<typeof Transport>[0] = {}) {
	const waits: number[] = [];
	const logs: string[] = [];
	let now = Date.now();
	const transport = new Transport({
		retry: { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 2_000, maxTotalMs: 30_000 },
		timeoutMs: 2_000,
		random: () => 0.5,
		clock: () => now,
		sleep: async (ms) => {
			waits.push(ms);
			now += ms;
		},
		logger: { debug: (m) => logs.push(m), warn: (m) => logs.push(m) },
		...options,
	});
	return { transport, waits, logs };
}

async function withServer(steps: Step[], run: (url: string) => Promise<void>) {
	const server = await scriptedServer(steps);
	try {
		await run(server.url);
	} finally {
		await server.close();
	}
	return server;
}

describe('Transport', () => {
	it('retries a 500 and then succeeds, with exponential backoff', async () => {
		const { transport, waits } = recordingTransport();
		const server = await withServer(
			[{ status: 500 }, { status: 503 }, { status: 200, body: { ok: 1 } }],
			async (url) => {
				const r = await transport.request({ method: 'POST', url, body: { a: 1 } }, classifyHttpStatus);
				expect(r).toMatchObject({ ok: true, attempts: 3, response: { status: 200, data: { ok: 1 } } });
			},
		);
		expect(server.requests).toHaveLength(3);
		expect(JSON.parse(server.requests[0].body)).toEqual({ a: 1 });
		// base 100, jitter 0.5: attempt 1 → 100 + 0.5·(100-100) = 100; attempt 2 → 100 + 0.5·(200-100) = 150
		expect(waits).toEqual([100, 150]);
	});

	it('honours Retry-After on 429 (seconds and HTTP date)', async () => {
		const { transport, waits } = recordingTransport();
		await withServer(
			[
				{ status: 429, headers: { 'retry-after': '2' } },
				{ status: 429, headers: { 'retry-after': new Date(Date.now() + 20_000).toUTCString() } },
				{ status: 200 },
			],
			async (url) => {
				const r = await transport.request({ method: 'GET', url }, classifyHttpStatus);
				expect(r.ok).toBe(true);
			},
		);
		expect(waits[0]).toBe(2000);
		expect(waits[1]).toBeGreaterThan(15_000);
		expect(waits[1]).toBeLessThanOrEqual(20_000);
	});

	it('gives up after the retry count and says so', async () => {
		const { transport } = recordingTransport();
		const server = await withServer([{ status: 502 }], async (url) => {
			const r = await transport.request({ method: 'GET', url }, classifyHttpStatus);
			expect(r).toMatchObject({ ok: false, failure: 'retryable', attempts: 4 });
			if (!r.ok) expect(r.message).toMatch(/HTTP 502 \(gave up after 4 attempts\)/);
		});
		expect(server.requests).toHaveLength(4);
	});

	it('stops early when a wait would exceed the total time budget', async () => {
		const { transport, waits } = recordingTransport({
			retry: { maxRetries: 10, baseDelayMs: 100, maxDelayMs: 2_000, maxTotalMs: 5_000 },
		});
		await withServer([{ status: 429, headers: { 'retry-after': '30' } }], async (url) => {
			const r = await transport.request({ method: 'GET', url }, classifyHttpStatus);
			expect(r).toMatchObject({ ok: false, failure: 'retryable', attempts: 1 });
			if (!r.ok) expect(r.message).toMatch(/would exceed the 5000 ms budget/);
		});
		expect(waits).toEqual([]);
	});

	it('does not retry a permanent error', async () => {
		const { transport } = recordingTransport();
		const server = await withServer([{ status: 400, body: { error: 'bad' } }], async (url) => {
			const r = await transport.request({ method: 'GET', url }, classifyHttpStatus);
			expect(r).toMatchObject({ ok: false, failure: 'permanent', attempts: 1, response: { status: 400 } });
		});
		expect(server.requests).toHaveLength(1);
	});

	it('retries a connection reset and a request that never answers', async () => {
		const { transport } = recordingTransport({ timeoutMs: 300 });
		const server = await withServer([{ kind: 'reset' }, { kind: 'hang' }, { status: 200 }], async (url) => {
			const r = await transport.request({ method: 'POST', url, body: {} }, classifyHttpStatus);
			expect(r).toMatchObject({ ok: true, attempts: 3 });
		});
		expect(server.requests).toHaveLength(3);
	});

	it('lets the platform classifier retry a 200 that carries a transient error code', async () => {
		const { transport } = recordingTransport();
		await withServer([{ status: 200, body: { code: 50002 } }, { status: 200, body: { code: 0 } }], async (url) => {
			const r = await transport.request({ method: 'POST', url, body: {} }, (res) =>
				(res.data as { code: number }).code === 0 ? { kind: 'ok' } : { kind: 'retry', reason: 'code 50002' },
			);
			expect(r).toMatchObject({ ok: true, attempts: 2 });
		});
	});

	it('scrubs secrets from error messages, response bodies and retry logs', async () => {
		const token = 'EAAB-super-secret-token-123';
		const { transport, logs } = recordingTransport({ retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 1000 } });
		await withServer(
			[{ status: 500, body: { error: { message: `bad token ${token}`, echo: { access_token: token } } } }],
			async (url) => {
				const r = await transport.request(
					{ method: 'POST', url, body: { access_token: token } },
					(res) => ({ kind: 'retry', reason: JSON.stringify(res.data) }),
					[token],
				);
				const text = JSON.stringify(r) + logs.join('\n');
				expect(text).not.toContain(token);
				expect(text).toContain('[redacted]');
			},
		);
	});
});

describe('backoff and Retry-After', () => {
	it('grows exponentially and stays within the cap', () => {
		const opts = { baseDelayMs: 100, maxDelayMs: 1_000, random: () => 1 };
		expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, opts))).toEqual([100, 200, 400, 800, 1000, 1000]);
		expect(backoffDelay(3, { ...opts, random: () => 0 })).toBe(100);
	});

	it.each([
		['3', 3000],
		['0.5', 500],
		['Wed, 30 Nov 2026 12:00:10 GMT', 10_000],
		['soon', undefined],
		[undefined, undefined],
	])('parseRetryAfter(%j)', (value, expected) => {
		expect(parseRetryAfter(value, Date.parse('2026-11-30T12:00:00Z'))).toBe(expected);
	});
});

describe('secret scrubbing', () => {
	it.each([
		['https://graph.facebook.com/v26.0/1/events?access_token=EAAxyz123456&x=1', 'https://graph.facebook.com/v26.0/1/events?access_token=[redacted]&x=1'],
		['Authorization: Bearer abc.def-ghi', 'Authorization: [redacted]'],
		['{"access_token":"EAAxyz123456","a":1}', '{"access_token":"[redacted]","a":1}'],
		['token abcdef-secret in text', 'token [redacted] in text'],
		['Access-Token: tt_123456', 'Access-Token: [redacted]'],
	])('%s', (text, expected) => {
		expect(scrubText(text, ['abcdef-secret'])).toBe(expected);
	});

	it('masks credential keys and secret values anywhere in a value', () => {
		expect(
			scrubValue({ access_token: 'x', nested: [{ msg: 'the secret-value-9 leaked' }], appsecret_proof: 'p' }, ['secret-value-9']),
		).toEqual({ access_token: '[redacted]', nested: [{ msg: 'the [redacted] leaked' }], appsecret_proof: '[redacted]' });
	});
});
