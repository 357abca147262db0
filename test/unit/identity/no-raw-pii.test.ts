import { IDENTITY_PROFILES } from '../../../shared/platforms';
import {
	compactFieldMap,
	hashSha256,
	normalizeIdentity,
	renderIdentity,
	type IdentityField,
} from '../../../shared/identity';
import type { LeadRecord } from '../../../shared/types';
import { PLATFORMS } from '../../../shared/types';

const RECORDS: Array<[string, LeadRecord]> = [
	[
		'a full lead',
		{
			contact: {
				email: 'Jane.Doe@Example.com',
				phone: '+1 (650) 555-1212',
				first_name: 'Jane',
				last_name: 'Doe',
				city: 'Austin',
				region: 'TX',
				postal_code: '78701',
				country: 'US',
				gender: 'f',
				date_of_birth: '1990-01-31',
				external_id: 'user-7',
			},
		},
	],
	[
		'unicode values',
		{
			contact: {
				first_name: '정',
				last_name: 'Müller',
				city: 'São Paulo',
				country: 'Brasil',
				region: 'SP',
			},
		},
	],
	[
		'whitespace everywhere',
		{ contact: { email: '  ', phone: ' ', first_name: '\t', external_id: ' ', city: '  ' } },
	],
	['punctuation-only names', { contact: { first_name: '--', last_name: '...', city: '!!' } }],
	[
		'mixed hashed and clear values',
		{
			contact: {
				email: [hashSha256('a@b.co').toUpperCase(), 'c@d.co'],
				phone: ['E'.repeat(64), '+44 844 412 4653'],
			},
		},
	],
	[
		'numbers and lists',
		{ contact: { phone: [16505551212, 447911123456], external_id: 42, postal_code: 94105 } },
	],
	['a hash with an appendix', { contact: { email: `${hashSha256('x@y.co')}.AQYBAQIA` } }],
	['non-binary gender', { contact: { gender: 'nonbinary', country: 'Deutschland' } }],
];

const SHA256_OF_EMPTY_STRING = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function isHashedOn(platform: (typeof PLATFORMS)[number], field: IdentityField): boolean {
	return IDENTITY_PROFILES[platform].fields[field]?.hashed === true;
}

describe('no raw PII in hashed output', () => {
	test.each(RECORDS)(
		'%s: every hashed value is 64 lowercase hex and never the hash of ""',
		(_name, record) => {
			const identity = normalizeIdentity(record, { defaultCountry: 'US' });
			for (const platform of PLATFORMS) {
				const rendered = renderIdentity(identity, IDENTITY_PROFILES[platform]);
				for (const [field, values] of Object.entries(compactFieldMap(rendered.values)) as Array<
					[IdentityField, string[]]
				>) {
					expect(values.length).toBeGreaterThan(0);
					for (const value of values) {
						expect(value).not.toBe('');
						expect(value).not.toBe(SHA256_OF_EMPTY_STRING);
						if (isHashedOn(platform, field)) expect(value).toMatch(/^[0-9a-f]{64}$/);
					}
				}
			}
		},
	);

	test.each(RECORDS)('%s: no warning repeats a raw email or phone', (_name, record) => {
		const { warnings } = normalizeIdentity(record, { defaultCountry: 'US' });
		for (const warning of warnings) expect(warning).not.toMatch(/@|\d{7,}/);
	});
});
