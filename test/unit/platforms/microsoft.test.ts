import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { readLeadConsent } from '../../../shared/events/consent';
import { readEventContext } from '../../../shared/events/context';
import { createHash } from 'node:crypto';
import { dispatch } from '../../../shared/dispatch';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import {
	adStorageConsentFor,
	buildMicrosoftEvent,
	classifyMicrosoftResponse,
	describeDetail,
	describeMicrosoftError,
	MICROSOFT_EVENT_BY_STATE,
	MICROSOFT_EVENT_WINDOW_SECONDS,
	MICROSOFT_MAX_EVENTS_PER_REQUEST,
	microsoftAdapter,
	microsoftEventsUrl,
	microsoftRequestBody,
	type MicrosoftConfig,
} from '../../../shared/platforms/microsoft';
import { Transport } from '../../../shared/transport';
import type { LeadRecord } from '../../../shared/types';
import { webLead } from '../../support/leads';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15';
const TAG = '187072955';

const config = (overrides: Partial<MicrosoftConfig> = {}): MicrosoftConfig => ({
	uetTagId: TAG,
	apiToken: 'uet-capi-token-123456',
	eventType: 'custom',
	...overrides,
});

function build(record: LeadRecord, eventName = 'lead', overrides: Partial<MicrosoftConfig> = {}) {
	const identity = normalizeIdentity(record, { eventTimeMs: 1_796_018_400_000 });
	return buildMicrosoftEvent(
		{
			record,
			eventName,
			eventId: 'eid',
			eventTime: 1_796_018_400,
			identity,
			user: renderIdentity(identity, IDENTITY_PROFILES['microsoft']),
			event: readEventContext(record, { identity }),
		},
		config(overrides),
	);
}

/** The canonical web lead, plus what only Microsoft uses: msclkid, the UET visitor id. */
function canonicalLead(): LeadRecord {
	const lead = webLead(1);
	return {
		...lead,
		occurred_at: '2026-11-30T06:00:00.000Z',
		source: { ...lead.source, referrer: 'https://www.bing.com/' },
		contact: { ...lead.contact, external_id: 'CRM-0001' },
		click: { ...lead.click, msclkid: 'b1e6a4f3c2d54b0e9a7f1c2d3e4f5a6b' },
		consent: { ad_user_data: 'granted', ad_personalization: 'granted' },
		attributes: { uetvid: '4f1c0b708a9d11efb2c3d5e6f7a8b9c0', utm_source: 'bing' },
	};
}

describe('the golden payload for one canonical lead', () => {
	it('is exactly what platforms.md §5 describes, field by field (dry run through the real dispatcher)', async () => {
		const [result] = await dispatch([{ record: canonicalLead(), eventName: 'lead' }], {
			adapter: microsoftAdapter,
			config: config(),
			transport: new Transport(),
			store: null,
			mode: { kind: 'dryRun' },
			clock: () => Date.parse('2026-11-30T07:00:00.000Z'),
		});
		const event = {
			eventType: 'custom',
			// sha256("187072955|lead|sub_1"), computed with Python's hashlib
			eventId: '1ad9f0ec4ded61a011666b53d032b7f5f04ab399c228a8561a5cb7d35cb21d65',
			eventName: 'lead',
			eventTime: 1796018400,
			eventSourceUrl: 'https://example.com/pricing?utm_source=fb',
			referrerUrl: 'https://www.bing.com/',
			adStorageConsent: 'G',
			userData: {
				// sha256("lead.1@example.com"): " Lead.1@Example.com " trimmed and lowercased
				em: 'e31f4fe4b2639f9c68e5fd7ae3a663f8a9f96e2f6f9b938d17bc530149891685',
				// sha256("+16505551212"): "(650) 555-1212" in the US, E.164 with "+"
				ph: '1e231c66011e7a2d867a9cfae267a6aff103cf4913640b6e71a99850fc0ffbc8',
				msclkid: 'b1e6a4f3c2d54b0e9a7f1c2d3e4f5a6b',
				anonymousId: '4f1c0b708a9d11efb2c3d5e6f7a8b9c0',
				externalId: 'crm-0001',
				clientIpAddress: '203.0.113.7',
				clientUserAgent: UA,
			},
		};
		expect(result.response).toEqual({
			request_preview: {
				method: 'POST',
				url: `https://capi.uet.microsoft.com/v1/${TAG}/events`,
				body: {
					data: [event],
					dataProvider: 'n8n-nodes-lead-capi',
					continueOnValidationError: true,
				},
			},
		});
		expect(result).toMatchObject({
			status: 'skipped',
			dry_run: true,
			platform: 'microsoft',
			destination: TAG,
			event_name: 'lead',
			event_id: event.eventId,
			event_time: 1796018400,
			payload: event,
			match_keys: [
				'em',
				'ph',
				'msclkid',
				'anonymousId',
				'externalId',
				'clientIpAddress',
				'clientUserAgent',
			],
		});
		// Key order as sent, too (a reader of the raw request sees the documented order).
		expect(Object.keys(result.payload as typeof event)).toEqual(Object.keys(event));
		expect(Object.keys((result.payload as typeof event).userData)).toEqual(result.match_keys);
		expect(JSON.stringify(result)).not.toContain('uet-capi-token-123456');
	});

	it('matches the platforms.md §8 vectors for em and ph', () => {
		const r = build({ contact: { email: ' User@Example.com ', phone: '+1 413-555-2671' } });
		expect(r.ok && r.payload.userData).toEqual({
			em: 'b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514',
			ph: 'dadb5627eafe593ed1ff20f4c40a3cca26ae122a9805636fd3be3071249631db',
		});
	});

	it('shows in userData() exactly the userData the payload carries (what the normalizer shows is sent)', () => {
		const record = canonicalLead();
		const identity = normalizeIdentity(record, {});
		const user = renderIdentity(identity, IDENTITY_PROFILES['microsoft']);
		const built = build(record);
		expect(built.ok).toBe(true);
		if (!built.ok) return;
		expect(microsoftAdapter.userData(user, record)).toEqual({
			data: built.payload.userData,
			matchKeys: built.matchKeys,
			warnings: [],
		});
	});
});

