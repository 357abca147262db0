import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { readEventContext } from '../../../shared/events/context';
import { deriveEventId } from '../../../shared/events';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import {
	buildGoogleClickConversion,
	classifyGoogleAdsResponse,
	classifyRowError,
	conversionActionResourceName,
	describeGoogleRpcError,
	formatConversionDateTime,
	googleAdapter,
	googleAdsHeaders,
	googlePreviewRequest,
	googleUploadBody,
	googleUploadUrl,
	isAccessTokenRejection,
	isValidTimeZone,
	normalizeCustomerId,
	readConversionActions,
	readUploadOutcomes,
	type GoogleAdsConfig,
} from '../../../shared/platforms/google';
import type { LeadRecord } from '../../../shared/types';
import { webLead } from '../../support/leads';

/*
 * Expected hashes and times below were computed independently of this code base:
 *   python3 -c "import hashlib;print(hashlib.sha256(b'lead.1@example.com').hexdigest())"
 *   TZ=America/New_York date -d @1796000000 '+%F %T%:z'   (and Python's zoneinfo for the others)
 */
const EMAIL_LEAD_1 = 'e31f4fe4b2639f9c68e5fd7ae3a663f8a9f96e2f6f9b938d17bc530149891685'; // lead.1@example.com
const PHONE_US = '1e231c66011e7a2d867a9cfae267a6aff103cf4913640b6e71a99850fc0ffbc8'; // +16505551212
const GMAIL_NO_DOTS = '3586de92bb3636d0885a12eff961429a32e4ebd764b96f50d85d016f9338d586'; // johnsmith@gmail.com
const EMAILS: Record<string, string> = {
	'a@example.com': '08168cd80dfd534ab0f10af10f1303fe00af2d43ab5c1432360d137f8197e17a',
	'b@example.com': 'e8f39b3e1382367d6d41ab34dc270d4e7533f978c9e9a775dfe2185b2f96b96c',
	'c@example.com': '50b313b4b64bd2a2ab9305ad1965147e85239555815da6857bf532010c74b0d6',
	'd@example.com': '5fe5806a804c99a33dd1dfb18fadd87f4ff450027de5515122b850decfd5f9a2',
	'e@example.com': '2457bafa74fb237eccdbaab2629da522182eee979409ff6568f27baa77ed5c10',
};
// platforms.md §8, Google Ads vector (Data Manager formatting doc). Segment's +16161729102 is not
// used: 616-172-… is not a valid US number, so our phone normalizer drops it.
const PHONE_DATA_MANAGER_VECTOR =
	'fb4f73a6ec5fdb7077d564cdd22c3554b43ce49168550c3b12c547b78c517b30'; // +18005550100

const ACTION = 'customers/1234567890/conversionActions/987654321';
const EVENT_TIME = 1_796_000_000; // 2026-11-30T00:53:20Z
const GCLID = 'Cj0KCQiA-golden_GCLID1';

const config = (overrides: Partial<GoogleAdsConfig> = {}): GoogleAdsConfig => ({
	developerToken: 'dev-token-123456',
	customerId: '1234567890',
	conversionAction: ACTION,
	timeZone: 'America/New_York',
	...overrides,
});

function build(record: LeadRecord, eventName = 'lead', overrides: Partial<GoogleAdsConfig> = {}) {
	const cfg = config(overrides);
	const identity = normalizeIdentity(record, { eventTimeMs: EVENT_TIME * 1000 });
	return buildGoogleClickConversion(
		{
			record,
			eventName,
			eventId: deriveEventId(cfg.conversionAction, eventName, String(record.record_id ?? 'r-1')),
			eventTime: EVENT_TIME,
			identity,
			user: renderIdentity(identity, IDENTITY_PROFILES['google']),
			event: readEventContext(record, { identity }),
		},
		cfg,
	);
}

