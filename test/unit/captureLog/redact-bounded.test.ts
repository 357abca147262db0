import { redactForLog } from '../../../shared/captureLog';
import { returnsWithin } from '../../support/hostile';

/**
 * The capture log's redaction on the longest values a body can hold. Its email and digit
 * patterns backtracked quadratically over a whole value (an `a…@b…` of 120 KB took 7 s, 1 MB
 * minutes), and the trigger redacts before it answers: one request stalled n8n. Found by the
 * property tests. No timing is asserted: returnsWithin fails a call that has not returned after
 * 20 s, where the redaction of a bounded window takes milliseconds.
 */
const MB = 1_000_000;
const noDot = `${'a'.repeat(MB / 2)}@${'b'.repeat(MB / 2)}`;

describe('capture-log redaction of huge values', () => {
	it('a declared attribute of 1 MB is not a token: dropped, quickly', () => {
		const redacted = returnsWithin(() =>
			redactForLog(
				{
					contact: {},
					attributes: { budget: noDot, plan: `${'x'.repeat(150)} bob@example.com ${'y'.repeat(MB)}`, tier: 'gold' },
				},
				{ attributes: ['budget', 'plan', 'tier'] },
			),
		);
		expect(redacted.attributes).toEqual({ tier: 'gold' });
	});

	it('a utm value of 1 MB in the page URL is left out, as is one holding a percent-encoded email', () => {
		const redacted = returnsWithin(() =>
			redactForLog({
				source: { page_url: `https://example.com/p?utm_source=${noDot}&utm_medium=bob%40example.com` },
			}),
		);
		expect(redacted.source).toEqual({ page_url: 'https://example.com/p' });
	});

	it('an email with a 1 MB domain gives no email domain (only that an email was given)', () => {
		const redacted = returnsWithin(() =>
			redactForLog({ contact: { email: `a@${'a.'.repeat(MB / 2)} x` } }),
		);
		expect(redacted.contact).toEqual({ has_email: true });
	});
});
