import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { readEventContext } from '../../../shared/events/context';
import { createHash } from 'node:crypto';
import { deriveEventId } from '../../../shared/events';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import {
	buildPinterestEvent,
	classifyPinterestResponse,
	credentialTestEvent,
	describePinterestError,
	outcomesFromAck,
	pinterestAdapter,
	pinterestEventName,
	pinterestRequest,
	pinterestWireName,
	readPinterestAck,
	PINTEREST_EVENT_BY_STATE,
	type PinterestConfig,
	type PinterestEvent,
} from '../../../shared/platforms/pinterest';
import type { LeadRecord } from '../../../shared/types';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { schemaProblem, eventProblem } = require('../../standins/pinterest.js');

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)';
const NOW_S = 1_796_000_000;

const config = (overrides: Partial<PinterestConfig> = {}): PinterestConfig => ({
	adAccountId: '549755885175',
	accessToken: 'pina_token-123456',
	actionSource: 'auto',
	limitedDataProcessing: 'auto',
	...overrides,
});

function build(record: LeadRecord, eventName = 'lead', overrides: Partial<PinterestConfig> = {}) {
	const identity = normalizeIdentity(record, { eventTimeMs: NOW_S * 1000 });
	return buildPinterestEvent(
		{
			record,
			eventName,
			eventId: 'eid',
			eventTime: NOW_S,
			identity,
			user: renderIdentity(identity, IDENTITY_PROFILES['pinterest']),
			event: readEventContext(record, { identity }),
		},
		config(overrides),
	);
}

function built(
	record: LeadRecord,
	eventName = 'lead',
	overrides: Partial<PinterestConfig> = {},
): PinterestEvent {
	const r = build(record, eventName, overrides);
	if (!r.ok) throw new Error(`expected an event, got ${r.status}: ${r.reason}`);
	return r.payload;
}

describe('event names', () => {
	it('maps every lead state to an official Pinterest name, partial/contact/schedule as labelled custom events', () => {
		expect(PINTEREST_EVENT_BY_STATE).toEqual({
			partial: 'custom:partial_lead',
			lead: 'lead',
			contact: 'custom:contact',
			schedule: 'custom:schedule',
			registration: 'signup',
			purchase: 'checkout',
		});
		for (const name of Object.values(PINTEREST_EVENT_BY_STATE))
			expect(pinterestWireName(name)).not.toBeNull();
	});

	it.each([
		['lead', 'lead'],
		['Checkout', 'checkout'],
		[' signup ', 'signup'],
		['custom', 'custom'],
		['custom:schedule', 'custom:schedule'],
		['custom:', 'custom'],
		['demo_booked', 'custom:demo_booked'],
		['PartialLead', 'custom:PartialLead'],
		['contact', 'custom:contact'],
		['', ''],
	])('a chosen name %j is handled as %j', (chosen, expected) => {
		expect(pinterestEventName(chosen)).toBe(expected);
	});

	it.each([
		['lead', { eventName: 'lead' }],
		['custom', { eventName: 'custom' }],
		['custom:partial_lead', { eventName: 'custom', label: 'partial_lead' }],
		['Lead', null],
		['contact', null],
	])('%j goes out as %j', (name, wire) => {
		expect(pinterestWireName(name)).toEqual(wire);
	});

	it('gives a partial lead, a lead and a booking of one record three different event ids', () => {
		const ids = ['partial', 'lead', 'schedule'].map((state) =>
			deriveEventId('549755885175', PINTEREST_EVENT_BY_STATE[state as 'lead'], 'sub_1'),
		);
		expect(new Set(ids).size).toBe(3);
		expect(ids[0]).toBe(sha('549755885175|custom:partial_lead|sub_1'));
	});
});

