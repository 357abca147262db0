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
	it('an attribute of 1 MB is kept cut to 200 characters, or dropped when its kept part holds an email', () => {
		const redacted = returnsWithin(() =>
			redactForLog({
				contact: {},
				attributes: { budget: noDot, plan: `${'x'.repeat(150)} bob@example.com ${'y'.repeat(MB)}` },
			}),
		);
		expect(redacted.attributes).toEqual({ budget: 'a'.repeat(200) });
	});

	it('a utm value of 1 MB in the page URL is cut to 200 characters', () => {
		const redacted = returnsWithin(() =>
			redactForLog({
				source: { page_url: `https://example.com/p?utm_source=${noDot}&utm_medium=bob%40example.com` },
			}),
		);
		expect(redacted.source).toEqual({
			page_url: `https://example.com/p?utm_source=${'a'.repeat(200)}`,
		});
	});

	it('an email with a 1 MB domain gives no email domain', () => {
		const redacted = returnsWithin(() =>
			redactForLog({ contact: { email: `a@${'a.'.repeat(MB / 2)} x` } }),
		);
		expect(redacted.contact).toBeUndefined();
	});
});