describe('the event-name row and limits', () => {
	it('names every state, partial leads apart from completed ones', () => {
		expect(microsoftAdapter.eventNameByState).toEqual({
			partial: 'partial_lead',
			lead: 'lead',
			contact: 'contact',
			schedule: 'schedule',
			registration: 'sign_up',
			purchase: 'purchase',
		});
		expect(MICROSOFT_EVENT_BY_STATE.partial).not.toBe(MICROSOFT_EVENT_BY_STATE.lead);
		expect(microsoftAdapter.maxBatchSize).toBe(MICROSOFT_MAX_EVENTS_PER_REQUEST);
		expect(MICROSOFT_MAX_EVENTS_PER_REQUEST).toBe(1000);
		expect(microsoftAdapter.eventTimeWindow.seconds).toBe(MICROSOFT_EVENT_WINDOW_SECONDS);
		expect(MICROSOFT_EVENT_WINDOW_SECONDS).toBe(7 * 86400);
		expect(microsoftAdapter.destinationId(config())).toBe(TAG);
	});
});

describe('buildMicrosoftEvent: identity', () => {
	it.each([
		['email only', { contact: { email: 'a@example.com' } }, ['em']],
		['phone only', { contact: { phone: '+44 20 7946 0958' } }, ['ph']],
		['msclkid only', { click: { msclkid: 'abc123' } }, ['msclkid']],
		['UET visitor id only', { attributes: { uetvid: 'v123' } }, ['anonymousId']],
		['external id only', { contact: { external_id: 'C-1' } }, ['externalId']],
	] as const)('sends a lead with %s', (_label, record, keys) => {
		const r = build(record as LeadRecord);
		expect(r).toMatchObject({ ok: true, matchKeys: keys });
	});

	it.each([
		[
			'IP + user agent only',
			{ client: { ip: '203.0.113.7', user_agent: UA } },
			/only clientIpAddress, clientUserAgent/,
		],
		[
			'nothing usable',
			{ contact: { email: 'not-an-email', first_name: 'Ann' } },
			/no customer information Microsoft can match/,
		],
	] as const)('fails a lead without an identifier: %s', (_label, record, message) => {
		const r = build(record as LeadRecord);
		expect(r).toMatchObject({
			ok: false,
			status: 'failed',
			reason: expect.stringMatching(message),
		});
	});

	it("strips the _uet prefix of the _uetmsclkid cookie and keeps the click id's case", () => {
		const r = build({ click: { msclkid: '_uetAbC123dEf' } });
		expect(r.ok && r.payload.userData.msclkid).toBe('AbC123dEf');
	});

	it('reads the UET visitor id from attributes.uetvid (or _uetvid) and never echoes a bad one', () => {
		expect(build({ attributes: { _uetvid: 'v-9' } }).ok).toBe(true);
		const bad = build({
			contact: { email: 'a@example.com' },
			attributes: { uetvid: 'has a space' },
		});
		expect(bad.ok && bad.payload.userData.anonymousId).toBeUndefined();
		expect(bad.warnings).toContain(
			'attributes.uetvid: contains whitespace, not a UET visitor id; omitted',
		);
		expect(JSON.stringify(bad)).not.toContain('has a space');
	});

	it('sends one value per key: the first of several emails, with a warning', () => {
		const r = build({ contact: { email: ['a@example.com', 'b@example.com'] } });
		expect(r.ok && r.payload.userData.em).toBe(sha('a@example.com'));
		expect(r.warnings).toContain('email: Microsoft takes one value; sent the first of 2');
	});

	it('passes already-hashed emails and external ids through, never hashing twice', () => {
		const hashedEmail = sha('x@example.com');
		const hashedId = sha('crm-9');
		const r = build({ contact: { email: hashedEmail.toUpperCase(), external_id: hashedId } });
		expect(r.ok && r.payload.userData).toEqual({ em: hashedEmail, externalId: hashedId });
	});
});

