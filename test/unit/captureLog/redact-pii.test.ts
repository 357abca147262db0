import { redactForLog } from '../../../shared/captureLog';

/**
 * Issue 13 point 1: what the capture log kept of real captures — an email in the landing URL's
 * path, percent-encoded emails, phones and name slugs in paths and utm values, free-text
 * attributes (`project_details`, `referred_by`, `contact_person`, `msg_body`). The log keeps an
 * allow-list (docs/capture.md, "What the log keeps").
 */
describe('capture-log redaction: no personal data', () => {
	const lead = {
		state: 'lead',
		contact: { email: 'Jane Doe <jane.doe@acme.com>', phone: '+1 415 555 0134', first_name: 'Jane', last_name: 'Doe' },
	};

	it('scrubs emails, phones and name slugs out of the page URL path and utm values', () => {
		const cases: Array<[string, string]> = [
			['https://x.io/account/jane.doe@example.com/upgrade', 'https://x.io/account/_/upgrade'],
			['https://x.io/a/jane.doe%40example.com/b', 'https://x.io/a/_/b'],
			['https://x.io/u/jane-doe', 'https://x.io/u/_'],
			['https://x.io/p/peter-miller/pricing', 'https://x.io/p/_/pricing'],
			['https://x.io/call/+14155550134', 'https://x.io/call/_'],
			['https://x.io/pricing?utm_term=jane.doe%40example.com&utm_source=google&email=a@b.co', 'https://x.io/pricing?utm_source=google'],
			['https://x.io/?utm_content=4155550134&utm_campaign=jane', 'https://x.io/'],
		];
		for (const [url, kept] of cases) {
			expect(redactForLog({ ...lead, source: { page_url: url } }).source?.page_url).toBe(kept);
		}
	});

	it('never keeps free-text attributes, even declared; keeps declared enum-like tokens', () => {
		const attributes = {
			project_details: 'We need a CRM, my colleague Peter Miller will join',
			referred_by: 'Peter Miller',
			contact_person: 'peter',
			msg_body: 'hello',
			message: 'Call me',
			notes: 'vip',
			company_size: '11-50',
			plan: 'enterprise',
			budget: 'I have around 5k',
			seats: 12,
			undeclared: 'pro',
			utm_source: 'newsletter',
			utm_term: 'jane.doe%40example.com',
		};
		const redacted = redactForLog(
			{ ...lead, attributes },
			{ attributes: Object.keys(attributes).filter((k) => k !== 'undeclared') },
		);
		expect(redacted.attributes).toEqual({
			company_size: '11-50',
			plan: 'enterprise',
			seats: 12,
			utm_source: 'newsletter',
		});
	});

	it('reads the email domain as the rules do (display name, mailto:, case, fullwidth)', () => {
		for (const email of ['Jane <jane@acme.com>', 'mailto:JANE@ACME.COM', 'ｊａｎｅ@ａｃｍｅ.com', 'jane@acme.com\u200b']) {
			expect(redactForLog({ contact: { email } }).contact).toEqual({ email_domain: 'acme.com', has_email: true });
		}
	});

	it('keeps no raw consent values, state or form id that are not tokens', () => {
		const redacted = redactForLog({
			state: 'jane@acme.com',
			source: { kind: 'script', form_id: 'Jane Doe' },
			consent: { ad_user_data: 'granted', note: 'jane@acme.com' },
		} as never);
		// `_reduced` says the live lead has a state and a form id the entry does not hold: their lengths, never their text.
		expect(redacted).toEqual({
			_redacted: true,
			source: { kind: 'script' },
			consent: { ad_user_data: 'granted' },
			_reduced: { state: [2, 13], 'source.form_id': [3, 8] },
		});
	});
});