describe('buildPinterestEvent', () => {
	it('renders every documented user_data key: hashed ones as arrays of SHA-256 hex, IP, user agent and epik in clear', () => {
		const event = built({
			contact: {
				email: 'John_Smith@gmail.com',
				phone: '(650)555-1212',
				first_name: 'Valéry',
				last_name: 'Smith-Jones',
				date_of_birth: '2/16/1997',
				gender: 'non-binary',
				city: 'New York',
				region: 'New York',
				postal_code: '10001-2345',
				country: 'United States',
				external_id: ' CRM-77 ',
			},
			client: { ip: '2001:db8::1', user_agent: UA },
			click: {
				epik: 'dj0yJnU9b2JDcFFHekV4SHJNcmVrbFBkUEdqakh0akdUT1VjVVUmcD0y',
				fbclid: 'IwAR-not-for-pinterest',
			},
		});
		expect(event.user_data).toEqual({
			// The Meta vectors apply by rule (platforms.md §8): same email and phone normalization.
			em: ['62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f'],
			ph: ['e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176'],
			fn: ['08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c'],
			ln: [sha('smithjones')],
			ge: ['1b16b1df538ba12dc3f97edbb85caa7050d46c148134290feba80f8236c83db9'],
			db: ['01acdbf6ec7b4f478a225f1a246e5d6767eeab1a7ffa17f025265b5b94f40f0c'],
			ct: [sha('newyork')],
			st: [sha('ny')],
			zp: [sha('10001')],
			country: ['79adb2a2fce5c6ba215fe5f27f532d4e7edbac4b6a5e09e1ef3a08084a904621'],
			external_id: [sha('crm-77')],
			client_ip_address: '2001:db8::1',
			client_user_agent: UA,
			click_id: 'dj0yJnU9b2JDcFFHekV4SHJNcmVrbFBkUEdqakh0akdUT1VjVVUmcD0y',
		});
		expect(schemaProblem(event, 0)).toBeNull();
	});

	it("reports the match keys in Pinterest's own names, in payload order", () => {
		const r = build({
			contact: { email: 'a@example.com', phone: '+16505551212' },
			click: { epik: 'e1' },
		});
		expect(r.matchKeys).toEqual(['em', 'ph', 'click_id']);
		expect(
			pinterestAdapter.userData(
				renderIdentity(normalizeIdentity({ contact: { email: 'a@example.com' } }), IDENTITY_PROFILES['pinterest']),
				{},
			),
		).toEqual({
			data: { em: [sha('a@example.com')] },
			matchKeys: ['em'],
		});
	});

	it('sends several emails as one array, normalized and de-duplicated', () => {
		const event = built({
			contact: { email: ['a@example.com', 'A@Example.com ', 'b@example.com'] },
		});
		expect(event.user_data.em).toEqual([sha('a@example.com'), sha('b@example.com')]);
	});

	it.each([
		// [postal code, country, zp sent (clear before hashing) or null when left out]
		['94105', 'US', '94105'],
		['94105-1234', 'US', '94105'],
		['75018', 'FR', '75018'],
		['1987', 'AU', '1987'],
		['M1 1AE', 'GB', null],
		['K1A 0B1', 'CA', null],
		['1012 AB', 'NL', null],
	])('sends zp only from digits (Pinterest: "zipcode, only digits"): %s (%s)', (code, country, zp) => {
		const r = build({ contact: { email: 'a@example.com', postal_code: code, country } });
		if (!r.ok) throw new Error(r.reason);
		if (zp === null) {
			expect(r.payload.user_data.zp).toBeUndefined();
			expect(r.matchKeys).not.toContain('zp');
			const warning = r.warnings.find((w) => w.startsWith('postal_code:'));
			expect(warning).toBe(
				'postal_code: contains letters, and pinterest takes digits-only postal codes; omitted',
			);
			// The warning names the field and the problem, never the value.
			expect(warning).not.toContain(code.toLowerCase().replace(/\s/g, ''));
			expect(warning).not.toContain(code);
		} else {
			expect(r.payload.user_data.zp).toEqual([sha(zp)]);
			expect(r.warnings.some((w) => w.startsWith('postal_code:'))).toBe(false);
		}
	});

	it('keeps letter postcodes for Meta, which documents them (m11ae)', () => {
		const identity = normalizeIdentity({ contact: { postal_code: 'M1 1AE', country: 'GB' } });
		expect(renderIdentity(identity, IDENTITY_PROFILES['meta']).values.postal_code).toEqual([sha('m11ae')]);
	});

	it('passes already-hashed values through, never hashing twice', () => {
		const hashed = sha('someone@example.com');
		expect(built({ contact: { email: hashed.toUpperCase() } }).user_data.em).toEqual([hashed]);
	});

	it.each([
		['email only', { contact: { email: 'a@example.com' } }],
		['IP and user agent only', { client: { ip: '203.0.113.9', user_agent: UA } }],
	])("accepts an event with Pinterest's minimum identity: %s", (_label, record) => {
		expect(build(record as LeadRecord).ok).toBe(true);
	});

	it.each([
		[
			'phone and names only',
			{ contact: { phone: '+16505551212', first_name: 'Ann' } },
			/only ph, fn/,
		],
		[
			'IP without user agent',
			{ contact: { phone: '+16505551212' }, client: { ip: '203.0.113.9' } },
			/only ph, client_ip_address/,
		],
		[
			'user agent and epik',
			{ client: { user_agent: UA }, click: { epik: 'e1' } },
			/only client_user_agent, click_id/,
		],
		['nothing usable', { contact: { email: 'not-an-email' } }, /no customer information/],
	])('skips, without sending, an event Pinterest would refuse: %s', (_label, record, message) => {
		const r = build(record as LeadRecord);
		expect(r).toMatchObject({
			ok: false,
			status: 'skipped',
			reason: expect.stringMatching(
				/^Pinterest needs an email, or both the IP address and the user agent/,
			),
		});
		expect(!r.ok && r.reason).toMatch(message);
	});

	it('skips a lead whose consent denies ad data', () => {
		expect(
			build({ contact: { email: 'a@example.com' }, consent: { ad_user_data: 'denied' } }),
		).toMatchObject({
			ok: false,
			status: 'skipped',
			reason: expect.stringMatching(/ad_user_data is denied/),
		});
	});

	it.each([
		[
			'page url + user agent',
			'web',
			{ source: { page_url: 'https://x.io/p' }, client: { user_agent: UA } },
		],
		['user agent only', 'offline', { client: { user_agent: UA } }],
		['page url only', 'offline', { source: { page_url: 'https://x.io/p' } }],
		['not a URL', 'offline', { source: { page_url: 'x.io/p' }, client: { user_agent: UA } }],
	])('auto action source: %s → %s', (_label, expected, extra) => {
		expect(
			built({ contact: { email: 'a@example.com' }, ...extra } as LeadRecord).action_source,
		).toBe(expected);
	});

	it('keeps a fixed action source and sends the page URL whenever there is one', () => {
		const event = built(
			{ contact: { email: 'a@example.com' }, source: { page_url: 'https://x.io/p' } },
			'lead',
			{
				actionSource: 'app_ios',
			},
		);
		expect(event).toMatchObject({ action_source: 'app_ios', event_source_url: 'https://x.io/p' });
	});

	it('sends a labelled custom event as event_name custom with the label in content_name', () => {
		const event = built({ contact: { email: 'a@example.com' } }, 'custom:partial_lead');
		expect(event).toMatchObject({
			event_name: 'custom',
			custom_data: { content_name: 'partial_lead' },
		});
		expect(built({ contact: { email: 'a@example.com' } }, 'custom').custom_data).toBeUndefined();
	});

	it('fails an event name Pinterest does not know instead of sending it', () => {
		expect(build({ contact: { email: 'a@example.com' } }, 'Lead')).toMatchObject({
			ok: false,
			status: 'failed',
			reason: expect.stringMatching(/not a Pinterest event name/),
		});
	});

	it('sends value as a decimal string with its ISO 4217 currency, only when both are known', () => {
		const event = built(
			{ contact: { email: 'a@example.com' }, value: { amount: '249.90', currency: 'eur' } },
			'checkout',
		);
		expect(event.custom_data).toEqual({ value: '249.9', currency: 'EUR' });
		expect(eventProblem(event, NOW_S)).toEqual({});
		const bare = build({ contact: { email: 'a@example.com' }, value: { amount: 10 } }, 'checkout');
		expect(bare.ok && bare.payload.custom_data).toBeUndefined();
		expect(bare.warnings.join('\n')).toMatch(/value not sent \(currency is never guessed\)/);
		expect(bare.warnings.join('\n')).toMatch(/checkout sent with value.amount but without value.currency: Pinterest reports no revenue/);
	});

	it('sets opt_out when ad personalization is denied', () => {
		expect(
			built({ contact: { email: 'a@example.com' }, consent: { ad_personalization: 'denied' } })
				.opt_out,
		).toBe(true);
		expect(built({ contact: { email: 'a@example.com' } }).opt_out).toBeUndefined();
	});

	it.each([
		[
			'California contact, auto',
			{ contact: { region: 'California', country: 'US' } },
			'auto',
			'LDP',
		],
		[
			'California visitor geo, auto',
			{ contact: { country: 'US' }, client: { region: 'CA', country: 'US' } },
			'auto',
			'LDP',
		],
		[
			'consent flag, auto',
			{ contact: { region: 'TX', country: 'US' }, consent: { limited_data_use: true } },
			'auto',
			'LDP',
		],
		['New York, auto', { contact: { region: 'NY', country: 'US' } }, 'auto', undefined],
		['German lead, always', { contact: { country: 'DE' } }, 'always', 'LDP'],
		['California, never', { contact: { region: 'CA', country: 'US' } }, 'never', undefined],
	] as const)('Limited Data Processing: %s', (_label, record, mode, expected) => {
		const event = built(
			{ ...record, contact: { email: 'a@example.com', ...record.contact } } as LeadRecord,
			'lead',
			{ limitedDataProcessing: mode },
		);
		expect(event.custom_data?.opt_out_type).toBe(expected);
	});

	it('builds only keys the official schema allows, for every state and option', () => {
		const record: LeadRecord = {
			contact: { email: 'a@example.com', region: 'CA', country: 'US' },
			source: { page_url: 'https://x.io/p', referrer: 'https://ref.example/' },
			client: { ip: '203.0.113.9', user_agent: UA },
			click: { epik: 'e1', fbc: 'fb.1.1554763741205.AbCdEf', gclid: 'g1' },
			value: { amount: 5, currency: 'USD' },
			consent: { ad_personalization: false },
		};
		for (const name of Object.values(PINTEREST_EVENT_BY_STATE)) {
			const event = built(record, name);
			expect(schemaProblem(event, 0)).toBeNull();
			expect(eventProblem(event, NOW_S)).toEqual({});
		}
	});
});

