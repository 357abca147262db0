import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { readEventContext } from '../../../shared/events/context';
import { deriveEventId } from '../../../shared/events';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import {
	buildDataManagerEvent,
	classifyDataManagerResponse,
	dataManagerIngestBody,
	dataManagerPreviewRequest,
	eventIndexOf,
	googleAdapter,
	googleDataManagerAdapter,
	readDataManagerError,
	type GoogleDataManagerConfig,
} from '../../../shared/platforms/google';
import type { LeadRecord } from '../../../shared/types';
import { webLead } from '../../support/leads';

/*
 * Expected hashes computed independently of this code base:
 *   python3 -c "import hashlib;print(hashlib.sha256(b'mary').hexdigest())"
 */
const EMAIL_LEAD_1 = 'e31f4fe4b2639f9c68e5fd7ae3a663f8a9f96e2f6f9b938d17bc530149891685'; // lead.1@example.com
const PHONE_US = '1e231c66011e7a2d867a9cfae267a6aff103cf4913640b6e71a99850fc0ffbc8'; // +16505551212
const MARY = '6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec'; // mary
const ONEIL = '67a42a846e98e3c1a96cd6ba14883a5ea05990cd93964ce8b832aa9497ca785c'; // oneil
const EVENT_TIME = 1_796_000_000; // 2026-11-30T00:53:20Z
const GCLID = 'Cj0KCQiA-golden_GCLID1';
const DESTINATION = 'customers/1234567890/conversionActions/987654321';

const config = (overrides: Partial<GoogleDataManagerConfig> = {}): GoogleDataManagerConfig => ({
	operatingAccountId: '1234567890',
	conversionActionId: '987654321',
	...overrides,
});

function build(
	record: LeadRecord,
	eventName = 'lead',
	overrides: Partial<GoogleDataManagerConfig> = {},
) {
	const identity = normalizeIdentity(record, { eventTimeMs: EVENT_TIME * 1000 });
	return buildDataManagerEvent(
		{
			record,
			eventName,
			eventId: deriveEventId(DESTINATION, eventName, String(record.record_id ?? 'r-1')),
			eventTime: EVENT_TIME,
			identity,
			user: renderIdentity(identity, IDENTITY_PROFILES['google']),
			event: readEventContext(record, { identity }),
		},
		config(overrides),
	);
}

describe('the canonical lead as Data Manager receives it (golden event)', () => {
	it('builds the exact Event: transaction id, UTC time, one click id, identifiers, consent, value', () => {
		const lead = webLead(1, {
			click: { gclid: GCLID, wbraid: 'wb-1' },
			consent: { ad_user_data: 'granted', ad_personalization: 'denied' },
			value: { amount: '120.50', currency: 'usd' },
		});
		const built = build(lead);
		expect(built).toEqual({
			ok: true,
			payload: {
				transactionId: deriveEventId(DESTINATION, 'lead', 'sub_1'),
				eventTimestamp: '2026-11-30T00:53:20Z',
				eventSource: 'WEB',
				adIdentifiers: { gclid: GCLID },
				userData: {
					userIdentifiers: [
						{ emailAddress: EMAIL_LEAD_1 },
						{ phoneNumber: PHONE_US },
						{
							address: {
								givenName: MARY,
								familyName: ONEIL,
								regionCode: 'US',
								postalCode: expect.stringMatching(/^94105/),
							},
						},
					],
				},
				consent: { adUserData: 'CONSENT_GRANTED', adPersonalization: 'CONSENT_DENIED' },
				conversionValue: 120.5,
				currency: 'USD',
			},
			matchKeys: ['gclid', 'emailAddress', 'phoneNumber', 'address'],
			warnings: [expect.stringContaining('click.wbraid: not sent')],
		});
	});

	it('sends the click id only when ad_user_data is denied, and says so', () => {
		const built = build(webLead(1, { click: { gclid: GCLID }, consent: { ad_user_data: 'no' } }));
		expect(built.ok && built.payload.userData).toBeUndefined();
		expect(built.ok && built.payload.adIdentifiers).toEqual({ gclid: GCLID });
		expect(built.warnings).toContain(
			'consent.ad_user_data is denied: email, phone and address not sent (click id only)',
		);
	});

	it('skips a lead with nothing Google can match, before any request', () => {
		const built = build({ record_id: 'x', state: 'lead', contact: { email: 'not-an-email' } });
		expect(built).toMatchObject({ ok: false, status: 'skipped' });
	});

	it('keeps at most ten identifiers: emails, then phones, then the address', () => {
		const emails = Array.from({ length: 12 }, (_, i) => `p${i}@example.com`);
		const built = build(
			webLead(1, { contact: { email: emails, phone: '(650) 555-1212', country: 'US' } }),
		);
		const ids = built.ok ? built.payload.userData!.userIdentifiers : [];
		expect(ids).toHaveLength(10);
		expect(ids.every((id) => 'emailAddress' in id)).toBe(true);
		expect(built.warnings.join(' ')).toContain('3 of 13 not sent');
	});
});

describe("no consent signal, by region (Google's EU user consent policy)", () => {
	it.each([
		['US', 'identifiers'],
		[undefined, 'identifiers'],
		['Germany', 'click id only'],
		['United Kingdom', 'click id only'],
	] as const)('contact in %s without a consent signal → %s', (country, expected) => {
		const r = build({
			record_id: 'r-eea',
			contact: { email: 'lead.1@example.com', ...(country ? { country } : {}) },
			click: { gclid: GCLID },
		});
		if (!r.ok) throw new Error(r.reason);
		expect(r.payload.consent).toBeUndefined();
		if (expected === 'identifiers') {
			expect(r.payload.userData?.userIdentifiers).toEqual([{ emailAddress: EMAIL_LEAD_1 }]);
		} else {
			expect(r.payload.userData).toBeUndefined();
			expect(r.payload.adIdentifiers).toEqual({ gclid: GCLID });
			expect(r.warnings.join()).toMatch(/no consent signal for a lead in the EEA.*email, phone and address not sent/);
		}
	});
});

