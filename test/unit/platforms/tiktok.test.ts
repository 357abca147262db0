import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { readEventContext } from '../../../shared/events/context';
import { createHash } from 'node:crypto';
import { dispatch, Transport, type ItemResult } from '../../../shared';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import {
	buildTiktokEvent,
	classifyTiktokCode,
	classifyTiktokResponse,
	describeTiktokError,
	tiktokAdapter,
	tiktokTrackUrl,
	type TiktokConfig,
} from '../../../shared/platforms/tiktok';
import type { LeadRecord } from '../../../shared/types';
import { webLead } from '../../support/leads';

/** Independent of the code under test: node's own SHA-256. */
const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

const PIXEL = 'C4TESTPIXEL0001';
const NOW = Date.parse('2026-11-30T12:00:00Z');

const config = (overrides: Partial<TiktokConfig> = {}): TiktokConfig => ({
	pixelCode: PIXEL,
	accessToken: 'tt-access-token-123456',
	crmEventSetId: 'CRMSET0001',
	eventSource: 'web',
	limitedDataUse: 'auto',
	...overrides,
});

function build(
	record: LeadRecord,
	eventName = 'SubmitForm',
	overrides: Partial<TiktokConfig> = {},
) {
	const identity = normalizeIdentity(record, { eventTimeMs: 1_796_000_000_000 });
	return buildTiktokEvent(
		{
			record,
			eventName,
			eventId: 'eid',
			eventTime: 1_796_000_000,
			identity,
			user: renderIdentity(identity, IDENTITY_PROFILES['tiktok']),
			event: readEventContext(record, { identity }),
		},
		config(overrides),
	);
}

/** The canonical web lead of test/support/leads.ts, plus what a TikTok click brings along. */
function canonicalLead(): LeadRecord {
	const lead = webLead(1);
	return {
		...lead,
		occurred_at: '2026-11-30T11:00:00Z',
		source: { ...lead.source, referrer: 'https://www.tiktok.com/' },
		contact: { ...lead.contact, external_id: ' CRM-77 ' },
		click: { ...lead.click, ttclid: 'E.C.P.CqgBk3kJ5Yv8', ttp: '2XxU8-T5rKqzOqJ9eIHvfPSf1yQk' },
		value: { amount: '120.50', currency: 'usd' },
	};
}