describe('classifyPinterestResponse (the error map)', () => {
	const res = (status: number, data: unknown = {}) => ({ status, headers: {}, data });
	it.each([
		[res(200, { num_events_received: 1, num_events_processed: 1, events: [] }), 'ok'],
		[res(400, { code: 4196, message: 'The request was invalid.' }), 'permanent'],
		[res(401, { code: 2, message: 'Authentication failed.' }), 'permanent'],
		[
			res(403, { code: 29, message: 'You are not permitted to access that resource.' }),
			'permanent',
		],
		[res(404, { code: 404, message: 'Not found' }), 'permanent'],
		[
			res(422, { code: 4198, message: 'Not all events were successfully processed', details: {} }),
			'permanent',
		],
		[res(429, { code: 8, message: 'This request exceeded a rate limit.' }), 'throttle'],
		[res(400, { code: 8, message: 'rate limit' }), 'throttle'],
		[res(503, { code: 4197, message: 'The endpoint has been ramped down' }), 'retry'],
		[res(500), 'retry'],
		[res(502, '<html>bad gateway</html>'), 'retry'],
	])('%j → %s', (response, kind) => {
		expect(classifyPinterestResponse(response).kind).toBe(kind);
	});

	it("quotes Pinterest's own words", () => {
		expect(describePinterestError({ code: 2, message: 'Authentication failed.' }, 401)).toBe(
			'Pinterest: Authentication failed. [code 2, HTTP 401]',
		);
		expect(describePinterestError(undefined, 502)).toBe(
			'Pinterest answered HTTP 502 without an error body',
		);
	});
});