describe('the canonical lead as Google Ads receives it (golden payload)', () => {
	const lead = webLead(1, {
		click: { gclid: GCLID, fbclid: 'IwAR1AbCdEf' },
		consent: { ad_user_data: 'granted', ad_personalization: 'denied' },
		value: { amount: '120.50', currency: 'usd' },
	});

	it('builds the exact ClickConversion', () => {
		const built = build(lead);
		expect(built).toEqual({
			ok: true,
			payload: {
				conversionAction: 'customers/1234567890/conversionActions/987654321',
				conversionDateTime: '2026-11-29 19:53:20-05:00',
				// sha256("customers/1234567890/conversionActions/987654321|lead|sub_1")
				orderId: 'd1bf468c3877db99109060ce4a5790da00bf6a82d7ef1d887beac86033a4f534',
				gclid: 'Cj0KCQiA-golden_GCLID1',
				userIdentifiers: [{ hashedEmail: EMAIL_LEAD_1 }, { hashedPhoneNumber: PHONE_US }],
				conversionValue: 120.5,
				currencyCode: 'USD',
				consent: { adUserData: 'GRANTED' },
			},
			matchKeys: ['gclid', 'hashedEmail', 'hashedPhoneNumber'],
			warnings: [],
		});
	});

	it('sends it in the documented request: partialFailure true, validateOnly only in test mode', () => {
		const built = build(lead);
		if (!built.ok) throw new Error(built.reason);
		expect(googleUploadUrl(config())).toBe(
			'https://googleads.googleapis.com/v26/customers/1234567890:uploadClickConversions',
		);
		expect(googleUploadBody([built.payload], config())).toEqual({
			conversions: [built.payload],
			partialFailure: true,
		});
		expect(googleUploadBody([built.payload], config({ validateOnly: true }))).toEqual({
			conversions: [built.payload],
			partialFailure: true,
			validateOnly: true,
		});
	});

	it('shows the Identity Normalizer exactly the user data the payload carries', () => {
		const built = build(lead);
		if (!built.ok) throw new Error(built.reason);
		const identity = normalizeIdentity(lead, { eventTimeMs: EVENT_TIME * 1000 });
		expect(googleAdapter.userData(renderIdentity(identity, IDENTITY_PROFILES['google']), lead)).toEqual({
			data: { gclid: built.payload.gclid, userIdentifiers: built.payload.userIdentifiers },
			matchKeys: built.matchKeys,
			warnings: [],
		});
	});
});

describe('user identifiers', () => {
	it('hashes phones as E.164 with "+" (platforms.md vector) and removes gmail dots', () => {
		const r = build({
			record_id: 'x',
			contact: {
				email: ' John.Smith@GMail.com ',
				phone: ['(800)555-0100', '650 555 1212'],
				country: 'US',
			},
		});
		expect(r.ok && r.payload.userIdentifiers).toEqual([
			{ hashedEmail: GMAIL_NO_DOTS },
			{ hashedPhoneNumber: PHONE_DATA_MANAGER_VECTOR },
			{ hashedPhoneNumber: PHONE_US },
		]);
	});

	it('passes an already hashed email through, never hashing twice', () => {
		const r = build({ record_id: 'x', contact: { email: EMAIL_LEAD_1.toUpperCase() } });
		expect(r.ok && r.payload.userIdentifiers).toEqual([{ hashedEmail: EMAIL_LEAD_1 }]);
	});

	it('sends at most 5 identifiers, emails first, and says what was left out', () => {
		const six = build({
			record_id: 'x',
			contact: { email: [...Object.keys(EMAILS), 'f@example.com'], phone: '+16505551212' },
		});
		expect(six.ok && six.payload.userIdentifiers).toEqual(
			Object.values(EMAILS).map((hashedEmail) => ({ hashedEmail })),
		);
		expect(six.matchKeys).toEqual(['hashedEmail']);
		expect(six.warnings).toEqual([
			'contact.email: 1 of 6 values not sent; Google takes at most 5 user identifiers (emails first)',
			'contact.phone: 1 of 1 values not sent; Google takes at most 5 user identifiers (emails first)',
		]);

		const mixed = build({
			record_id: 'x',
			contact: {
				email: ['a@example.com', 'b@example.com', 'c@example.com'],
				phone: ['+16505551212', '+18005550100', '+442071838750', '+49301234567'],
			},
		});
		expect(mixed.ok && mixed.payload.userIdentifiers).toEqual([
			{ hashedEmail: EMAILS['a@example.com'] },
			{ hashedEmail: EMAILS['b@example.com'] },
			{ hashedEmail: EMAILS['c@example.com'] },
			{ hashedPhoneNumber: PHONE_US },
			{ hashedPhoneNumber: PHONE_DATA_MANAGER_VECTOR },
		]);
		expect(mixed.warnings).toContain(
			'contact.phone: 2 of 4 values not sent; Google takes at most 5 user identifiers (emails first)',
		);
	});

	it('sends no IP address, name or address: click conversions take only email and phone', () => {
		const r = build(webLead(1));
		expect(r.ok && Object.keys(r.payload).sort()).toEqual([
			'conversionAction',
			'conversionDateTime',
			'orderId',
			'userIdentifiers',
		]);
	});
});

