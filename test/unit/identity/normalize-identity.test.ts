import { hashSha256, normalizeIdentity, type NormalizedIdentity } from '../../../shared/identity';
import type { LeadRecord } from '../../../shared/types';

const clock = () => Date.UTC(2026, 10, 30);

describe('normalizeIdentity: canonical, platform-neutral values', () => {
	it('normalizes a full record', () => {
		const record: LeadRecord = {
			record_id: 'sub_1',
			occurred_at: '2026-11-29T10:00:00Z',
			source: { page_url: 'https://example.com/lp?fbclid=IwAR_Click1' },
			contact: {
				email: ' John.Smith+ads@Gmail.com ',
				phone: '(650) 555-1212',
				first_name: 'Valéry',
				last_name: "O'Brien",
				city: 'St. Louis',
				region: 'Missouri',
				postal_code: '63101-1234',
				country: 'United States',
				gender: 'Female',
				date_of_birth: '2/16/1997',
				external_id: ' CRM 42 ',
			},
			click: {
				fbp: 'fb.1.1596403881668.1116446470',
				gclid: 'Cj0KCQiA',
				ttclid: 'E.C.P.AbC',
				msclkid: '_uetAbC123',
				clicked_at: '2026-11-28T09:00:00.000Z',
			},
			client: { ip: '::ffff:203.0.113.7', user_agent: 'Mozilla/5.0', country: 'DE' },
		};
		expect(normalizeIdentity(record, { clock })).toEqual<NormalizedIdentity>({
			values: {
				country: ['us'],
				email: ['john.smith+ads@gmail.com'],
				phone: ['+16505551212'],
				first_name: ['valéry'],
				last_name: ['obrien'],
				city: ['stlouis'],
				region: ['mo'],
				postal_code: ['63101'],
				gender: ['f'],
				date_of_birth: ['19970216'],
				external_id: ['crm42'],
				ip: ['203.0.113.7'],
				user_agent: ['Mozilla/5.0'],
				fbc: [`fb.1.${Date.UTC(2026, 10, 28, 9)}.IwAR_Click1`],
				fbp: ['fb.1.1596403881668.1116446470'],
				gclid: ['Cj0KCQiA'],
				ttclid: ['E.C.P.AbC'],
				msclkid: ['AbC123'],
			},
			hashedInput: {},
			warnings: [],
		});
	});

	it('keeps every valid value of a multi-value field, de-duplicated after normalization', () => {
		const identity = normalizeIdentity({
			contact: {
				email: ['A@Example.com', 'a@example.com ', 'b@example.com', 'broken@', ''],
				phone: ['+1 650 555 1212', '16505551212', '+44 844 412 4653'],
			},
		});
		expect(identity.values.email).toEqual(['a@example.com', 'b@example.com']);
		expect(identity.values.phone).toEqual(['+16505551212', '+448444124653']);
		expect(identity.warnings).toEqual(['email: not a valid address (missing domain)']);
	});

	it('omits empty and whitespace-only values without warnings', () => {
		const identity = normalizeIdentity({
			contact: { email: '', phone: '   ', first_name: ['', ' '], country: '' },
			click: { fbc: '', fbp: ' ' },
			client: { ip: '' },
		});
		expect(identity).toEqual({ values: {}, hashedInput: {}, warnings: [] });
	});

	it('passes already-hashed values through lowercased and marks them', () => {
		const emailHash = hashSha256('john@example.com');
		const identity = normalizeIdentity({
			contact: { email: emailHash.toUpperCase(), first_name: ['Mary', hashSha256('mary')] },
		});
		expect(identity.values.email).toEqual([emailHash]);
		expect(identity.values.first_name).toEqual(['mary', hashSha256('mary')]);
		expect(identity.hashedInput).toEqual({ email: true, first_name: true });
	});

	it('reports dropped values as warnings without the raw personal value', () => {
		const identity = normalizeIdentity(
			{
				contact: {
					email: 'john.smith@localhost',
					phone: '555-0000',
					country: 'US',
					date_of_birth: '02/16/97',
					gender: { value: 'f' },
				},
				click: { fbp: 'garbage' },
			},
			{ clock },
		);
		expect(identity.warnings).toEqual([
			'email: not a valid address (missing top-level domain)',
			'phone: not a valid number for US',
			'gender: ignored a value that is not text (object)',
			'date_of_birth: two-digit year',
			'fbp: not a well-formed fb.<index>.<ms>.<random> value',
		]);
		expect(identity.warnings.join(' ')).not.toMatch(/john|555|97/);
	});
});

