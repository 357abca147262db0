import { CLEAR, FULL_HASHED_SET, type IdentityProfile } from '../../identity';

/** What Pinterest takes of an identity and how (platforms.md §2.4, normalization.md). */
export const pinterestIdentity: IdentityProfile = {
	platform: 'pinterest',
	fields: { ...FULL_HASHED_SET, ip: CLEAR, user_agent: CLEAR, epik: CLEAR },
	phone: 'digits',
	email: 'as-is',
	genders: ['f', 'm', 'n'],
	// Pinterest's OpenAPI: zp is "Sha256 hashes of user's zipcode, only digits". A code with
	// letters is left out (stripping them would send a different code); docs/platforms/pinterest.md.
	postalCode: 'digits',
	matchWeights: {
		email: 4,
		phone: 2,
		epik: 1,
		external_id: 1,
		ip: 0.75,
		user_agent: 0.75,
		first_name: 0.25,
		last_name: 0.25,
		date_of_birth: 0.15,
		city: 0.15,
		postal_code: 0.15,
		region: 0.15,
		country: 0.15,
		gender: 0.05,
	},
};
