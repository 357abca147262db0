import { CLEAR, HASHED, type IdentityProfile } from '../../identity';

/** What Google Ads takes of an identity and how (platforms.md §4.4, normalization.md). */
export const googleIdentity: IdentityProfile = {
	platform: 'google',
	// Click conversions accept only hashedEmail and hashedPhoneNumber as user identifiers;
	// addressInfo (where a clear postal code would go) is rejected with
	// UNSUPPORTED_USER_IDENTIFIER, so postal code is not part of this profile; userIpAddress is
	// allowlist-only, so the IP is not either.
	fields: {
		email: HASHED,
		phone: HASHED,
		gclid: CLEAR,
		gbraid: CLEAR,
		wbraid: CLEAR,
	},
	phone: 'e164',
	// UNCONFIRMED whether Google now removes dots/+suffix for every domain; the rule common
	// to all sources (and normalization.md) is gmail/googlemail dot removal only.
	email: 'gmail-dots-removed',
	genders: ['f', 'm'],
	matchWeights: { gclid: 5, gbraid: 4, wbraid: 4, email: 3, phone: 2 },
	// gbraid/wbraid stand in for gclid (iOS app and web measurement): one click id is what counts.
	alternativeClickIds: ['gclid', 'gbraid', 'wbraid'],
};