describe('normalizeIdentity: country fallbacks', () => {
	test.each<[string, LeadRecord, string | undefined, string | undefined]>([
		[
			'contact country',
			{ contact: { phone: '020 7946 0958', country: 'UK' } },
			'US',
			'+442079460958',
		],
		[
			'visitor country',
			{ contact: { phone: '020 7946 0958' }, client: { country: 'gb' } },
			'US',
			'+442079460958',
		],
		['default country', { contact: { phone: '(650) 555-1212' } }, 'US', '+16505551212'],
		[
			'default country as a name',
			{ contact: { phone: '(650) 555-1212' } },
			'United States',
			'+16505551212',
		],
		[
			'contact over visitor',
			{ contact: { phone: '(650) 555-1212', country: 'us' }, client: { country: 'GB' } },
			undefined,
			'+16505551212',
		],
	])('phone uses the %s', (_name, record, defaultCountry, expected) => {
		expect(normalizeIdentity(record, { defaultCountry }).values.phone).toEqual([expected]);
	});

	it('names the country in the warning for an invalid number', () => {
		const identity = normalizeIdentity({
			contact: { phone: '12345' },
			client: { country: 'Germany' },
		});
		expect(identity.warnings).toEqual(['phone: not a valid number for DE']);
	});

	it('uses the visitor country as the identity country when the lead has none', () => {
		expect(normalizeIdentity({ client: { country: 'Canada' } }).values.country).toEqual(['ca']);
		expect(
			normalizeIdentity({ contact: { country: 'fr' }, client: { country: 'ca' } }).values.country,
		).toEqual(['fr']);
	});

	it('warns about an unknown contact country and falls back to the visitor country', () => {
		const identity = normalizeIdentity({
			contact: { country: 'Atlantis' },
			client: { country: 'US' },
		});
		expect(identity.values.country).toEqual(['us']);
		expect(identity.warnings).toEqual(['country: not a recognised country name or code']);
	});

	it('warns when the default country is unknown', () => {
		const identity = normalizeIdentity(
			{ contact: { phone: '650 555 1212' } },
			{ defaultCountry: 'Narnia' },
		);
		expect(identity.warnings).toEqual([
			'phone: the default country is not a recognised country',
			'phone: not a valid number, and no country to read it as a national number',
		]);
	});

	it('reads region and postal code with the contact country only', () => {
		const identity = normalizeIdentity({
			contact: { region: 'Ontario', postal_code: '941051234' },
			client: { country: 'US' },
		});
		expect(identity.values.region).toEqual(['on']);
		expect(identity.values.postal_code).toEqual(['941051234']);
	});
});

describe('normalizeIdentity: fbc', () => {
	it('builds fbc from click.fbclid with the event time when the click time is unknown', () => {
		const identity = normalizeIdentity(
			{ click: { fbclid: 'AbC' } },
			{ eventTimeMs: 1_710_000_000_000, clock },
		);
		expect(identity.values.fbc).toEqual(['fb.1.1710000000000.AbC']);
	});

	it('falls back to occurred_at, then the clock', () => {
		expect(
			normalizeIdentity(
				{ occurred_at: '2024-03-09T16:00:00Z', click: { fbclid: 'AbC' } },
				{ clock },
			).values.fbc,
		).toEqual([`fb.1.${Date.UTC(2024, 2, 9, 16)}.AbC`]);
		expect(normalizeIdentity({ click: { fbclid: 'AbC' } }, { clock }).values.fbc).toEqual([
			`fb.1.${clock()}.AbC`,
		]);
	});

	it('keeps a stored fbc for the same click and replaces it for a newer one', () => {
		const stored = 'fb.1.1554763741205.AbC';
		expect(
			normalizeIdentity({ click: { fbc: stored, fbclid: 'AbC' } }, { clock }).values.fbc,
		).toEqual([stored]);
		expect(
			normalizeIdentity(
				{ click: { fbc: stored }, source: { page_url: 'https://x.test/?fbclid=XyZ' } },
				{ clock },
			).values.fbc,
		).toEqual([`fb.1.${clock()}.XyZ`]);
	});
});

describe('normalizeIdentity: tolerates malformed records', () => {
	test.each<[string, unknown]>([
		['empty record', {}],
		['sections that are not objects', { contact: 'x', click: [1, 2], client: null, source: 5 }],
	])('%s', (_name, record) => {
		expect(normalizeIdentity(record as LeadRecord)).toEqual({
			values: {},
			hashedInput: {},
			warnings: [],
		});
	});
});

describe('click ids from the landing URL', () => {
	it('reads gclid, ttclid, msclkid, gbraid and epik from source.page_url when the record lacks them', () => {
		const identity = normalizeIdentity({
			source: { page_url: 'https://example.com/p?gclid=Cj0_url&ttclid=E.C.url&msclkid=ms_url&gbraid=gb_url&epik=ep_url&utm_source=x' },
			click: { gclid: 'Cj0_record' },
		});
		expect(identity.values).toMatchObject({
			gclid: ['Cj0_record'],
			ttclid: ['E.C.url'],
			msclkid: ['ms_url'],
			gbraid: ['gb_url'],
			epik: ['ep_url'],
		});
	});
});
