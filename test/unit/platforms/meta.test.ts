import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { readEventContext } from '../../../shared/events/context';
import { createHash } from 'node:crypto';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import {
	appSecretProof,
	buildMetaEvent,
	classifyMetaResponse,
	describeGraphError,
	metaEventsUrl,
	type MetaConfig,
} from '../../../shared/platforms/meta';
import type { LeadRecord } from '../../../shared/types';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)';

const config = (overrides: Partial<MetaConfig> = {}): MetaConfig => ({
	pixelId: '42',
	accessToken: 'token-123456',
	actionSource: 'auto',
	limitedDataUse: 'auto',
	...overrides,
});

function build(record: LeadRecord, eventName = 'Lead', overrides: Partial<MetaConfig> = {}) {
	const identity = normalizeIdentity(record, { eventTimeMs: 1_796_000_000_000 });
	return buildMetaEvent(
		{ record, eventName, eventId: 'eid', eventTime: 1_796_000_000, identity, user: renderIdentity(identity, IDENTITY_PROFILES['meta']), event: readEventContext(record, { identity }) },
		config(overrides),
	);
}

describe('buildMetaEvent', () => {
	it.each<[string, LeadRecord['value'], string]>([
		['no value', undefined, 'Purchase without value.amount and value.currency: Meta requires value.amount and value.currency (never guessed)'],
		[
			'an amount it cannot read',
			{ amount: 'EUR 1.200,50', currency: 'EUR' },
			'Purchase with an unreadable value.amount (text shaped "AAA 9.999,99"): Meta requires value.amount and value.currency (never guessed)',
		],
	])('a Purchase with %s fails and says what the value was', (_case, value, reason) => {
		const record: LeadRecord = { record_id: 'r1', state: 'purchase', contact: { email: 'a@example.com' } };
		if (value !== undefined) record.value = value;
		expect(build(record, 'Purchase')).toMatchObject({ ok: false, status: 'failed', reason });
	});

	it('renders the documented user_data keys, hashed and clear as Meta specifies', () => {
		const r = build({
			contact: {
				email: 'John_Smith@gmail.com',
				phone: '(650)555-1212',
				first_name: 'Valéry',
				last_name: 'Smith-Jones',
				date_of_birth: '2/16/1997',
				gender: 'Female',
				city: 'New York',
				region: 'New York',
				postal_code: '10001-2345',
				country: 'United States',
				external_id: ' CRM-77 ',
			},
			client: { ip: '2001:db8::1', user_agent: UA },
			click: { fbc: 'fb.1.1554763741205.AbCdEf', fbp: 'fb.1.1596403881668.1116446470' },
		});
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.payload.user_data).toEqual({
			em: '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
			ph: 'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176',
			fn: '08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c',
			ln: sha('smithjones'),
			db: '01acdbf6ec7b4f478a225f1a246e5d6767eeab1a7ffa17f025265b5b94f40f0c',
			ge: sha('f'),
			ct: sha('newyork'),
			st: sha('ny'),
			zp: sha('10001'),
			country: '79adb2a2fce5c6ba215fe5f27f532d4e7edbac4b6a5e09e1ef3a08084a904621',
			external_id: sha('crm-77'),
			client_ip_address: '2001:db8::1',
			client_user_agent: UA,
			fbc: 'fb.1.1554763741205.AbCdEf',
			fbp: 'fb.1.1596403881668.1116446470',
		});
		expect(r.matchKeys).toEqual(Object.keys(r.payload.user_data));
	});

	it('sends several emails as an array', () => {
		const r = build({ contact: { email: ['a@example.com', 'A@Example.com ', 'b@example.com'] } });
		expect(r.ok && r.payload.user_data.em).toEqual([sha('a@example.com'), sha('b@example.com')]);
	});

	it.each([
		['page url + user agent', { source: { page_url: 'https://x.io/p' }, client: { user_agent: UA } }, 'website'],
		['user agent only', { client: { user_agent: UA } }, 'system_generated'],
		['page url only', { source: { page_url: 'https://x.io/p' } }, 'system_generated'],
		['not a URL', { source: { page_url: 'x.io/p' }, client: { user_agent: UA } }, 'system_generated'],
	])('auto action source: %s → %s', (_label, extra, expected) => {
		const r = build({ contact: { email: 'a@example.com' }, ...extra } as LeadRecord);
		expect(r.ok && r.payload.action_source).toBe(expected);
	});

	it.each([
		['only city + country', { city: 'Paris', country: 'FR' }, /only ct, country/],
		['only first name + gender', { first_name: 'Ann', gender: 'f' }, /only fn, ge/],
		['nothing usable', { email: 'not-an-email' }, /no customer information/],
	])('fails a lead Meta would reject for thin identity: %s', (_label, contact, message) => {
		const r = build({ contact } as LeadRecord);
		expect(r).toMatchObject({ ok: false, status: 'failed', reason: expect.stringMatching(message) });
	});

	it.each([
		['California contact, auto', { region: 'California', country: 'US' }, 'auto', { data_processing_options: ['LDU'], data_processing_options_country: 1, data_processing_options_state: 1000 }],
		['California visitor geo, auto', { country: 'US' }, 'auto', { data_processing_options: ['LDU'], data_processing_options_country: 1, data_processing_options_state: 1000 }],
		['New York, auto', { region: 'NY', country: 'US' }, 'auto', {}],
		['German lead, always', { country: 'DE' }, 'always', { data_processing_options: ['LDU'], data_processing_options_country: 0, data_processing_options_state: 0 }],
		['California, never', { region: 'CA', country: 'US' }, 'never', { data_processing_options: [] }],
	] as const)('Limited Data Use: %s', (label, contact, mode, expected) => {
		const client = label.includes('visitor') ? { region: 'CA', country: 'US' } : undefined;
		const r = build({ contact: { email: 'a@example.com', ...contact }, client }, 'Lead', { limitedDataUse: mode });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		const ldu = Object.fromEntries(
			Object.entries(r.payload).filter(([k]) => k.startsWith('data_processing')),
		);
		expect(ldu).toEqual(expected);
	});

	it('flags LDU from the lead\'s own consent, letting Meta geolocate outside California', () => {
		const r = build({ contact: { email: 'a@example.com', country: 'US', region: 'TX' }, consent: { limited_data_use: true } });
		expect(r.ok && [r.payload.data_processing_options, r.payload.data_processing_options_state]).toEqual([['LDU'], 0]);
	});
});

