import { IDENTITY_PROFILES } from '../../../shared/platforms';
import {
	hashSha256,
	normalizeIdentity,
	renderIdentity,
	type IdentityField,
} from '../../../shared/identity';
import type { LeadRecord, Platform } from '../../../shared/types';
import { PLATFORMS } from '../../../shared/types';

const LEAD: LeadRecord = {
	contact: {
		email: 'John.Smith@gmail.com',
		phone: '(650) 555-1212',
		first_name: 'Mary',
		last_name: 'Smith',
		city: 'New York',
		region: 'New York',
		postal_code: '10001-0001',
		country: 'USA',
		gender: 'female',
		date_of_birth: '1997-02-16',
		external_id: 'CRM-42',
	},
	click: {
		fbc: 'fb.1.1554763741205.AbC',
		fbp: 'fb.1.1596403881668.1116446470',
		gclid: 'Cj0KCQiA',
		gbraid: 'GbR',
		wbraid: 'WbR',
		ttclid: 'TtC',
		ttp: 'TtP',
		msclkid: 'MsC',
		epik: 'EpK',
	},
	client: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0' },
};

const identity = normalizeIdentity(LEAD);
const h = hashSha256;

describe('renderIdentity: fields, hashing and formats per platform', () => {
	test.each<[Platform, Partial<Record<IdentityField, string[]>>]>([
		[
			'meta',
			{
				email: [h('john.smith@gmail.com')],
				phone: [h('16505551212')],
				first_name: [h('mary')],
				last_name: [h('smith')],
				date_of_birth: [h('19970216')],
				gender: [h('f')],
				city: [h('newyork')],
				region: [h('ny')],
				postal_code: [h('10001')],
				country: [h('us')],
				external_id: [h('crm-42')],
				ip: ['203.0.113.7'],
				user_agent: ['Mozilla/5.0'],
				fbc: ['fb.1.1554763741205.AbC'],
				fbp: ['fb.1.1596403881668.1116446470'],
			},
		],
		[
			'pinterest',
			{
				email: [h('john.smith@gmail.com')],
				phone: [h('16505551212')],
				first_name: [h('mary')],
				last_name: [h('smith')],
				date_of_birth: [h('19970216')],
				gender: [h('f')],
				city: [h('newyork')],
				region: [h('ny')],
				postal_code: [h('10001')],
				country: [h('us')],
				external_id: [h('crm-42')],
				ip: ['203.0.113.7'],
				user_agent: ['Mozilla/5.0'],
				epik: ['EpK'],
			},
		],
		[
			'tiktok',
			{
				email: [h('john.smith@gmail.com')],
				phone: [h('+16505551212')],
				external_id: [h('crm-42')],
				first_name: [h('mary')],
				last_name: [h('smith')],
				postal_code: [h('10001')],
				city: ['newyork'],
				region: ['ny'],
				country: ['us'],
				ttclid: ['TtC'],
				ttp: ['TtP'],
				ip: ['203.0.113.7'],
				user_agent: ['Mozilla/5.0'],
			},
		],
		[
			'google',
			{
				email: [h('johnsmith@gmail.com')],
				phone: [h('+16505551212')],
				gclid: ['Cj0KCQiA'],
				gbraid: ['GbR'],
				wbraid: ['WbR'],
			},
		],
		[
			'microsoft',
			{
				email: [h('john.smith@gmail.com')],
				phone: [h('+16505551212')],
				external_id: ['crm-42'],
				msclkid: ['MsC'],
				ip: ['203.0.113.7'],
				user_agent: ['Mozilla/5.0'],
			},
		],
	])('%s', (platform, expected) => {
		const rendered = renderIdentity(identity, IDENTITY_PROFILES[platform]);
		expect(rendered.values).toEqual(expected);
		expect(rendered.matchKeys).toEqual(Object.keys(expected));
		expect(rendered.warnings).toEqual([]);
	});
});

describe('renderIdentity: already-hashed inputs', () => {
	const emailHash = h('someone@example.com');
	const hashedIdentity = normalizeIdentity({
		contact: {
			email: emailHash.toUpperCase(),
			phone: h('16505551212'),
			city: h('newyork'),
			external_id: h('crm-42'),
		},
	});

	test.each<[Platform]>(PLATFORMS.map((platform) => [platform]))(
		'%s never hashes twice',
		(platform) => {
			const rendered = renderIdentity(hashedIdentity, IDENTITY_PROFILES[platform]);
			expect(rendered.values.email).toEqual([emailHash]);
			expect(rendered.values.phone).toEqual([h('16505551212')]);
		},
	);

	it('sends a hashed external id as it is where the id goes in clear (Microsoft)', () => {
		expect(renderIdentity(hashedIdentity, IDENTITY_PROFILES['microsoft']).values.external_id).toEqual([h('crm-42')]);
	});

	it('drops a hashed city where the platform wants it in clear (TikTok), with a warning', () => {
		const rendered = renderIdentity(hashedIdentity, IDENTITY_PROFILES['tiktok']);
		expect(rendered.values.city).toBeUndefined();
		expect(rendered.matchKeys).not.toContain('city');
		expect(rendered.warnings).toEqual([
			'city: arrived hashed, but tiktok takes it in clear; omitted',
		]);
	});
});

describe('renderIdentity: gender n', () => {
	const nonBinary = normalizeIdentity({ contact: { gender: 'non-binary' } });

	it('is sent (hashed) to Pinterest', () => {
		expect(renderIdentity(nonBinary, IDENTITY_PROFILES['pinterest']).values.gender).toEqual([
			'1b16b1df538ba12dc3f97edbb85caa7050d46c148134290feba80f8236c83db9',
		]);
	});

	it('is dropped for Meta with a warning', () => {
		const rendered = renderIdentity(nonBinary, IDENTITY_PROFILES['meta']);
		expect(rendered.values.gender).toBeUndefined();
		expect(rendered.warnings).toEqual(['gender: meta accepts only f or m; omitted']);
	});
});

describe('renderIdentity: Google de-duplicates gmail addresses that differ only by dots', () => {
	it('sends one hash', () => {
		const gmail = normalizeIdentity({ contact: { email: ['j.doe@gmail.com', 'jdoe@gmail.com'] } });
		expect(renderIdentity(gmail, IDENTITY_PROFILES['google']).values.email).toEqual([h('jdoe@gmail.com')]);
		expect(renderIdentity(gmail, IDENTITY_PROFILES['meta']).values.email).toHaveLength(2);
	});
});

describe('IDENTITY_PROFILES', () => {
	test.each<[Platform, 'e164' | 'digits']>([
		['meta', 'digits'],
		['pinterest', 'digits'],
		['tiktok', 'e164'],
		['google', 'e164'],
		['microsoft', 'e164'],
	])('%s phone format is %s', (platform, format) => {
		expect(IDENTITY_PROFILES[platform].phone).toBe(format);
	});

	it('never sends click ids, cookies, IP or user agent hashed', () => {
		const clearOnly: IdentityField[] = [
			'ip',
			'user_agent',
			'fbc',
			'fbp',
			'gclid',
			'gbraid',
			'wbraid',
			'ttclid',
			'ttp',
			'msclkid',
			'epik',
		];
		for (const platform of PLATFORMS) {
			for (const field of clearOnly)
				expect(IDENTITY_PROFILES[platform].fields[field]?.hashed ?? false).toBe(false);
		}
	});
});