describe('click ids', () => {
	it.each([
		['gclid only', { gclid: 'G1' }, { gclid: 'G1' }, []],
		['gbraid only', { gbraid: 'B1' }, { gbraid: 'B1' }, []],
		['wbraid only', { wbraid: 'W1' }, { wbraid: 'W1' }, []],
		[
			'gclid + gbraid',
			{ gclid: 'G1', gbraid: 'B1' },
			{ gclid: 'G1' },
			['click.gbraid: not sent; Google takes one click id per conversion and gclid comes first'],
		],
		[
			'gbraid + wbraid (never both)',
			{ gbraid: 'B1', wbraid: 'W1' },
			{ gbraid: 'B1' },
			['click.wbraid: not sent; Google takes one click id per conversion and gbraid comes first'],
		],
	])('%s', (_label, click, expected, warnings) => {
		const r = build({ record_id: 'x', click });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		const { gclid, gbraid, wbraid } = r.payload;
		expect(JSON.parse(JSON.stringify({ gclid, gbraid, wbraid }))).toEqual(expected);
		expect(r.payload.userIdentifiers).toBeUndefined();
		expect(r.warnings).toEqual(warnings);
	});
});

describe('consent and what may be sent', () => {
	const contact = { email: 'a@example.com' };

	it.each([
		['granted', { ad_user_data: 'granted' }, { adUserData: 'GRANTED' }],
		['yes', { ad_user_data: 'yes' }, { adUserData: 'GRANTED' }],
		['true', { ad_user_data: true }, { adUserData: 'GRANTED' }],
		['unknown: no consent sent', {}, undefined],
		[
			'only ad_personalization (not settable on click uploads)',
			{ ad_personalization: false },
			undefined,
		],
	])('ad_user_data %s', (_label, consent, expected) => {
		const r = build({ record_id: 'x', contact, consent });
		expect(r.ok && r.payload.consent).toEqual(expected);
		expect(r.ok && r.payload.userIdentifiers).toEqual([{ hashedEmail: EMAILS['a@example.com'] }]);
	});

	it('denied: adUserData DENIED and the click id only, no identifiers', () => {
		const r = build({
			record_id: 'x',
			contact,
			click: { gclid: 'G1' },
			consent: { ad_user_data: 'denied' },
		});
		expect(r).toMatchObject({
			ok: true,
			payload: { gclid: 'G1', consent: { adUserData: 'DENIED' } },
			matchKeys: ['gclid'],
			warnings: [
				'consent.ad_user_data is denied: email and phone not sent (click id only)',
			],
		});
		expect(r.ok && r.payload.userIdentifiers).toBeUndefined();
	});

	it('denied: the Identity Normalizer shows the same click-id-only user data, and why', () => {
		const record = {
			record_id: 'x',
			contact,
			click: { gclid: 'G1' },
			consent: { ad_user_data: 'denied' },
		};
		const identity = normalizeIdentity(record);
		expect(googleAdapter.userData(renderIdentity(identity, IDENTITY_PROFILES['google']), record)).toEqual({
			data: { gclid: 'G1' },
			matchKeys: ['gclid'],
			warnings: [
				'consent.ad_user_data is denied: email and phone not sent (click id only)',
			],
		});
	});

	it('denied without a click id: skipped, saying why', () => {
		const r = build({ record_id: 'x', contact, consent: { ad_user_data: 'no' } });
		expect(r).toMatchObject({
			ok: false,
			status: 'skipped',
			reason: expect.stringMatching(
				/^consent\.ad_user_data is denied and the lead has no Google click id/,
			),
		});
	});

	it('nothing Google can match: skipped, saying why', () => {
		const r = build({
			record_id: 'x',
			contact: { email: 'not-an-email', first_name: 'Ann', city: 'Paris' },
		});
		expect(r).toEqual({
			ok: false,
			status: 'skipped',
			reason:
				'nothing Google can match: no click id (gclid, gbraid or wbraid) and no valid email or phone',
			matchKeys: [],
			warnings: [],
		});
	});
});

