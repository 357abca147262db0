import { processCapture, type CaptureConfig, type CaptureOutcome } from '../../../shared/capture';
import { config, fixtureBytes, fixtureJson, NOW, request } from './helpers';

/** What the script's sendBeacon sends from a visitor's browser. */
const BEACON = {
	'content-type': 'text/plain;charset=UTF-8',
	'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 Safari/605.1.15',
	origin: 'https://www.example.com',
};

function capture(
	body: Buffer | object,
	overrides: Partial<CaptureConfig> = {},
	headers = BEACON,
): CaptureOutcome {
	return processCapture(
		request(body, headers, '203.0.113.44'),
		config('script', { defaultCountry: 'US', ...overrides }),
		NOW,
	);
}

describe('capture script payloads', () => {
	it('a submit is a lead whose record id is the capture id in the browser’s namespace', () => {
		expect(capture(fixtureBytes('script-submit.json'))).toEqual({
			kind: 'accepted',
			warnings: [],
			record: {
				record_id: 'browser:c_7Hq2xLm9PzK4',
				state: 'lead',
				// The server's receipt time, not the visitor's clock (ts is 2023 in the fixture).
				occurred_at: '2026-03-02T10:00:00.000Z',
				source: {
					kind: 'script',
					form_id: 'contact-form',
					page_url:
						'https://www.example.com/pricing?utm_source=meta&utm_campaign=spring&fbclid=IwAR0pageFbclid',
					referrer: 'https://l.facebook.com/',
				},
				contact: {
					email: 'Mia.Wong@Example.org',
					phone: '(415) 555-0188',
					first_name: 'Mia',
					last_name: 'Wong',
				},
				click: {
					// The script's stored fbclid (first seen earlier) beats the page URL's.
					fbclid: 'IwAR1storedFbclid',
					fbp: 'fb.1.1772441300000.1234567890',
					gclid: 'Cj0KCQiA-script-gclid',
					clicked_at: '2026-03-02T08:50:00.000Z',
				},
				client: { user_agent: BEACON['user-agent'], ip: '203.0.113.44' },
				attributes: {
					// The script's first-touch utm beats the page URL's; the page adds what is missing.
					utm_source: 'facebook',
					utm_medium: 'paid_social',
					company: 'Wong & Co',
					message: 'Please call me after 3pm',
					budget: '10k',
					utm_campaign: 'spring',
				},
			},
		});
	});

	it('a partial is a partial lead sharing the record id of the submit', () => {
		const partial = capture(fixtureBytes('script-partial.json'));
		const submit = capture(fixtureBytes('script-submit.json'));
		expect(partial).toMatchObject({
			kind: 'accepted',
			record: { state: 'partial', record_id: 'browser:c_7Hq2xLm9PzK4' },
		});
		expect((partial as { record: { record_id: unknown } }).record.record_id).toBe(
			(submit as { record: { record_id: unknown } }).record.record_id,
		);
	});

	it('the state setting can override the script’s state', () => {
		expect(
			capture(fixtureBytes('script-partial.json'), { state: { from: 'fixed', value: 'contact' } }),
		).toMatchObject({
			record: { state: 'contact' },
		});
	});

	it('prefers the request’s User-Agent header over a user_agent field', () => {
		const body = {
			...fixtureJson('script-partial.json'),
			fields: { email: 'a@example.com', user_agent: 'spoofed' },
		};
		expect(capture(body)).toMatchObject({
			record: { client: { user_agent: BEACON['user-agent'] } },
		});
	});

	it('honours X-Forwarded-For only with trustProxy', () => {
		const headers = { ...BEACON, 'x-forwarded-for': '198.51.100.200' };
		const body = fixtureBytes('script-partial.json');
		expect(capture(body, {}, headers)).toMatchObject({
			record: { client: { ip: '203.0.113.44' } },
		});
		expect(capture(body, { trustProxy: true }, headers)).toMatchObject({
			record: { client: { ip: '198.51.100.200' } },
		});
	});

	it('takes click ids from the page URL when the script found none', () => {
		const body = {
			...fixtureJson('script-partial.json'),
			page_url: 'https://example.com/?ttclid=TT-1&utm_source=tiktok',
		};
		expect(capture(body)).toMatchObject({
			record: { click: { ttclid: 'TT-1' }, attributes: { utm_source: 'tiktok' } },
		});
	});

	it('sets clicked_at only for an fbclid', () => {
		const body = {
			...fixtureJson('script-partial.json'),
			click: { fbclid_at: 1772441400000, gclid: 'G' },
		};
		expect((capture(body) as { record: { click?: object } }).record.click).toEqual({ gclid: 'G' });
	});

	it.each<[string, unknown]>([
		['too short', 'abc'],
		['too long', 'x'.repeat(101)],
		['with other characters', 'capture id with spaces'],
		['not text', 12345678],
		['missing', undefined],
	])('a capture_id %s is no usable record id', (_case, captureId) => {
		const body = { ...fixtureJson('script-partial.json'), capture_id: captureId };
		expect(capture(body)).toEqual({
			kind: 'rejected',
			status: 422,
			reason: 'no usable record id: capture_id must be 8–100 characters of A–Z, a–z, 0–9, _ or -',
		});
	});

	it.each<[string, object, string]>([
		['an unknown version', { v: 2 }, 'malformed script capture: unsupported protocol version "2"'],
		[
			'an unknown type',
			{ type: 'click' },
			'malformed script capture: type must be "partial" or "submit"',
		],
	])('%s is a 400', (_case, change, reason) => {
		expect(capture({ ...fixtureJson('script-partial.json'), ...change })).toEqual({
			kind: 'rejected',
			status: 400,
			reason,
		});
	});

	it('a partial without a valid email or phone has no identity', () => {
		const body = { ...fixtureJson('script-partial.json'), fields: { email: 'mia@' } };
		expect(capture(body)).toMatchObject({
			kind: 'rejected',
			status: 422,
			reason: expect.stringMatching(/^no identity/),
		});
	});
});