describe('per-event results', () => {
	const list = [
		{ status: 'processed', error_message: null, warning_message: null },
		{ status: 'failed', error_message: 'Invalid hashed email', warning_message: null },
		{
			status: 'processed',
			error_message: null,
			warning_message: 'event_source_url is recommended',
		},
	];
	const ack = { num_events_received: 3, num_events_processed: 2, events: list };

	it.each([
		['a 200', ack],
		[
			'a 422 with the list in details',
			{ code: 4198, message: 'Not all events were successfully processed', details: ack },
		],
		[
			'a 422 with the list at its top level',
			{ code: 4198, message: 'Not all events were successfully processed', ...ack },
		],
	])('reads the per-event list of %s', (_label, body) => {
		expect(readPinterestAck(body)?.events).toEqual(list);
	});

	it('reads a details array of event results, and nothing from an error without one', () => {
		expect(readPinterestAck({ code: 1, message: 'x', details: list })).toEqual({ events: list });
		expect(readPinterestAck({ code: 4196, message: 'The request was invalid.' })).toBeUndefined();
		expect(readPinterestAck('nope')).toBeUndefined();
	});

	it("maps processed → sent (warning kept), failed → failed with Pinterest's message, final", () => {
		const outcomes = outcomesFromAck(ack, 3, false)!;
		expect(outcomes.map((o) => o.status)).toEqual(['sent', 'failed', 'sent']);
		expect(outcomes[1]).toMatchObject({
			error: 'Pinterest: Invalid hashed email',
			retryable: false,
		});
		expect(outcomes[2]).toMatchObject({ warning: 'Pinterest: event_source_url is recommended' });
		expect(outcomes[0]).toMatchObject({
			response: { num_events_received: 3, num_events_processed: 2, status: 'processed' },
		});
	});

	it('in test mode reports processed events as skipped (validated, not recorded) and failures as failures', () => {
		const outcomes = outcomesFromAck(ack, 3, true)!;
		expect(outcomes.map((o) => o.status)).toEqual(['skipped', 'failed', 'skipped']);
		expect(outcomes[0]).toMatchObject({
			reason: expect.stringMatching(/^test mode: Pinterest validated this event/),
			response: { test_mode: true },
		});
	});

	it('refuses a list that does not answer for exactly the events sent', () => {
		expect(outcomesFromAck(ack, 2, false)).toBeUndefined();
		expect(outcomesFromAck({ num_events_processed: 2 }, 2, false)).toBeUndefined();
	});
});

