/**
 * Test vectors from the platforms' documentation (docs/platforms.md §8, docs/normalization.md):
 * input → normalized → SHA-256, through the same record-level path a sender uses.
 */
import { IDENTITY_PROFILES } from '../../../shared/platforms';
import {
	hashSha256,
	normalizeIdentity,
	renderIdentity,
	type IdentityField,
} from '../../../shared/identity';
import type { LeadContact, Platform } from '../../../shared/types';

function rendered(platform: Platform, contact: LeadContact, defaultCountry?: string) {
	return renderIdentity(normalizeIdentity({ contact }, { defaultCountry }), IDENTITY_PROFILES[platform]).values;
}

describe('Meta (customer-information-parameters)', () => {
	test.each<[IdentityField, LeadContact, string, string]>([
		[
			'email',
			{ email: 'John_Smith@gmail.com' },
			'john_smith@gmail.com',
			'62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
		],
		[
			'phone',
			{ phone: '(650)555-1212', country: 'US' },
			'16505551212',
			'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176',
		],
		[
			'first_name',
			{ first_name: 'Mary' },
			'mary',
			'6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec',
		],
		[
			'first_name',
			{ first_name: '정' },
			'정',
			'8fa8cd9c440be61d0151429310034083132b35975c4bea67fdd74158eb51db14',
		],
		[
			'first_name',
			{ first_name: 'Valéry' },
			'valéry',
			'08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c',
		],
		[
			'date_of_birth',
			{ date_of_birth: '2/16/1997' },
			'19970216',
			'01acdbf6ec7b4f478a225f1a246e5d6767eeab1a7ffa17f025265b5b94f40f0c',
		],
		[
			'country',
			{ country: 'United States' },
			'us',
			'79adb2a2fce5c6ba215fe5f27f532d4e7edbac4b6a5e09e1ef3a08084a904621',
		],
		['last_name', { last_name: '  Eg  ' }, 'eg', hashSha256('eg')],
	])('%s %j → %j → %s', (field, contact, normalized, digest) => {
		expect(hashSha256(normalized)).toBe(digest);
		expect(rendered('meta', contact)[field]).toEqual([digest]);
	});

	test.each<[IdentityField, LeadContact, string]>([
		['postal_code', { postal_code: 'M1 1AE', country: 'GB' }, 'm11ae'],
		['postal_code', { postal_code: '94035-1234', country: 'US' }, '94035'],
		['city', { city: 'New York' }, 'newyork'],
		['region', { region: 'California', country: 'US' }, 'ca'],
	])('%s %j → %j (hashed)', (field, contact, normalized) => {
		expect(rendered('meta', contact)[field]).toEqual([hashSha256(normalized)]);
	});

	it("an email like '1234' is omitted, not hashed", () => {
		expect(rendered('meta', { email: '1234' }).email).toBeUndefined();
	});
});

describe('Pinterest (Meta rules by derivation; gender n)', () => {
	it('hashes em and ph like Meta and accepts n', () => {
		const values = rendered(
			'pinterest',
			{ email: 'John_Smith@gmail.com', phone: '(650)555-1212', gender: 'n' },
			'US',
		);
		expect(values.email).toEqual([
			'62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
		]);
		expect(values.phone).toEqual([
			'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176',
		]);
		expect(values.gender).toEqual([
			'1b16b1df538ba12dc3f97edbb85caa7050d46c148134290feba80f8236c83db9',
		]);
	});
});

describe('TikTok (Segment formatter tests)', () => {
	test.each<[string, string]>([
		[
			'bugsbunny@warnerbros.com',
			'67e28cdcc3e845d3a4da05ca9fe5ddb7320a83b4cc2167f0555a3b04f63511e3',
		],
		[
			'daffyduck@warnerbros.com',
			'2d2fb2388f17f86affee71d632978425a3037fa8eed5b3f2baaa458c80d495ed',
		],
	])('email %s → %s', (email, digest) => {
		expect(rendered('tiktok', { email }).email).toEqual([digest]);
	});

	// Segment just prefixes '+'. These are not phone numbers (no valid +1 or +98 number has
	// 14 digits), so we omit them with a warning rather than hash garbage.
	test.each<[string]>([['12345678901234'], ['98765432109876']])(
		'phone %s is omitted as invalid',
		(phone) => {
			const identity = normalizeIdentity({ contact: { phone } });
			expect(renderIdentity(identity, IDENTITY_PROFILES['tiktok']).values.phone).toBeUndefined();
			expect(identity.warnings).toEqual([
				'phone: not a valid number, and no country to read it as a national number',
			]);
		},
	);

	it('a valid number renders E.164 with + before hashing', () => {
		expect(rendered('tiktok', { phone: '+1 413 555 2671' }).phone).toEqual([
			'dadb5627eafe593ed1ff20f4c40a3cca26ae122a9805636fd3be3071249631db',
		]);
	});
});

describe('Google Ads', () => {
	it('test@gmail.com → 87924606…', () => {
		expect(rendered('google', { email: 'test@gmail.com' }).email).toEqual([
			'87924606b4131a8aceeeae8868531fbb9712aaa07a5d3a756b26ce0f5d6ca674',
		]);
	});

	it('(800)555-0100 (US) → +18005550100 → fb4f73a6…', () => {
		expect(hashSha256('+18005550100')).toBe(
			'fb4f73a6ec5fdb7077d564cdd22c3554b43ce49168550c3b12c547b78c517b30',
		);
		expect(rendered('google', { phone: '(800)555-0100' }, 'US').phone).toEqual([
			'fb4f73a6ec5fdb7077d564cdd22c3554b43ce49168550c3b12c547b78c517b30',
		]);
	});

	it('alex.2@example.com keeps its dot (gmail-only rule)', () => {
		expect(rendered('google', { email: 'alex.2@example.com' }).email).toEqual([
			hashSha256('alex.2@example.com'),
		]);
	});

	it('6161729102 (Segment sample) is not a valid US number: omitted', () => {
		expect(rendered('google', { phone: '6161729102' }, 'US').phone).toBeUndefined();
	});
});

describe('Microsoft UET', () => {
	it('user@example.com and +14135552671 hash as computed in platforms.md', () => {
		const values = rendered(
			'microsoft',
			{ email: 'User@Example.com', phone: '(413) 555-2671' },
			'US',
		);
		expect(values.email).toEqual([
			'b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514',
		]);
		expect(values.phone).toEqual([
			'dadb5627eafe593ed1ff20f4c40a3cca26ae122a9805636fd3be3071249631db',
		]);
	});
});

describe('Snapchat-style vectors (Meta phone format)', () => {
	it('+44 844 412 4653 → 448444124653 → dc008fda…', () => {
		expect(rendered('meta', { phone: '+44 844 412 4653' }).phone).toEqual([
			'dc008fda46e2e64002cf2f82a4906236282d431c4f75e5b60bfe79fc48546383',
		]);
	});

	it('Person@Example.com → 542d2401…', () => {
		expect(rendered('meta', { email: 'Person@Example.com' }).email).toEqual([
			'542d240129883c019e106e3b1b2d3f3cb3537c43c425364de8e951d5a3083345',
		]);
	});
});