describe("no consent signal, by region (Google's EU user consent policy)", () => {
	it.each([
		// [contact country, visitor country, click id?, expected: identifiers sent | click id only | skipped]
		['US', undefined, true, 'identifiers'],
		[undefined, undefined, true, 'identifiers'],
		['Germany', undefined, true, 'click id only'],
		['GB', undefined, true, 'click id only'],
		['CH', undefined, true, 'click id only'],
		['NO', undefined, true, 'click id only'],
		[undefined, 'FR', true, 'click id only'],
		['US', 'FR', true, 'identifiers'],
		['Germany', undefined, false, 'skipped'],
	] as const)('contact %s, visitor %s, click id %s → %s', (country, visitor, click, expected) => {
		const record: LeadRecord = {
			record_id: 'r-eea',
			contact: { email: 'lead.1@example.com', ...(country ? { country } : {}) },
			...(visitor ? { client: { country: visitor } } : {}),
			...(click ? { click: { gclid: GCLID } } : {}),
		};
		const r = build(record);
		if (expected === 'skipped') {
			expect(r).toMatchObject({
				ok: false,
				status: 'skipped',
				reason: expect.stringMatching(/^the lead is in the EEA, the UK or Switzerland, has no consent signal and no Google click id/),
			});
			return;
		}
		if (!r.ok) throw new Error(r.reason);
		// No consent field is invented either way: the lead said nothing.
		expect(r.payload.consent).toBeUndefined();
		if (expected === 'identifiers') {
			expect(r.payload.userIdentifiers).toEqual([{ hashedEmail: EMAIL_LEAD_1 }]);
		} else {
			expect(r.payload.userIdentifiers).toBeUndefined();
			expect(r.payload.gclid).toBe(GCLID);
			expect(r.warnings).toContain(
				"consent.ad_user_data: no consent signal for a lead in the EEA, the UK or Switzerland (Google's EU user consent policy): email and phone not sent (click id only)",
			);
		}
	});

	it('a granted signal sends an EEA lead with its identifiers and adUserData GRANTED', () => {
		const r = build({
			record_id: 'r-eea',
			contact: { email: 'lead.1@example.com', country: 'DE' },
			click: { gclid: GCLID },
			consent: { ad_user_data: 'granted' },
		});
		expect(r.ok && r.payload).toMatchObject({
			userIdentifiers: [{ hashedEmail: EMAIL_LEAD_1 }],
			consent: { adUserData: 'GRANTED' },
		});
	});
});

describe('partial leads never counted by the completed-lead action', () => {
	const lead: LeadRecord = { record_id: 'r-9', click: { gclid: GCLID } };

	it.each([
		// [event, partial-lead action set, expected conversionAction or the skip]
		['partial_lead', undefined, 'skipped'],
		['partial_lead', 'customers/1234567890/conversionActions/987654322', 'customers/1234567890/conversionActions/987654322'],
		['lead', undefined, ACTION],
		['lead', 'customers/1234567890/conversionActions/987654322', ACTION],
		['purchase', 'customers/1234567890/conversionActions/987654322', ACTION],
	])('%s with partial action %s → %s', (eventName, partialConversionAction, expected) => {
		const r = build(lead, eventName, { partialConversionAction });
		if (expected === 'skipped') {
			expect(r.ok).toBe(false);
			if (r.ok) return;
			expect(r.status).toBe('skipped');
			expect(r.reason).toContain('Google would count it as a conversion of the completed-lead action');
			return;
		}
		if (!r.ok) throw new Error(r.reason);
		expect(r.payload.conversionAction).toBe(expected);
	});
});