describe('request details', () => {
	it('posts { data } to /v5/ad_accounts/{id}/events with the bearer token; test mode is ?test=true', () => {
		const event = credentialTestEvent(NOW_S * 1000);
		expect(pinterestRequest([event], config())).toMatchObject({
			method: 'POST',
			url: 'https://api.pinterest.com/v5/ad_accounts/549755885175/events',
			params: undefined,
			headers: { authorization: 'Bearer pina_token-123456' },
			body: { data: [event] },
		});
		expect(
			pinterestRequest([event], config({ baseUrl: 'http://127.0.0.1:9/', testMode: true })),
		).toMatchObject({
			url: 'http://127.0.0.1:9/v5/ad_accounts/549755885175/events',
			params: { test: 'true' },
		});
	});

	it('shows the request in a dry run without the token', () => {
		const preview = pinterestAdapter.previewRequest(
			[credentialTestEvent(NOW_S * 1000)],
			config({ testMode: true }),
		);
		expect(preview).toMatchObject({
			method: 'POST',
			query: { test: 'true' },
			body: { data: [expect.any(Object)] },
		});
		expect(JSON.stringify(preview)).not.toContain('pina_token');
	});

	it("uses a synthetic credential-test event that Pinterest's schema accepts and that holds no personal data", () => {
		const event = credentialTestEvent(NOW_S * 1000);
		expect(schemaProblem(event, 0)).toBeNull();
		expect(eventProblem(event, NOW_S)).toEqual({});
		expect(event.user_data).toEqual({ em: [sha('credential-test@example.com')] });
	});
});