describe('buildMicrosoftEvent: consent', () => {
	it.each([
		[{ ad_user_data: 'granted', ad_personalization: 'granted' }, 'D', 'G'],
		[{ ad_user_data: true }, 'D', 'G'],
		[{ ad_personalization: 'yes' }, 'D', 'G'],
		[{ ad_user_data: 'granted', ad_personalization: 'denied' }, 'G', 'D'],
		[{ ad_personalization: false }, 'G', 'D'],
		[{ ad_user_data: 'denied' }, 'G', 'D'],
		[{}, 'D', 'D'],
		[undefined, 'D', 'D'],
		[{ ad_user_data: 'maybe' }, 'D', 'D'],
		[{}, 'G', 'G'],
		[undefined, 'G', 'G'],
	] as const)('%j with unknown → %s gives adStorageConsent %s', (consent, unknown, expected) => {
		expect(adStorageConsentFor(readLeadConsent({ consent }), unknown)).toBe(expected);
	});

	it.each([
		// [contact country, visitor country, adStorageConsent with no consent signal (By Region)]
		['US', undefined, 'G'],
		[undefined, 'US', 'G'],
		['Brazil', undefined, 'G'],
		['Germany', undefined, 'D'],
		['GB', 'US', 'D'],
		['Switzerland', undefined, 'D'],
		['Norway', undefined, 'D'],
		['US', 'DE', 'G'],
		[undefined, undefined, 'D'],
	] as const)(
		"no consent signal, contact %s / visitor %s: Microsoft's consent-mode default → %s",
		(country, visitor, expected) => {
			const record: LeadRecord = {
				contact: { email: 'a@example.com', ...(country ? { country } : {}) },
				...(visitor ? { client: { country: visitor } } : {}),
			};
			const r = build(record);
			expect(r.ok && r.payload.adStorageConsent).toBe(expected);
		},
	);

	it('a fixed Ad Storage Consent When Unknown overrides the region; a signal always wins', () => {
		const us = { contact: { email: 'a@example.com', country: 'US' } };
		const r = build(us, 'lead', { unknownConsent: 'D' });
		expect(r.ok && r.payload.adStorageConsent).toBe('D');
		const de = { contact: { email: 'a@example.com', country: 'DE' } };
		const granted = build(de, 'lead', { unknownConsent: 'G' });
		expect(granted.ok && granted.payload.adStorageConsent).toBe('G');
		const signalled = build({ ...de, consent: { ad_personalization: 'granted' } });
		expect(signalled.ok && signalled.payload.adStorageConsent).toBe('G');
	});

	it('skips a lead whose ad_user_data consent is denied, whatever else it has', () => {
		const r = build({ ...canonicalLead(), consent: { ad_user_data: 'denied' } });
		expect(r).toMatchObject({
			ok: false,
			status: 'skipped',
			reason: expect.stringMatching(/ad_user_data is denied/),
		});
	});
});

