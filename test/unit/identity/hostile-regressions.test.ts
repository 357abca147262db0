import { IDENTITY_PROFILES, normalizeIdentity, renderIdentity } from '../../../shared/identity';
import { PLATFORMS } from '../../../shared/types';

/**
 * Inputs the property tests (test/property/identity.test.ts) found, kept as plain examples so
 * that each fix has a test of its own.
 */
const SHA256_OF_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('hostile-input regressions', () => {
	it.each(['email', 'phone', 'first_name', 'last_name', 'city', 'region', 'postal_code', 'country', 'gender', 'date_of_birth', 'external_id'])(
		'%s: the SHA-256 of "" (an upstream hash of an empty field) is dropped with a warning, never sent',
		(field) => {
			for (const digest of [SHA256_OF_EMPTY, SHA256_OF_EMPTY.toUpperCase(), `${SHA256_OF_EMPTY}.AQYBAQIA`]) {
				const identity = normalizeIdentity({ contact: { [field]: digest } });
				expect(identity.values).toEqual({});
				expect(identity.warnings).toEqual([`${field}: the SHA-256 of an empty value`]);
				for (const platform of PLATFORMS) {
					expect(renderIdentity(identity, platform).values).toEqual({});
				}
			}
			// Any other digest still passes through as it is.
			const other = 'a'.repeat(64);
			const kept = normalizeIdentity({ contact: { [field]: other } });
			expect(kept.values).toEqual({ [field]: [other] });
			const hashedBy = PLATFORMS.filter((p) => IDENTITY_PROFILES[p].fields[field as 'email']?.hashed);
			for (const platform of hashedBy) {
				expect(renderIdentity(kept, platform).values).toEqual({ [field]: [other] });
			}
		},
	);
});

describe('phone numbers longer than E.164 allows', () => {
	// libphonenumber's metadata takes 15-digit German national numbers as valid: +49 and 15
	// digits are 17, and E.164 ends at 15.
	it.each<[unknown, string | undefined]>([
		[[201000000000000], 'de'],
		['201000000000000', 'DE'],
		['+49 201000000000000', undefined],
		['49201000000000000', undefined],
	])('%j (country %s) is dropped with a warning', (phone, country) => {
		const identity = normalizeIdentity({ contact: { phone, ...(country ? { country } : {}) } });
		expect(identity.values.phone).toBeUndefined();
		expect(identity.warnings).toEqual([expect.stringMatching(/^phone: not a valid (number|international number)/)]);
	});

	it('a 15-digit E.164 number is still read', () => {
		expect(normalizeIdentity({ contact: { phone: '+49 30 1234567890', country: 'de' } }).values.phone).toEqual(['+49301234567890']);
	});
});
