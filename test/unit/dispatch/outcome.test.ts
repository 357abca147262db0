import { Transport, type SendOutcome } from '../../../shared';
import { isUnknownOutcome, unknownOutcomeWarning } from '../../../shared/dispatch/outcome';
import { PLATFORM_ADAPTERS } from '../../../shared/platforms';
import { failedSend } from '../../../shared/platforms/failure';
import { PLATFORMS } from '../../../shared/types';

/** What the transport says after a request that failed in a given way (its own messages). */
async function transportFailure(error: { code?: string; message: string }): Promise<SendOutcome> {
	const transport = new Transport({
		retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 1_000 },
		executor: async () => {
			throw Object.assign(new Error(error.message), { code: error.code });
		},
	});
	const result = await transport.request(
		{ method: 'POST', url: 'http://127.0.0.1:9/x', body: {} },
		() => ({ kind: 'ok' }),
	);
	if (result.ok) throw new Error('expected a failure');
	return failedSend(result);
}

describe('unknown outcomes', () => {
	it.each([
		['a timeout', { code: 'ECONNABORTED', message: 'timeout of 10000ms exceeded' }, true],
		['a reset connection', { code: 'ECONNRESET', message: 'socket hang up' }, true],
		[
			'a refused connection (never sent)',
			{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' },
			false,
		],
		[
			'an unknown host (never sent)',
			{ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND x' },
			false,
		],
	])('after %s, as the transport words it: unknown = %s', async (_label, error, unknown) => {
		expect(isUnknownOutcome(await transportFailure(error))).toBe(unknown);
	});

	it('an answered refusal is never unknown', () => {
		expect(
			isUnknownOutcome({ status: 'failed', error: 'Meta: Invalid parameter', retryable: false }),
		).toBe(false);
		expect(isUnknownOutcome({ status: 'sent' })).toBe(false);
	});

	it('says per platform whether a resend is safe, and names every platform', () => {
		for (const platform of PLATFORMS) {
			expect(typeof PLATFORM_ADAPTERS[platform].resendDedup.dedups).toBe('boolean');
			expect(PLATFORM_ADAPTERS[platform].resendDedup.note).toMatch(/^(Meta|Pinterest|TikTok|Google|Microsoft) .{40,}/);
		}
		expect(unknownOutcomeWarning(PLATFORM_ADAPTERS.tiktok)).toMatch(
			/which is safe: TikTok drops .* within 48 hours$/,
		);
		expect(unknownOutcomeWarning(PLATFORM_ADAPTERS.meta)).toMatch(/It is held, not resent .*: .*\(UNCONFIRMED\)$/);
		expect(unknownOutcomeWarning(PLATFORM_ADAPTERS.meta, 'resend')).toMatch(
			/meta may count it twice: .*\(UNCONFIRMED\)$/,
		);
		expect(unknownOutcomeWarning(PLATFORM_ADAPTERS.meta, 'unheld')).toMatch(
			/not resent in this run .* but no dedup claim holds it \(dedup off or bypassed\): a re-run sends it again/,
		);
	});
});
