import type { Platform } from '../types';
import type { IdentityField } from './fields';

export interface IdentityFieldRule {
	/** Sent as a SHA-256 hex digest (true) or in clear (false). */
	hashed: boolean;
	/**
	 * Clear fields only: whether a value that arrived already hashed may be sent as it is. True
	 * for opaque ids; false for descriptive values (a hashed city is no use where a city is
	 * expected in clear), which are then dropped with a warning.
	 */
	hashedInputAllowed?: boolean;
}

export type Gender = 'f' | 'm' | 'n';

export interface IdentityProfile {
	platform: Platform;
	/** The fields this platform takes, in the order match keys are reported. */
	fields: Partial<Record<IdentityField, IdentityFieldRule>>;
	/** E.164 with '+' (`e164`) or the same digits without it (`digits`). */
	phone: 'e164' | 'digits';
	/** `gmail-dots-removed`: dots removed from gmail.com / googlemail.com local parts. */
	email: 'as-is' | 'gmail-dots-removed';
	/** Gender values the platform accepts; others are dropped with a warning. */
	genders: readonly Gender[];
	/**
	 * `digits`: the platform documents postal codes as digits only (Pinterest's `zp`); a code
	 * with letters (UK `M1 1AE`, CA `K1A 0B1`) is left out with a warning, never sent altered.
	 * Default `as-is`: the canonical code (lowercase, no spaces or dashes).
	 */
	postalCode?: 'as-is' | 'digits';
}

const HASHED: IdentityFieldRule = { hashed: true };
const CLEAR: IdentityFieldRule = { hashed: false };

/** Meta's and Pinterest's customer information set, all hashed (platforms.md §1.4, §2.4). */
const FULL_HASHED_SET: Partial<Record<IdentityField, IdentityFieldRule>> = {
	email: HASHED,
	phone: HASHED,
	first_name: HASHED,
	last_name: HASHED,
	date_of_birth: HASHED,
	gender: HASHED,
	city: HASHED,
	region: HASHED,
	postal_code: HASHED,
	country: HASHED,
	external_id: HASHED,
};

/**
 * Per-platform identity rules (platforms.md §1.4–§5.4, normalization.md). Changing what a
 * platform receives means changing its entry here and nothing else.
 */
export const IDENTITY_PROFILES: Record<Platform, IdentityProfile> = {
	meta: {
		platform: 'meta',
		fields: { ...FULL_HASHED_SET, ip: CLEAR, user_agent: CLEAR, fbc: CLEAR, fbp: CLEAR },
		phone: 'digits',
		email: 'as-is',
		genders: ['f', 'm'],
	},
	pinterest: {
		platform: 'pinterest',
		fields: { ...FULL_HASHED_SET, ip: CLEAR, user_agent: CLEAR, epik: CLEAR },
		phone: 'digits',
		email: 'as-is',
		genders: ['f', 'm', 'n'],
		// Pinterest's OpenAPI: zp is "Sha256 hashes of user's zipcode, only digits". A code with
		// letters is left out (stripping them would send a different code); docs/platforms/pinterest.md.
		postalCode: 'digits',
	},
	tiktok: {
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
	},
	google: {
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
	},
	microsoft: {
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
	},
};