describe('value and currency', () => {
	it.each([
		['both', { amount: 99, currency: 'eur' }, { conversionValue: 99, currencyCode: 'EUR' }],
		[
			'zero is a value',
			{ amount: '0', currency: 'USD' },
			{ conversionValue: 0, currencyCode: 'USD' },
		],
		['amount without currency: never guessed', { amount: 10 }, {}],
		['currency without amount', { currency: 'USD' }, {}],
	])('%s', (_label, value, expected) => {
		const r = build({ record_id: 'x', contact: { email: 'a@example.com' }, value });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		const { conversionValue, currencyCode } = r.payload;
		const sent = Object.fromEntries(
			Object.entries({ conversionValue, currencyCode }).filter(([, v]) => v !== undefined),
		);
		expect(sent).toEqual(expected);
	});

	it('a purchase without value is sent (the action has a default value) with a warning', () => {
		const r = build({ record_id: 'x', contact: { email: 'a@example.com' } }, 'purchase');
		expect(r.ok).toBe(true);
		expect(r.warnings.join()).toMatch(/conversion action's default value/);
	});
});

describe("conversionDateTime: the account time zone at the event's own instant", () => {
	it.each([
		[1_796_000_000, 'America/New_York', '2026-11-29 19:53:20-05:00'],
		[1_782_907_200, 'America/New_York', '2026-07-01 08:00:00-04:00'],
		// DST starts: 01:59:59 EST, then 03:00:00 EDT one second later.
		[1_772_953_199, 'America/New_York', '2026-03-08 01:59:59-05:00'],
		[1_772_953_200, 'America/New_York', '2026-03-08 03:00:00-04:00'],
		// DST ends: the same wall time twice, an hour apart, told apart by the offset.
		[1_793_511_000, 'America/New_York', '2026-11-01 01:30:00-04:00'],
		[1_793_514_600, 'America/New_York', '2026-11-01 01:30:00-05:00'],
		[1_782_907_200, 'Europe/Berlin', '2026-07-01 14:00:00+02:00'],
		[1_796_126_400, 'Europe/Berlin', '2026-12-01 13:00:00+01:00'],
		[1_782_907_200, 'Asia/Kolkata', '2026-07-01 17:30:00+05:30'],
		// Lord Howe: a half-hour DST shift.
		[1_775_314_799, 'Australia/Lord_Howe', '2026-04-05 01:59:59+11:00'],
		[1_775_314_800, 'Australia/Lord_Howe', '2026-04-05 01:30:00+10:30'],
		[1_798_761_599, 'Pacific/Kiritimati', '2027-01-01 13:59:59+14:00'],
		[1_781_492_400, 'America/Sao_Paulo', '2026-06-15 00:00:00-03:00'],
		[1_767_225_600, 'UTC', '2026-01-01 00:00:00+00:00'],
	])('%i in %s → %s', (unixSeconds, timeZone, expected) => {
		expect(formatConversionDateTime(unixSeconds, timeZone)).toBe(expected);
	});

	it('knows IANA names and refuses others', () => {
		expect(isValidTimeZone('America/New_York')).toBe(true);
		expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
		expect(isValidTimeZone('')).toBe(false);
	});
});

describe('classifyGoogleAdsResponse (the RPC-level error map)', () => {
	const rpc = (
		status: number,
		name: string,
		errors: Array<Record<string, unknown>> = [],
		headers: Record<string, string> = {},
	) => ({
		status,
		headers,
		data: {
			error: {
				code: status,
				message: `${name} message`,
				status: name,
				...(errors.length
					? {
							details: [
								{
									'@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure',
									errors,
									requestId: 'req-1',
								},
							],
						}
					: {}),
			},
		},
	});
	const quota = (retryDelay?: string) => ({
		errorCode: { quotaError: 'RESOURCE_EXHAUSTED' },
		message: 'Too many requests. Retry in 24 seconds.',
		...(retryDelay
			? { details: { quotaErrorDetails: { rateScope: 'DEVELOPER', retryDelay } } }
			: {}),
	});

	it.each([
		['200 with results', { status: 200, headers: {}, data: { results: [{}], jobId: '1' } }, 'ok'],
		['401 UNAUTHENTICATED', rpc(401, 'UNAUTHENTICATED'), 'permanent'],
		[
			'401 DEVELOPER_TOKEN_INVALID',
			rpc(401, 'UNAUTHENTICATED', [
				{ errorCode: { authenticationError: 'DEVELOPER_TOKEN_INVALID' } },
			]),
			'permanent',
		],
		[
			'403 USER_PERMISSION_DENIED',
			rpc(403, 'PERMISSION_DENIED', [
				{ errorCode: { authorizationError: 'USER_PERMISSION_DENIED' } },
			]),
			'permanent',
		],
		[
			'400 TOO_MANY_CONVERSIONS_IN_REQUEST',
			rpc(400, 'INVALID_ARGUMENT', [
				{ errorCode: { conversionUploadError: 'TOO_MANY_CONVERSIONS_IN_REQUEST' } },
			]),
			'permanent',
		],
		[
			'400 PARTIAL_FAILURE_MODE_REQUIRED',
			rpc(400, 'INVALID_ARGUMENT', [
				{ errorCode: { partialFailureError: 'PARTIAL_FAILURE_MODE_REQUIRED' } },
			]),
			'permanent',
		],
		['429 RESOURCE_EXHAUSTED', rpc(429, 'RESOURCE_EXHAUSTED', [quota()]), 'throttle'],
		[
			'400 quotaError RESOURCE_TEMPORARILY_EXHAUSTED',
			rpc(400, 'INVALID_ARGUMENT', [
				{ errorCode: { quotaError: 'RESOURCE_TEMPORARILY_EXHAUSTED' } },
			]),
			'throttle',
		],
		[
			'500 INTERNAL',
			rpc(500, 'INTERNAL', [{ errorCode: { internalError: 'INTERNAL_ERROR' } }]),
			'retry',
		],
		['503 UNAVAILABLE', rpc(503, 'UNAVAILABLE'), 'retry'],
		['504 DEADLINE_EXCEEDED', rpc(504, 'DEADLINE_EXCEEDED'), 'retry'],
		[
			'409 ABORTED CONCURRENT_MODIFICATION',
			rpc(409, 'ABORTED', [{ errorCode: { databaseError: 'CONCURRENT_MODIFICATION' } }]),
			'retry',
		],
		[
			'400 CONCURRENT_MODIFICATION',
			rpc(400, 'INVALID_ARGUMENT', [{ errorCode: { databaseError: 'CONCURRENT_MODIFICATION' } }]),
			'retry',
		],
		['502 without a body', { status: 502, headers: {}, data: '<html>Bad Gateway</html>' }, 'retry'],
	])('%s → %s', (_label, response, kind) => {
		expect(classifyGoogleAdsResponse(response).kind).toBe(kind);
	});

	it("waits for Google's retryDelay when there is no Retry-After header", () => {
		expect(classifyGoogleAdsResponse(rpc(429, 'RESOURCE_EXHAUSTED', [quota('24s')]))).toMatchObject(
			{
				kind: 'throttle',
				retryAfterMs: 24_000,
			},
		);
		const withHeader = classifyGoogleAdsResponse(
			rpc(429, 'RESOURCE_EXHAUSTED', [quota('24s')], { 'retry-after': '3' }),
		);
		expect(withHeader).toEqual({ kind: 'throttle', reason: expect.any(String) });
	});

	it("quotes Google's own words, codes and request id", () => {
		const response = rpc(403, 'PERMISSION_DENIED', [
			{
				errorCode: { authorizationError: 'USER_PERMISSION_DENIED' },
				message: "User doesn't have permission to access customer.",
			},
		]);
		expect(describeGoogleRpcError(response.data.error, 403)).toBe(
			"Google Ads: User doesn't have permission to access customer. [PERMISSION_DENIED, authorizationError: USER_PERMISSION_DENIED, request_id req-1]",
		);
		expect(
			describeGoogleRpcError(
				{
					code: 401,
					message: 'Request had invalid authentication credentials.',
					status: 'UNAUTHENTICATED',
				},
				401,
			),
		).toBe('Google Ads: Request had invalid authentication credentials. [UNAUTHENTICATED]');
		expect(describeGoogleRpcError(undefined, 502)).toBe(
			'Google Ads answered HTTP 502 without an error body',
		);
	});

	it.each([
		['expired token (no details)', rpc(401, 'UNAUTHENTICATED'), true],
		[
			'OAUTH_TOKEN_EXPIRED',
			rpc(401, 'UNAUTHENTICATED', [{ errorCode: { authenticationError: 'OAUTH_TOKEN_EXPIRED' } }]),
			true,
		],
		[
			'DEVELOPER_TOKEN_INVALID',
			rpc(401, 'UNAUTHENTICATED', [
				{ errorCode: { authenticationError: 'DEVELOPER_TOKEN_INVALID' } },
			]),
			false,
		],
		['403', rpc(403, 'PERMISSION_DENIED'), false],
	])('a token refresh may help after a 401: %s → %s', (_label, response, expected) => {
		expect(isAccessTokenRejection(response)).toBe(expected);
	});
});

describe('per-row errors (partialFailureError)', () => {
	const failure = (
		errors: Array<{ code: string; index?: number; category?: string; field?: string }>,
	) => ({
		code: 3,
		message: 'Multiple errors in ‘details’.',
		details: [
			{
				'@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure',
				errors: errors.map((e) => ({
					errorCode: { [e.category ?? 'conversionUploadError']: e.code },
					message: `${e.code} message`,
					location: {
						fieldPathElements: [
							e.index === undefined
								? { fieldName: 'conversions' }
								: { fieldName: 'conversions', index: e.index },
							...(e.field ? [{ fieldName: e.field }] : []),
						],
					},
				})),
				requestId: 'req-9',
			},
		],
	});
	const ok = {
		conversionAction: ACTION,
		conversionDateTime: '2026-11-29 19:53:20-05:00',
		gclid: 'G',
	};

	it.each([
		['ORDER_ID_ALREADY_IN_USE', 'duplicate'],
		['CLICK_CONVERSION_ALREADY_EXISTS', 'duplicate'],
		['TOO_RECENT_EVENT', 'retry_later'],
		['TOO_RECENT_CONVERSION_ACTION', 'retry_later'],
		['CLICK_NOT_FOUND', 'sent_with_warning'],
		['UNPARSEABLE_GCLID', 'failed'],
		['EXPIRED_EVENT', 'failed'],
		['CONVERSION_PRECEDES_EVENT', 'failed'],
		['INVALID_USER_IDENTIFIER', 'failed'],
		['CUSTOMER_NOT_ACCEPTED_CUSTOMER_DATA_TERMS', 'failed'],
		['DUPLICATE_ORDER_ID', 'failed'],
	])('conversionUploadError %s → %s', (code, verdict) => {
		expect(classifyRowError({ errorCode: { conversionUploadError: code } })).toBe(verdict);
	});

	it.each([
		['internalError', 'INTERNAL_ERROR', 'failed_transient'],
		['databaseError', 'CONCURRENT_MODIFICATION', 'failed_transient'],
		['quotaError', 'RESOURCE_TEMPORARILY_EXHAUSTED', 'failed_transient'],
		['fieldError', 'REQUIRED', 'failed'],
	])('%s %s → %s', (category, code, verdict) => {
		expect(classifyRowError({ errorCode: { [category]: code } })).toBe(verdict);
	});

	it('maps each error to its row by index; only the failed rows fail', () => {
		const outcomes = readUploadOutcomes(
			{
				results: [ok, {}, {}, {}, ok, {}, {}],
				partialFailureError: failure([
					{ code: 'ORDER_ID_ALREADY_IN_USE', index: 1, field: 'order_id' },
					{ code: 'TOO_RECENT_EVENT', index: 2 },
					{ code: 'UNPARSEABLE_GCLID', index: 3, field: 'gclid' },
					{ code: 'CLICK_NOT_FOUND', index: 5 },
					{ code: 'INTERNAL_ERROR', category: 'internalError', index: 6 },
				]),
				jobId: '77',
			},
			7,
		);
		expect(outcomes.map((o) => o.status)).toEqual([
			'sent',
			'duplicate',
			'skipped',
			'failed',
			'sent',
			'sent',
			'failed',
		]);
		expect(outcomes[0]).toEqual({ status: 'sent', response: { job_id: '77', result: ok } });
		expect(outcomes[1]).toMatchObject({
			warning: expect.stringMatching(
				/^Google already has this conversion .*ORDER_ID_ALREADY_IN_USE message \[conversionUploadError: ORDER_ID_ALREADY_IN_USE, request_id req-9\]$/,
			),
		});
		expect(outcomes[2]).toMatchObject({
			retryable: true,
			reason: expect.stringMatching(
				/^Google Ads: TOO_RECENT_EVENT message \[conversionUploadError: TOO_RECENT_EVENT, request_id req-9\]: .*retry after 6 hours/,
			),
		});
		expect(outcomes[3]).toEqual({
			status: 'failed',
			error:
				'Google Ads: UNPARSEABLE_GCLID message [conversionUploadError: UNPARSEABLE_GCLID, request_id req-9]',
			retryable: false,
			response: {
				job_id: '77',
				errors: [
					{
						code: { category: 'conversionUploadError', code: 'UNPARSEABLE_GCLID' },
						message: 'UNPARSEABLE_GCLID message',
					},
				],
			},
		});
		expect(outcomes[5]).toMatchObject({
			warning: expect.stringMatching(
				/CLICK_NOT_FOUND.*expected for leads that did not come from a Google Ads click/,
			),
		});
		expect(outcomes[6]).toMatchObject({ status: 'failed', retryable: true });
	});

	it('reads a "conversions" element without an index as row 0 (proto3 JSON drops zeros)', () => {
		const outcomes = readUploadOutcomes(
			{ results: [{}, ok], partialFailureError: failure([{ code: 'UNPARSEABLE_GCLID' }]) },
			2,
		);
		expect(outcomes.map((o) => o.status)).toEqual(['failed', 'sent']);
	});

	it('fails, rather than guesses, the rows an unattributed error may concern', () => {
		const outcomes = readUploadOutcomes(
			{
				results: [ok, {}],
				partialFailureError: {
					code: 3,
					details: [
						{
							errors: [
								{ errorCode: { conversionUploadError: 'INVALID_JOB_ID' }, message: 'bad job' },
							],
						},
					],
				},
			},
			2,
		);
		expect(outcomes.map((o) => o.status)).toEqual(['sent', 'failed']);
	});

	it('a duplicate verdict wins over other errors of the same row', () => {
		const [outcome] = readUploadOutcomes(
			{
				results: [{}],
				partialFailureError: failure([
					{ code: 'CLICK_NOT_FOUND', index: 0 },
					{ code: 'ORDER_ID_ALREADY_IN_USE', index: 0 },
				]),
			},
			1,
		);
		expect(outcome.status).toBe('duplicate');
	});

	it('a row with neither a result nor an error fails retryably (its order ID makes a resend safe)', () => {
		expect(readUploadOutcomes({ results: [] }, 1)[0]).toMatchObject({
			status: 'failed',
			retryable: true,
		});
	});

	it('validate only: valid rows are skipped (not recorded as sent), invalid rows fail', () => {
		const outcomes = readUploadOutcomes(
			{
				partialFailureError: failure([
					{ code: 'UNPARSEABLE_GCLID', index: 1 },
					{ code: 'CLICK_NOT_FOUND', index: 2 },
				]),
				jobId: '5',
			},
			3,
			true,
		);
		expect(outcomes.map((o) => o.status)).toEqual(['skipped', 'failed', 'skipped']);
		expect(outcomes[0]).toMatchObject({
			reason: expect.stringMatching(/^validate only: .*not marked as sent/),
			retryable: false,
		});
	});
});

describe('ids, URLs and headers', () => {
	it.each([
		['123-456-7890', '1234567890'],
		[' 1234567890 ', '1234567890'],
		[1234567890, '1234567890'],
		['123 456 7890', '1234567890'],
		['abc', null],
		['', null],
		[undefined, null],
	])('Customer ID %j → %j', (raw, expected) => {
		expect(normalizeCustomerId(raw)).toBe(expected);
	});

	it.each([
		['987654321', ACTION],
		[ACTION, ACTION],
		['customers/1/conversionActions/x', null],
		['AW-123/abc', null],
	])('Conversion Action %j → %j', (raw, expected) => {
		expect(conversionActionResourceName('1234567890', raw)).toBe(expected);
	});

	it('builds URLs from base URL and version', () => {
		expect(googleUploadUrl(config({ baseUrl: 'http://127.0.0.1:9/', apiVersion: 'v25' }))).toBe(
			'http://127.0.0.1:9/v25/customers/1234567890:uploadClickConversions',
		);
	});

	it('sends the developer token and login-customer-id; a dry run shows neither secret', () => {
		expect(googleAdsHeaders(config({ loginCustomerId: '1112223333' }))).toEqual({
			'developer-token': 'dev-token-123456',
			'login-customer-id': '1112223333',
		});
		const preview = googlePreviewRequest([], config({ loginCustomerId: '1112223333' }));
		expect(preview).toEqual({
			method: 'POST',
			url: 'https://googleads.googleapis.com/v26/customers/1234567890:uploadClickConversions',
			headers: { 'login-customer-id': '1112223333' },
			body: { conversions: [], partialFailure: true },
		});
		expect(JSON.stringify(preview)).not.toContain('dev-token-123456');
	});

	it('reads the conversion-action search rows', () => {
		expect(
			readConversionActions({
				results: [
					{ conversionAction: { resourceName: ACTION, name: 'Lead (offline)', id: '987654321' } },
					{ conversionAction: { resourceName: 'customers/1234567890/conversionActions/5' } },
					{ somethingElse: {} },
				],
				nextPageToken: 'next',
			}),
		).toEqual({
			actions: [
				{ resourceName: ACTION, name: 'Lead (offline)', id: '987654321' },
				{ resourceName: 'customers/1234567890/conversionActions/5', name: '5', id: '5' },
			],
			nextPageToken: 'next',
		});
	});

	it('has its event-name row: partial leads never share a label with completed leads', () => {
		expect(googleAdapter.eventNameByState).toEqual({
			partial: 'partial_lead',
			lead: 'lead',
			contact: 'contact',
			schedule: 'schedule',
			registration: 'registration',
			purchase: 'purchase',
		});
		expect(googleAdapter.maxBatchSize).toBe(2000);
		expect(googleAdapter.eventTimeWindow).toEqual({ platform: 'Google', seconds: 90 * 86_400, basis: 'unconfirmed' });
		expect(googleAdapter.destinationId(config())).toBe(ACTION);
	});
});