describe('classifyMetaResponse (the error map)', () => {
	const res = (status: number, error?: Record<string, unknown>) => ({
		status,
		headers: {},
		data: error ? { error } : { events_received: 1 },
	});
	it.each([
		[res(200), 'ok'],
		[res(500, { code: 2, message: 'Service temporarily unavailable' }), 'retry'],
		[res(400, { code: 1, message: 'An unknown error occurred' }), 'retry'],
		[res(400, { code: 100, message: 'x', is_transient: true }), 'retry'],
		[res(429), 'throttle'],
		[res(400, { code: 17, error_subcode: 2446079 }), 'throttle'],
		[res(400, { code: 613, error_subcode: 1487742 }), 'throttle'],
		[res(400, { code: 4 }), 'throttle'],
		[res(400, { code: 341 }), 'throttle'],
		[res(400, { code: 100, error_subcode: 2804019 }), 'permanent'],
		[res(401, { code: 190, type: 'OAuthException' }), 'permanent'],
		[res(403, { code: 10 }), 'permanent'],
		[res(403, { code: 200 }), 'permanent'],
		[res(400, { code: 368 }), 'permanent'],
	])('%j → %s', (response, kind) => {
		expect(classifyMetaResponse(response).kind).toBe(kind);
	});

	it('quotes Meta\'s own words', () => {
		expect(
			describeGraphError(
				{ message: 'Invalid parameter', code: 100, error_subcode: 2804019, error_user_title: 'Bad hash', error_user_msg: 'em is not hashed', fbtrace_id: 'AbC' },
				400,
			),
		).toBe('Meta: Invalid parameter: Bad hash: em is not hashed [code 100, subcode 2804019, fbtrace_id AbC]');
	});
});

describe('request details', () => {
	it('builds the events URL from base URL, version and dataset', () => {
		expect(metaEventsUrl(config())).toBe('https://graph.facebook.com/v26.0/42/events');
		expect(metaEventsUrl(config({ baseUrl: 'http://127.0.0.1:9/', apiVersion: 'v25.0' }))).toBe('http://127.0.0.1:9/v25.0/42/events');
	});

	it('computes appsecret_proof as HMAC-SHA256(app secret, token) in hex', () => {
		// Independent value: python3 -c "import hmac,hashlib;print(hmac.new(b'secret',b'token-123456',hashlib.sha256).hexdigest())"
		expect(appSecretProof('token-123456', 'secret')).toBe(
			'9ce7394f35a6d3ede7f37162df4ab3f8b5538065c1e6b5e70fc71121a07c7e07',
		);
	});
});
