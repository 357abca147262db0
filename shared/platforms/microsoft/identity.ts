import { CLEAR, HASHED, type IdentityProfile } from '../../identity';

/** What Microsoft Advertising takes of an identity and how (platforms.md §5.4, normalization.md). */
export const microsoftIdentity: IdentityProfile = {
	platform: 'microsoft',
	fields: {
		email: HASHED,
		phone: HASHED,
		// externalId hashing is UNCONFIRMED (Stape hashes, Segment/walkerOS do not);
		// normalization.md hashes external id only for Meta, Pinterest and TikTok.
		external_id: { hashed: false, hashedInputAllowed: true },
		msclkid: CLEAR,
		ip: CLEAR,
		user_agent: CLEAR,
	},
	// Phone format UNCONFIRMED; E.164 with '+' is the more common 2nd-party choice.
	phone: 'e164',
	// Dot/+alias removal for every domain (Stape, walkerOS) is UNCONFIRMED; normalization.md
	// keeps dots and +tags for every platform except Google.
	email: 'as-is',
	genders: ['f', 'm'],
	matchWeights: { msclkid: 4, email: 3, phone: 2, ip: 0.5, user_agent: 0.5 },
};