describe('the golden TikTok request for one canonical lead', () => {
	it('is exactly what platforms.md §3 describes, field by field', async () => {
		// A dry run goes through the same path as a real send (normalize → render → build →
		// request body) and stops before the network.
		const [result] = await dispatch([{ record: canonicalLead(), eventName: 'SubmitForm' }], {
			adapter: tiktokAdapter,
			config: config({ testEventCode: 'TEST12345' }),
			transport: new Transport(),
			store: null,
			mode: { kind: 'dryRun' },
			clock: () => NOW,
		});
		expect(result).toMatchObject<Partial<ItemResult>>({
			status: 'skipped',
			dry_run: true,
			platform: 'tiktok',
			destination: PIXEL,
			event_name: 'SubmitForm',
			warnings: ['dry run: nothing was claimed or sent'],
		});
		// SHA-256 values computed outside this code base (Python hashlib), and re-derived here.
		const golden = {
			event_source: 'web',
			event_source_id: 'C4TESTPIXEL0001',
			test_event_code: 'TEST12345',
			data: [
				{
					event: 'SubmitForm',
					event_time: 1796036400,
					// sha256("C4TESTPIXEL0001|SubmitForm|sub_1"), a string
					event_id: 'a29214e74429b12e725efa6d690f0f3cf2b21852346f3f1a1f72ddb282216a5f',
					user: {
						// " Lead.1@Example.com " → "lead.1@example.com"
						email: ['e31f4fe4b2639f9c68e5fd7ae3a663f8a9f96e2f6f9b938d17bc530149891685'],
						// "(650) 555-1212", US → "+16505551212" (E.164 with "+")
						phone: ['1e231c66011e7a2d867a9cfae267a6aff103cf4913640b6e71a99850fc0ffbc8'],
						// " CRM-77 " → "crm-77"
						external_id: ['63f6a679cf0efe653aedee206433f3f33ca8d7128ea1af01f0222907cbeb67d9'],
						// "Mary" → "mary"
						first_name: '6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec',
						// "O'Neil" → "oneil"
						last_name: '67a42a846e98e3c1a96cd6ba14883a5ea05990cd93964ce8b832aa9497ca785c',
						// "94105-1234" → "94105"
						zip_code: 'e73ac16e69f060ee98b0fda5f66f48c4648ee26950e9bab3a097389853fd859e',
						city: 'sanfrancisco',
						state: 'ca',
						country: 'us',
						ttclid: 'E.C.P.CqgBk3kJ5Yv8',
						ttp: '2XxU8-T5rKqzOqJ9eIHvfPSf1yQk',
						ip: '203.0.113.7',
						user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15',
					},
					page: {
						url: 'https://example.com/pricing?utm_source=fb',
						referrer: 'https://www.tiktok.com/',
					},
					properties: { value: 120.5, currency: 'USD' },
					// San Francisco, California, US: Limited Data Use under "Auto"
					limited_data_use: true,
				},
			],
		};
		const preview = (result.response as { request_preview: Record<string, unknown> })
			.request_preview;
		expect(preview).toEqual({
			method: 'POST',
			url: 'https://business-api.tiktok.com/open_api/v1.3/event/track/',
			body: golden,
		});
		expect(result.payload).toEqual(golden.data[0]);
		const user = golden.data[0].user;
		expect([
			user.email[0],
			user.phone[0],
			user.external_id[0],
			user.first_name,
			user.last_name,
			user.zip_code,
			golden.data[0].event_id,
		]).toEqual([
			sha('lead.1@example.com'),
			sha('+16505551212'),
			sha('crm-77'),
			sha('mary'),
			sha('oneil'),
			sha('94105'),
			sha('C4TESTPIXEL0001|SubmitForm|sub_1'),
		]);
		expect(result.match_keys).toEqual([
			'email',
			'phone',
			'external_id',
			'first_name',
			'last_name',
			'zip_code',
			'city',
			'state',
			'country',
			'ttclid',
			'ttp',
			'ip',
			'user_agent',
		]);
		// The token never travels in the body, so a dry run cannot show it.
		expect(JSON.stringify(result)).not.toContain('tt-access-token-123456');
	});

	it('gives the Identity Normalizer the same user object the payload carries', () => {
		const record = canonicalLead();
		const identity = normalizeIdentity(record, { eventTimeMs: NOW });
		const user = renderIdentity(identity, IDENTITY_PROFILES['tiktok']);
		const built = build(record);
		expect(built.ok).toBe(true);
		if (!built.ok) return;
		expect(tiktokAdapter.userData(user, record)).toEqual({
			data: built.payload.user,
			matchKeys: built.matchKeys,
		});
	});
});

describe('event names', () => {
	it('maps every lead state to one TikTok event; partial leads never share the lead name', () => {
		expect(tiktokAdapter.eventNameByState).toEqual({
			partial: 'PartialLead',
			lead: 'SubmitForm',
			contact: 'Contact',
			schedule: 'Schedule',
			registration: 'CompleteRegistration',
			purchase: 'Purchase',
		});
		const names = Object.values(tiktokAdapter.eventNameByState);
		expect(new Set(names).size).toBe(names.length);
	});

	it('gives a partial and a completed lead of the same record different event ids', async () => {
		const record = canonicalLead();
		const results = await dispatch(
			[
				{ record: { ...record, state: 'partial' }, eventName: 'PartialLead' },
				{ record, eventName: 'SubmitForm' },
			],
			{
				adapter: tiktokAdapter,
				config: config(),
				transport: new Transport(),
				store: null,
				mode: { kind: 'dryRun' },
				clock: () => NOW,
			},
		);
		expect(results.map((r) => r.event_id)).toEqual([
			sha(`${PIXEL}|PartialLead|sub_1`),
			sha(`${PIXEL}|SubmitForm|sub_1`),
		]);
	});

	it('holds the platform limits in one place: 50 events per request, a 28-day window (a third party figure)', () => {
		expect(tiktokAdapter.maxBatchSize).toBe(50);
		expect(tiktokAdapter.eventTimeWindow).toEqual({ platform: 'TikTok', seconds: 28 * 24 * 3600, basis: 'unconfirmed' });
	});
});