describe('partial leads never counted by the completed-lead action', () => {
	const lead: LeadRecord = { record_id: 'r-9', click: { gclid: GCLID } };

	it('skips a partial lead when no partial-lead action is set, saying how to send it', () => {
		const r = build(lead, 'partial_lead');
		expect(r.ok).toBe(false);
		if (r.ok) return;
		expect(r.status).toBe('skipped');
		expect(r.reason).toMatch(/^partial lead not sent: Google would count it as a conversion of the completed-lead action/);
		expect(r.reason).toContain('Partial Lead Conversion Action');
	});

	it('sends completed leads as before when no partial-lead action is set (no destination references)', () => {
		const r = build(lead, 'lead');
		if (!r.ok) throw new Error(r.reason);
		expect(r.payload.destinationReferences).toBeUndefined();
		expect(dataManagerIngestBody([r.payload], config()).destinations).toHaveLength(1);
	});

	it('with a partial-lead action: two destinations, and each event names only its own', () => {
		const withPartial = { partialConversionActionId: '987654322' };
		const partial = build(lead, 'partial_lead', withPartial);
		const completed = build({ ...lead, record_id: 'r-10' }, 'lead', withPartial);
		if (!partial.ok || !completed.ok) throw new Error('expected both built');
		expect(partial.payload.destinationReferences).toEqual(['partial_lead']);
		expect(completed.payload.destinationReferences).toEqual(['main']);
		const body = dataManagerIngestBody([partial.payload, completed.payload], config(withPartial));
		expect(body.destinations).toEqual([
			{
				reference: 'main',
				operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
				productDestinationId: '987654321',
			},
			{
				reference: 'partial_lead',
				operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
				productDestinationId: '987654322',
			},
		]);
	});
});

describe('the events:ingest request', () => {
	it('names the operating account that owns the action, the login account, HEX encoding and test mode', () => {
		const body = dataManagerIngestBody(
			[],
			config({ loginAccountId: '5550001111', validateOnly: true }),
		);
		expect(body).toEqual({
			destinations: [
				{
					operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
					loginAccount: { accountType: 'GOOGLE_ADS', accountId: '5550001111' },
					productDestinationId: '987654321',
				},
			],
			events: [],
			encoding: 'HEX',
			validateOnly: true,
		});
		expect(dataManagerPreviewRequest([], config())).toMatchObject({
			method: 'POST',
			url: 'https://datamanager.googleapis.com/v1/events:ingest',
		});
	});

	it('shares destination, event names and so event ids and dedup keys with the Google Ads API path', () => {
		expect(googleDataManagerAdapter.destinationId(config())).toBe(
			googleAdapter.destinationId({
				developerToken: 't',
				customerId: '1234567890',
				conversionAction: DESTINATION,
				timeZone: 'UTC',
			}),
		);
		expect(googleDataManagerAdapter.eventNameByState).toBe(googleAdapter.eventNameByState);
		expect(googleDataManagerAdapter.maxBatchSize).toBe(2000);
	});
});

describe('the Data Manager error map', () => {
	const error = (status: number, canonical: string, details: unknown[] = []) => ({
		status,
		headers: {},
		data: { error: { code: status, status: canonical, message: 'm', details } },
	});

	it('reads the event index from a field path, in either case', () => {
		expect(eventIndexOf({ field: 'events[12].user_data.user_identifiers[0]' })).toBe(12);
		expect(eventIndexOf({ field: 'events[3].userData' })).toBe(3);
		expect(eventIndexOf({ field: 'destinations[0].operating_account' })).toBeUndefined();
		expect(eventIndexOf({})).toBeUndefined();
	});

	it('reads ErrorInfo, RequestInfo and BadRequest from details', () => {
		const parts = readDataManagerError(
			error(400, 'INVALID_ARGUMENT', [
				{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_FORMAT' },
				{ '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: 'r-1' },
				{
					'@type': 'type.googleapis.com/google.rpc.BadRequest',
					fieldViolations: [{ field: 'events[0].currency', reason: 'INVALID_CURRENCY_CODE' }],
				},
			]).data,
		);
		expect(parts).toMatchObject({
			reason: 'INVALID_FORMAT',
			requestId: 'r-1',
			violations: [{ field: 'events[0].currency' }],
		});
	});

	it('throttles 429, retries 5xx, and treats 400/401/403 as final', () => {
		expect(classifyDataManagerResponse(error(429, 'RESOURCE_EXHAUSTED')).kind).toBe('throttle');
		expect(classifyDataManagerResponse(error(503, 'UNAVAILABLE')).kind).toBe('retry');
		expect(classifyDataManagerResponse(error(504, 'DEADLINE_EXCEEDED')).kind).toBe('retry');
		expect(classifyDataManagerResponse(error(400, 'INVALID_ARGUMENT')).kind).toBe('permanent');
		expect(classifyDataManagerResponse(error(401, 'UNAUTHENTICATED')).kind).toBe('permanent');
		expect(classifyDataManagerResponse(error(403, 'PERMISSION_DENIED')).kind).toBe('permanent');
		expect(
			classifyDataManagerResponse({ status: 200, headers: {}, data: { requestId: 'x' } }).kind,
		).toBe('ok');
	});
});
