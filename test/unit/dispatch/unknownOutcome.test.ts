import {
	classifyNetworkError,
	dispatch,
	MemoryDedupStore,
	Transport,
	type SendOutcome,
} from '../../../shared';
import { resendsUnknown } from '../../../shared/dispatch/outcome';
import type { UnknownOutcomePolicy } from '../../../shared/dispatch/types';
import { PLATFORM_ADAPTERS } from '../../../shared/platforms';
import { PLATFORMS, type Platform } from '../../../shared/types';
import { lead, testPlatform } from './fixtures';

const POLICY = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 5_000 };

/** How many times the transport of a run on `platform` tries a request that fails with `error`. */
async function attemptsAfter(
	platform: Platform,
	error: { code?: string; message: string },
	policy: UnknownOutcomePolicy = 'auto',
) {
	let attempts = 0;
	const transport = new Transport({
		retry: POLICY,
		sleep: async () => undefined,
		executor: async () => {
			attempts++;
			throw Object.assign(new Error(error.message), { code: error.code });
		},
	}).withUnknownOutcomes(resendsUnknown(PLATFORM_ADAPTERS[platform].resendDedup, policy));
	const result = await transport.request({ method: 'POST', url: 'http://127.0.0.1:9/x' }, () => ({
		kind: 'ok',
	}));
	if (result.ok) throw new Error('expected a failure');
	return { attempts, result };
}