describe('buildTiktokEvent', () => {
	it('hashes with the second-party vectors of platforms.md §8 (Segment)', () => {
		const r = build({
			contact: { email: ['bugsbunny@warnerbros.com', 'daffyduck@warnerbros.com'] },
		});
		expect(r.ok && r.payload.user.email).toEqual([
			'67e28cdcc3e845d3a4da05ca9fe5ddb7320a83b4cc2167f0555a3b04f63511e3',
			'2d2fb2388f17f86affee71d632978425a3037fa8eed5b3f2baaa458c80d495ed',
		]);
	});

	it('hashes phone numbers as E.164 with "+", read with the lead\'s own country', () => {
		const r = build({ contact: { phone: '030 1234567', country: 'Germany' } });
		expect(r.ok && r.payload.user.phone).toEqual([sha('+49301234567')]);
		expect(r.ok && r.payload.user.country).toBe('de');
	});

	it('passes an email that arrived hashed through unchanged (never hashed twice)', () => {
		const hashed = sha('someone@example.com');
		const r = build({ contact: { email: hashed.toUpperCase() } });
		expect(r.ok && r.payload.user.email).toEqual([hashed]);
	});

	it('sends one first name when several are given, and says so', () => {
		const r = build({ contact: { email: 'a@example.com', first_name: ['Ann', 'Anna'] } });
		expect(r.ok && r.payload.user.first_name).toBe(sha('ann'));
		expect(r.warnings).toContain('first_name: TikTok takes one first_name; sent the first of 2');
	});

	it('always sends event_id as a string (TikTok refuses numbers with code 40002)', () => {
		const r = build({ contact: { email: 'a@example.com' } });
		expect(r.ok && typeof r.payload.event_id).toBe('string');
	});

	it.each([
		[
			'names and geography only',
			{ contact: { first_name: 'Ann', city: 'Austin', postal_code: '78701', country: 'US' } },
			/only first_name, zip_code, city, country/,
		],
		['an IP address without user agent', { client: { ip: '203.0.113.9' } }, /only ip/],
		['nothing usable', { contact: { email: 'not-an-email' } }, /no customer information/],
	] as const)('fails a lead TikTok could not match: %s', (_label, record, message) => {
		const r = build(record as LeadRecord);
		expect(r).toMatchObject({
			ok: false,
			status: 'failed',
			reason: expect.stringMatching(message),
		});
	});

	it.each([
		['an email', { contact: { email: 'a@example.com' } }],
		['a phone', { contact: { phone: '+14155552671' } }],
		['an external id', { contact: { external_id: 'crm-1' } }],
		['a ttclid', { click: { ttclid: 'E.C.P.x' } }],
		['a _ttp cookie', { click: { ttp: 'abc' } }],
		['IP address + user agent', { client: { ip: '203.0.113.9', user_agent: 'Mozilla/5.0' } }],
	] as const)('sends a lead with %s', (_label, record) => {
		expect(build(record as LeadRecord).ok).toBe(true);
	});

	it('skips a lead whose consent denies ad data', () => {
		const r = build({ contact: { email: 'a@example.com' }, consent: { ad_user_data: 'denied' } });
		expect(r).toMatchObject({
			ok: false,
			status: 'skipped',
			reason: expect.stringMatching(/ad_user_data is denied/),
		});
	});

	it.each([
		[
			'California contact, auto → true',
			{ contact: { email: 'a@example.com', region: 'California', country: 'US' } },
			'auto',
			true,
		],
		[
			'California visitor, auto → true',
			{ contact: { email: 'a@example.com' }, client: { country: 'US', region: 'CA' } },
			'auto',
			true,
		],
		[
			'consent flag in Texas, auto → true',
			{
				contact: { email: 'a@example.com', region: 'TX', country: 'US' },
				consent: { limited_data_use: 'granted' },
			},
			'auto',
			true,
		],
		[
			'New York, auto → false',
			{ contact: { email: 'a@example.com', region: 'NY', country: 'US' } },
			'auto',
			false,
		],
		[
			'Germany, always → true',
			{ contact: { email: 'a@example.com', country: 'DE' } },
			'always',
			true,
		],
		[
			'California, never → false',
			{ contact: { email: 'a@example.com', region: 'CA', country: 'US' } },
			'never',
			false,
		],
	] as const)('limited_data_use: %s', (_label, record, mode, expected) => {
		const r = build(record as LeadRecord, 'SubmitForm', { limitedDataUse: mode });
		expect(r.ok && r.payload.limited_data_use).toBe(expected);
	});

	it('sends value and currency only together, never guessed', () => {
		const both = build({
			contact: { email: 'a@example.com' },
			value: { amount: '249.90', currency: 'eur' },
		});
		expect(both.ok && both.payload.properties).toEqual({ value: 249.9, currency: 'EUR' });
		const amountOnly = build({ contact: { email: 'a@example.com' }, value: { amount: 10 } });
		expect(amountOnly.ok && amountOnly.payload.properties).toBeUndefined();
		expect(amountOnly.warnings.join()).toMatch(/currency is never guessed/);
		const badCurrency = build({
			contact: { email: 'a@example.com' },
			value: { amount: 10, currency: 'dollars' },
		});
		expect(badCurrency.ok && badCurrency.payload.properties).toBeUndefined();
	});

	it('sends a Purchase without value with a warning (TikTok records it; the value is never guessed)', () => {
		const r = build({ contact: { email: 'a@example.com' } }, 'Purchase');
		expect(r.ok).toBe(true);
		expect(r.ok && r.payload.properties).toBeUndefined();
		expect(r.warnings).toContain(
			'Purchase without value.amount and value.currency: TikTok records it but cannot report its value',
		);
	});

	it('a Purchase with an amount it cannot read says so, with the amount’s shape, never "without value"', () => {
		const r = build({ contact: { email: 'a@example.com' }, value: { amount: '1.200,50', currency: 'EUR' } }, 'Purchase');
		expect(r.ok && r.payload.properties).toBeUndefined();
		expect(r.warnings).toEqual(
			expect.arrayContaining([
				'value.amount: text shaped "9.999,99" is not a non-negative number, omitted',
				'Purchase with an unreadable value.amount (text shaped "9.999,99"): TikTok records it but cannot report its value',
			]),
		);
		expect(r.warnings.join('\n')).not.toMatch(/without value/);
	});

	it('sends page only with a valid page URL', () => {
		expect(
			build({
				contact: { email: 'a@example.com' },
				source: { page_url: 'example.com/x', referrer: 'https://r.io/' },
			}),
		).toMatchObject({
			ok: true,
			payload: expect.not.objectContaining({ page: expect.anything() }),
		});
		const r = build({
			contact: { email: 'a@example.com' },
			source: { page_url: 'https://x.io/p', referrer: 'not a url' },
		});
		expect(r.ok && r.payload.page).toEqual({ url: 'https://x.io/p' });
	});

	describe('CRM events', () => {
		const crm = { eventSource: 'crm', leadEventSource: 'HubSpot' } as const;

		it('carries the TikTok lead ID from attributes.tiktok_lead_id and the CRM name', () => {
			const r = build(
				{ contact: { email: 'a@example.com' }, attributes: { tiktok_lead_id: 7312345678901234 } },
				'SubmitForm',
				crm,
			);
			expect(r.ok && r.payload.lead).toEqual({
				lead_id: '7312345678901234',
				lead_event_source: 'HubSpot',
			});
		});

		it('sends a lead known only by its TikTok lead ID', () => {
			const r = build({ attributes: { tiktok_lead_id: ' 7312345678901234 ' } }, 'SubmitForm', crm);
			expect(r).toMatchObject({
				ok: true,
				payload: { user: {}, lead: { lead_id: '7312345678901234' } },
			});
		});

		it('refuses a lead ID that lost digits as a JSON number, and says to pass a string', () => {
			const r = build(
				{
					contact: { email: 'a@example.com' },
					// As a webhook's JSON delivers it: the number has already lost its last digits.
					attributes: JSON.parse('{"tiktok_lead_id": 7312345678901234567}'),
				},
				'SubmitForm',
				crm,
			);
			expect(r.ok && r.payload.lead).toEqual({ lead_event_source: 'HubSpot' });
			expect(r.warnings.join()).toMatch(
				/tiktok_lead_id: a number too large to be exact; pass the lead ID as a string/,
			);
		});

		it('does not send lead on web events', () => {
			const r = build({
				contact: { email: 'a@example.com' },
				attributes: { tiktok_lead_id: '73' },
			});
			expect(r.ok && r.payload.lead).toBeUndefined();
			expect(build({ attributes: { tiktok_lead_id: '73' } }).ok).toBe(false);
		});

		it('goes to the CRM event set, which is also the dedup destination', () => {
			expect(tiktokAdapter.destinationId(config({ eventSource: 'crm' }))).toBe('CRMSET0001');
			expect(tiktokAdapter.destinationId(config())).toBe(PIXEL);
			expect(tiktokAdapter.previewRequest([], config({ eventSource: 'crm' }))).toMatchObject({
				body: { event_source: 'crm', event_source_id: 'CRMSET0001', data: [] },
			});
		});
	});
});

