import { CLEAR, HASHED, type IdentityProfile } from '../../identity';

/** What TikTok takes of an identity and how (platforms.md §3.4, normalization.md). */
export const tiktokIdentity: IdentityProfile = {
	platform: 'tiktok',
	fields: {
		email: HASHED,
		phone: HASHED,
		external_id: HASHED,
		first_name: HASHED,
		last_name: HASHED,
		// zip_code hashed, city/state/country clear: 2nd-party (Segment) only, UNCONFIRMED.
		postal_code: HASHED,
		city: CLEAR,
		region: CLEAR,
		country: CLEAR,
		ttclid: CLEAR,
		ttp: CLEAR,
		ip: CLEAR,
		user_agent: CLEAR,
	},
	// E.164 with '+': 2nd-party (Segment, Stape), no official vector (UNCONFIRMED).
	phone: 'e164',
	email: 'as-is',
	genders: ['f', 'm'],
	matchWeights: {
		email: 3.5,
		phone: 2.5,
		ttclid: 2,
		ttp: 0.75,
		external_id: 0.75,
		ip: 0.25,
		user_agent: 0.25,
	},
};