const TIMEOUT = { code: 'ECONNABORTED', message: 'timeout of 10000ms exceeded' };
const RESET = { code: 'ECONNRESET', message: 'socket hang up' };
const REFUSED = { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' };
const DNS_AGAIN = { code: 'EAI_AGAIN', message: 'getaddrinfo EAI_AGAIN graph.facebook.com' };
const TLS = { code: 'EPROTO', message: 'write EPROTO ssl3_read_bytes:tlsv1 alert' };

describe('transport retry classification', () => {
	it.each([
		['ECONNREFUSED', '', 'not_sent'],
		['EAI_AGAIN', '', 'not_sent'],
		['EHOSTUNREACH', '', 'not_sent'],
		['ERR_SOCKET_CONNECTION_TIMEOUT', '', 'not_sent'],
		['EPROTO', 'TLS handshake', 'not_sent'],
		['ERR_SSL_WRONG_VERSION_NUMBER', '', 'not_sent'],
		['ECONNRESET', 'socket hang up', 'unknown'],
		['EPIPE', '', 'unknown'],
		['ECONNABORTED', 'timeout of 10000ms exceeded', 'unknown'],
		['ETIMEDOUT', '', 'unknown'],
		['', 'socket hang up', 'unknown'],
		['ENOTFOUND', 'getaddrinfo ENOTFOUND x', 'permanent'],
		['CERT_HAS_EXPIRED', 'certificate has expired', 'permanent'],
	])('%s %s → %s', (code, detail, expected) => {
		expect(classifyNetworkError(code, detail)).toBe(expected);
	});

	const dropsResends: Record<Platform, boolean> = {
		meta: false,
		pinterest: false,
		microsoft: false,
		tiktok: true,
		google: true,
	};

	it.each(PLATFORMS.map((p) => [p, dropsResends[p]] as const))(
		'%s (drops a resend of the same id: %s): a timeout or a reset after sending is resent only where it does',
		async (platform, drops) => {
			for (const error of [TIMEOUT, RESET]) {
				const { attempts, result } = await attemptsAfter(platform, error);
				expect(attempts).toBe(drops ? 4 : 1);
				expect(result).toMatchObject({ failure: 'retryable', outcomeUnknown: true });
				if (!drops) {
					expect(result.message).toMatch(
						/\(not resent: the request may have reached the platform\)$/,
					);
				}
			}
		},
	);

	it.each(PLATFORMS)(
		'%s: a refused connection, a DNS hiccup, a failed TLS handshake are retried (never reached the platform)',
		async (platform) => {
			for (const error of [REFUSED, DNS_AGAIN, TLS]) {
				const { attempts, result } = await attemptsAfter(platform, error);
				expect(attempts).toBe(4);
				expect(result.outcomeUnknown).toBeUndefined();
			}
		},
	);

	it('the sender option overrides the platform: Hold on TikTok, Resend on Meta', async () => {
		expect((await attemptsAfter('tiktok', TIMEOUT, 'hold')).attempts).toBe(1);
		expect((await attemptsAfter('meta', TIMEOUT, 'resend')).attempts).toBe(4);
	});
});

/** A platform whose first answer is lost (as the transport words it), then acknowledges. */
function losingFirstAnswer(platform: Platform) {
	let calls = 0;
	const made = testPlatform((payloads) =>
		payloads.map(
			(): SendOutcome =>
				calls === 1
					? {
							status: 'failed',
							retryable: true,
							error: `${platform}: no response within 10000 ms (not resent: the request may have reached the platform)`,
							outcomeUnknown: true,
						}
					: { status: 'sent' },
		),
	);
	const adapter = {
		...made.adapter,
		platform,
		resendDedup: PLATFORM_ADAPTERS[platform].resendDedup,
		sendChunk: (...args: Parameters<typeof made.adapter.sendChunk>) => {
			calls++;
			return made.adapter.sendChunk(...args);
		},
	};
	return { adapter, sent: made.sent };
}

describe('settle after an unknown outcome', () => {
	const run = (
		adapter: ReturnType<typeof losingFirstAnswer>['adapter'],
		store: MemoryDedupStore,
		afterUnknownOutcome?: UnknownOutcomePolicy,
	) =>
		dispatch([lead('a'), lead('b')], {
			adapter,
			config: { destination: 'd1' },
			transport: new Transport(),
			store,
			afterUnknownOutcome,
		});

	it('Meta: held, not resent by a re-run (which says so); Resend sends it with the same id, once', async () => {
		const store = new MemoryDedupStore();
		const { adapter, sent } = losingFirstAnswer('meta');
		const first = await run(adapter, store);
		expect(first.map((r) => [r.status, r.dedup, r.outcome_unknown, r.retryable])).toEqual([
			['failed', 'held', true, false],
			['failed', 'held', true, false],
		]);
		expect(first[0].warnings[0]).toMatch(
			/^outcome unknown: .* It is held, not resent .*events manager.*After an Unknown Outcome → Resend/,
		);
		// The held marker lasts like a sent marker: a re-run sends nothing and says why.
		const rerun = await run(adapter, store);
		expect(sent).toHaveLength(1);
		expect(rerun.map((r) => [r.status, r.dedup, r.outcome_unknown])).toEqual([
			['skipped', 'held', true],
			['skipped', 'held', true],
		]);
		expect(rerun[0].error).toMatch(/^not sent: an earlier run sent this event and got no answer/);
		// The user checked the events manager and chose to resend.
		const resent = await run(adapter, store, 'resend');
		expect(resent.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(sent).toEqual([first.map((r) => r.event_id), first.map((r) => r.event_id)]);
		expect((await run(adapter, store, 'resend')).map((r) => r.dedup)).toEqual([
			'sent_before',
			'sent_before',
		]);
	});

	it('TikTok: released, the re-run resends it with the same id (TikTok drops the copy)', async () => {
		const store = new MemoryDedupStore();
		const { adapter, sent } = losingFirstAnswer('tiktok');
		const first = await run(adapter, store);
		expect(first.map((r) => [r.status, r.dedup, r.outcome_unknown, r.retryable])).toEqual([
			['failed', 'released', true, true],
			['failed', 'released', true, true],
		]);
		expect(first[0].warnings[0]).toMatch(
			/A retry resends it with the same event id, which is safe/,
		);
		const rerun = await run(adapter, store);
		expect(rerun.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(sent[1]).toEqual(sent[0]);
	});

	it('Hold on TikTok holds it too', async () => {
		const store = new MemoryDedupStore();
		const { adapter, sent } = losingFirstAnswer('tiktok');
		expect((await run(adapter, store, 'hold')).map((r) => r.dedup)).toEqual(['held', 'held']);
		expect((await run(adapter, store, 'hold')).map((r) => r.status)).toEqual([
			'skipped',
			'skipped',
		]);
		expect(sent).toHaveLength(1);
	});

	it('the held marker expires like a sent marker (the dedup TTL)', async () => {
		let now = Date.now();
		const store = new MemoryDedupStore(() => now);
		const { adapter, sent } = losingFirstAnswer('meta');
		const [first] = await dispatch([lead('a')], {
			adapter,
			config: { destination: 'd1' },
			transport: new Transport(),
			store,
			committedTtlMs: 86_400_000,
			clock: () => now,
		});
		now += 86_400_000 - 1;
		const held = await run(adapter, store);
		expect(held[0].dedup).toBe('held');
		now += 2;
		expect((await run(adapter, store))[0].status).toBe('sent');
		expect(sent[sent.length - 1]).toEqual([first.event_id]);
	});
});

describe('an unknown outcome without a claim', () => {
	it('dedup off (Meta): not resent in the run, released, and the item says a re-run would send it again', async () => {
		const { adapter, sent } = losingFirstAnswer('meta');
		const items = [lead('a')];
		const options = {
			adapter,
			config: { destination: 'd1' },
			transport: new Transport(),
			store: null,
		};
		const [first] = await dispatch(items, options);
		expect(first).toMatchObject({
			status: 'failed',
			outcome_unknown: true,
			retryable: true,
			dedup: 'off',
		});
		expect(first.warnings.join(' ')).toMatch(/no dedup claim holds it \(dedup off or bypassed\)/);
		expect((await dispatch(items, options))[0].status).toBe('sent');
		expect(sent).toHaveLength(2);
	});
});