describe('the error map', () => {
	const res = (status: number, data?: unknown) => ({ status, headers: {}, data });
	it.each([
		[res(200, { code: 0, message: 'OK', request_id: 'r' }), 'ok'],
		[res(200, { code: 20001, message: 'Partial success' }), 'ok'],
		[res(200, { code: 40100, message: 'Requests made too frequently' }), 'throttle'],
		[res(200, { code: 40132, message: 'Request frequency limited' }), 'throttle'],
		[res(429, { code: 40100 }), 'throttle'],
		[res(429, ''), 'throttle'],
		[res(200, { code: 50000, message: 'System error' }), 'retry'],
		[res(200, { code: 50002, message: 'System timeout' }), 'retry'],
		[res(200, { code: 51000 }), 'retry'],
		[res(200, { code: 51012, message: 'Pixel error' }), 'retry'],
		[res(200, { code: 51042 }), 'retry'],
		[res(503, ''), 'retry'],
		[res(502, { code: 0 }), 'retry'],
		[res(200, ''), 'retry'],
		[res(200, { message: 'no code' }), 'retry'],
		[res(200, { code: 40000, message: 'Invalid params' }), 'permanent'],
		[
			res(200, { code: 40002, message: 'Invalid value for event_id: not a valid string.' }),
			'permanent',
		],
		[res(200, { code: '40002' }), 'permanent'],
		[res(200, { code: 40061, message: 'Invalid batch size' }), 'permanent'],
		[res(200, { code: 40062, message: 'PII_NOT_HASHED' }), 'permanent'],
		[res(200, { code: 40063, message: 'Invalid partner name' }), 'permanent'],
		[res(200, { code: 40001, message: 'No permission' }), 'permanent'],
		[res(200, { code: 40003, message: 'Forbidden' }), 'permanent'],
		[res(200, { code: 40102, message: 'Access token expired' }), 'permanent'],
		[res(200, { code: 40104, message: 'Access token is null' }), 'permanent'],
		[
			res(200, { code: 40105, message: 'Access token is incorrect or has been revoked.' }),
			'permanent',
		],
		[res(401, ''), 'permanent'],
		[res(400, { code: 0 }), 'permanent'],
	])('%j → %s', (response, kind) => {
		expect(classifyTiktokResponse(response).kind).toBe(kind);
	});

	it.each([
		[0, 'ok'],
		[20001, 'partial'],
		[40100, 'throttle'],
		[40132, 'throttle'],
		[50000, 'retry'],
		[51042, 'retry'],
		[40102, 'token'],
		[40104, 'token'],
		[40105, 'token'],
		[40001, 'permission'],
		[40003, 'permission'],
		[40006, 'request'],
		[40051, 'request'],
		[40063, 'request'],
		// Something in the events: the chunk is split until the bad events stand alone.
		[40000, 'event'],
		[40002, 'event'],
		[40007, 'event'],
		[40061, 'event'],
		[40062, 'event'],
	])('code %d → %s', (code, kind) => {
		expect(classifyTiktokCode(code)).toBe(kind);
	});

	it("quotes TikTok's own words, with advice for token errors", () => {
		expect(
			describeTiktokError(
				{
					code: 40002,
					message: 'Invalid value for event_id: not a valid string.',
					request_id: '2026113012',
				},
				200,
			),
		).toBe(
			'TikTok: Invalid value for event_id: not a valid string. [code 40002, request_id 2026113012]',
		);
		expect(
			describeTiktokError(
				{ code: 40105, message: 'Access token is incorrect or has been revoked.' },
				200,
			),
		).toBe(
			'TikTok: Access token is incorrect or has been revoked. (the access token is expired, empty or invalid: generate a new one in Events Manager and update the TikTok Events credential) [code 40105]',
		);
		expect(describeTiktokError(undefined, 401)).toBe(
			'TikTok answered HTTP 401 without a result code',
		);
	});
});

describe('request details', () => {
	it('posts to the event/track path of the base URL', () => {
		expect(tiktokTrackUrl(config())).toBe(
			'https://business-api.tiktok.com/open_api/v1.3/event/track/',
		);
		expect(tiktokTrackUrl(config({ baseUrl: 'http://127.0.0.1:9/' }))).toBe(
			'http://127.0.0.1:9/open_api/v1.3/event/track/',
		);
	});

	it('leaves test_event_code out unless set', () => {
		expect(tiktokAdapter.previewRequest([], config())).toEqual({
			method: 'POST',
			url: 'https://business-api.tiktok.com/open_api/v1.3/event/track/',
			body: { event_source: 'web', event_source_id: PIXEL, data: [] },
		});
	});
});
