import { CLEAR, FULL_HASHED_SET, type IdentityProfile } from '../../identity';

/** What Meta takes of an identity and how (platforms.md §1.4, normalization.md). */
export const metaIdentity: IdentityProfile = {
	platform: 'meta',
	fields: { ...FULL_HASHED_SET, ip: CLEAR, user_agent: CLEAR, fbc: CLEAR, fbp: CLEAR },
	phone: 'digits',
	email: 'as-is',
	genders: ['f', 'm'],
	// In the spirit of Meta's Event Match Quality: email, phone and the click id first.
	matchWeights: {
		email: 3,
		phone: 2,
		fbc: 1.5,
		external_id: 1,
		fbp: 0.75,
		ip: 0.75,
		user_agent: 0.25,
		first_name: 0.25,
		last_name: 0.25,
		date_of_birth: 0.15,
		city: 0.15,
		postal_code: 0.15,
		region: 0.1,
		country: 0.1,
		gender: 0.05,
	},
};