describe('buildMicrosoftEvent: event type, value, purchase', () => {
	it('sends a Page Load with the page URL and without an event name', () => {
		const r = build(canonicalLead(), 'lead', { eventType: 'pageLoad' });
		expect(r.ok && r.payload).toMatchObject({
			eventType: 'pageLoad',
			eventSourceUrl: 'https://example.com/pricing?utm_source=fb',
		});
		expect(r.ok && 'eventName' in r.payload).toBe(false);
	});

	it('fails a Page Load without a page URL, with the reason', () => {
		const r = build(
			{ contact: { email: 'a@example.com' }, source: { page_url: 'example.com/no-scheme' } },
			'lead',
			{
				eventType: 'pageLoad',
			},
		);
		expect(r).toMatchObject({
			ok: false,
			status: 'failed',
			reason: expect.stringMatching(/Page Load events need the page URL/),
		});
	});

	it('sends a custom event without a page URL, and no URL that is not one', () => {
		const r = build({
			contact: { email: 'a@example.com' },
			source: { page_url: 'example.com/x', referrer: 'android-app://x' },
		});
		expect(r.ok && r.payload).toEqual({
			eventType: 'custom',
			eventId: 'eid',
			eventName: 'lead',
			eventTime: 1796018400,
			adStorageConsent: 'D',
			userData: { em: sha('a@example.com') },
		});
	});

	it('sends a purchase with value, currency, transaction id and pageType purchase', () => {
		const r = build(
			{
				contact: { email: 'a@example.com' },
				value: { amount: '249.90', currency: 'eur' },
				attributes: { order_id: 'ord-77' },
			},
			'purchase',
		);
		expect(r.ok && r.payload.customData).toEqual({
			value: 249.9,
			currency: 'EUR',
			transactionId: 'ord-77',
			pageType: 'purchase',
		});
	});

	it('sends a purchase without a value (never guessed) and says so', () => {
		const r = build({ contact: { email: 'a@example.com' } }, 'purchase');
		expect(r.ok && r.payload.customData).toEqual({ pageType: 'purchase' });
		expect(r.warnings.join()).toMatch(
			/purchase sent without value\.amount and value\.currency \(never guessed\)/,
		);
	});

	it('sends value and currency on other events only when both are known', () => {
		const both = build({
			contact: { email: 'a@example.com' },
			value: { amount: 50, currency: 'USD' },
		});
		expect(both.ok && both.payload.customData).toEqual({ value: 50, currency: 'USD' });
		const amountOnly = build({ contact: { email: 'a@example.com' }, value: { amount: 50 } });
		expect(amountOnly.ok && amountOnly.payload.customData).toBeUndefined();
		expect(amountOnly.warnings.join()).toMatch(/without value\.currency/);
	});
});

describe('classifyMicrosoftResponse (the error map)', () => {
	const res = (status: number, data: unknown = {}, headers: Record<string, string> = {}) => ({
		status,
		headers,
		data,
	});
	it.each([
		[res(200, { eventsReceived: 2, traceId: 't' }), 'ok'],
		[res(200, { eventsReceived: 1, error: { code: 'x', details: [{ index: 1 }] } }), 'ok'],
		[res(202), 'ok'],
		[res(429, {}, { 'retry-after': '3' }), 'throttle'],
		[res(408), 'retry'],
		[res(500), 'retry'],
		[res(502, '<html>Bad gateway</html>'), 'retry'],
		[res(503), 'retry'],
		[res(400, { error: { code: 'InvalidEvents', details: [{ index: 0 }] } }), 'permanent'],
		[res(401, { error: { code: 'Unauthorized', message: 'no' } }), 'permanent'],
		[res(403, { error: { code: 'Forbidden' } }), 'permanent'],
		[res(404), 'permanent'],
		[res(413), 'permanent'],
	])('%j → %s', (response, kind) => {
		expect(classifyMicrosoftResponse(response).kind).toBe(kind);
	});

	it("says a whole-request error in Microsoft's own words, with its code, status and trace id", () => {
		expect(
			describeMicrosoftError(
				{ error: { code: 'Unauthorized', message: 'Authorization failed' }, traceId: 'abc-1' },
				401,
			),
		).toBe('Microsoft: Authorization failed [code Unauthorized, HTTP 401, traceId abc-1]');
		expect(describeMicrosoftError({}, 502)).toBe('Microsoft: HTTP 502 [HTTP 502]');
	});

	it('describes a rejected event by property and message, never by the value it rejected', () => {
		const email = sha('private@example.com');
		expect(
			describeDetail({
				index: 3,
				propertyName: 'userData.em',
				attemptedValue: email,
				errorMessage: `The value '${email}' is not a valid hash`,
			}),
		).toBe("userData.em: The value '[value]' is not a valid hash");
	});
});

describe('request details', () => {
	it('builds the events URL from the base URL and the tag', () => {
		expect(microsoftEventsUrl(config())).toBe(`https://capi.uet.microsoft.com/v1/${TAG}/events`);
		expect(microsoftEventsUrl(config({ baseUrl: 'http://127.0.0.1:9/', uetTagId: 'a/b' }))).toBe(
			'http://127.0.0.1:9/v1/a%2Fb/events',
		);
	});

	it('puts dataProvider and continueOnValidationError at the top level, never a token', () => {
		const body = microsoftRequestBody([], config());
		expect(body).toEqual({
			data: [],
			dataProvider: 'n8n-nodes-lead-capi',
			continueOnValidationError: true,
		});
		expect(microsoftRequestBody([], config({ dataProvider: '' }))).toEqual({
			data: [],
			continueOnValidationError: true,
		});
	});
});
