import type { Platform } from '../types';
import type { IdentityField } from './fields';

/*
 * What an identity profile is. Each platform declares its own in its folder
 * (shared/platforms/<platform>/identity.ts) and its adapter carries it; the functions here and in
 * render-identity.ts take the profile, never a platform name.
 */

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
	/**
	 * Match-quality weights per field (0–10 in all; estimateMatchQuality): the platform's
	 * documented priorities — click ids and email first, then phone and external ids, then
	 * network and address fields. Our estimate, not the platform's formula.
	 */
	matchWeights: Partial<Record<IdentityField, number>>;
	/**
	 * Click ids that stand in for one another (Google's gclid, gbraid, wbraid): one click is what
	 * counts, so only the heaviest one present adds to the score, and with one present the others
	 * are not reported missing.
	 */
	alternativeClickIds?: readonly IdentityField[];
}

/** A field sent as a SHA-256 hex digest. */
export const HASHED: IdentityFieldRule = { hashed: true };
/** A field sent in clear. */
export const CLEAR: IdentityFieldRule = { hashed: false };

/** The customer information set Meta and Pinterest take, all hashed (platforms.md §1.4, §2.4). */
export const FULL_HASHED_SET: Partial<Record<IdentityField, IdentityFieldRule>> = {
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
