import {
	isSupportedCountry,
	parsePhoneNumberFromString,
	type CountryCode,
	type PhoneNumber,
} from 'libphonenumber-js/max';

import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import { normalizeCountry } from './country';
import { rememberedPhoneOutcome } from './phone-results';
import type { IdentityProfile } from './profiles';

export interface PhoneContext {
	/** ISO alpha-2 (any case) used for numbers written without an international prefix. */
	country?: string | null;
}

/** Longest E.164 number: 15 digits. Shortest plausible with a country code: 7. */
const E164_DIGITS = /^\d{7,15}$/;

/**
 * Phone (ph): canonical E.164 with '+', validated with libphonenumber's full metadata.
 * Extensions and labels ("(mobile)", "tel:") are dropped by the parser. A national prefix of
 * the country (`011` for US, `00` for most of Europe) is honoured by the parser only for that
 * country, which is the rule of normalization.md.
 */
export function normalizePhoneText(text: string, context: PhoneContext = {}): FieldOutcome {
	const country = supportedCountry(context.country);
	// The same number comes back often (every platform, every stage): worked out once per
	// process, within a bound (phone-results.ts).
	return rememberedPhoneOutcome(text, country, () => phoneOutcome(text, country));
}

/** normalizePhoneText worked out every time, without the results kept in this process. */
export function normalizePhoneTextUncached(text: string, context: PhoneContext = {}): FieldOutcome {
	return phoneOutcome(text, supportedCountry(context.country));
}

/** The rule itself: `country` is a supported code or undefined. */
function phoneOutcome(text: string, country: CountryCode | undefined): FieldOutcome {
	if (text.startsWith('+')) {
		const parsed = parseQuietly(text);
		if (parsed && isE164(parsed)) return { value: parsed.number };
		const callingCode = parsed?.countryCallingCode;
		return {
			omitted: callingCode
				? `not a valid number for +${callingCode}`
				: 'not a valid international number',
		};
	}
	if (country !== undefined) {
		const parsed = parseQuietly(text, country);
		if (parsed && isE164(parsed)) return { value: parsed.number };
	}
	// The digits may already carry a country code (the very format Meta and Pinterest ask for,
	// so CRM exports often hold "16505551212"). Accepted only when that reading is a valid
	// number; a leading 00/011 stays unhonoured because no country code starts with 0.
	const asInternational = readAsInternational(text);
	if (asInternational !== null) return { value: asInternational };
	return {
		omitted:
			country !== undefined
				? `not a valid number for ${country}`
				: 'not a valid number, and no country to read it as a national number',
	};
}

function readAsInternational(text: string): string | null {
	const digits = text.replace(/(?:ext\.?|extension|x|#)\s*\d+\s*$/i, '').replace(/\D/g, '');
	if (!E164_DIGITS.test(digits)) return null;
	const parsed = parseQuietly(`+${digits}`);
	return parsed && isE164(parsed) ? parsed.number : null;
}

/**
 * Valid by the full metadata and within E.164's 15 digits: the metadata accepts some national
 * numbers (Germany's) so long that, with the country code, they no longer are E.164 numbers.
 */
function isE164(parsed: PhoneNumber): boolean {
	return parsed.isValid() && E164_DIGITS.test(parsed.number.slice(1));
}

function parseQuietly(text: string, country?: CountryCode): PhoneNumber | undefined {
	try {
		return parsePhoneNumberFromString(text, country);
	} catch {
		return undefined;
	}
}

function supportedCountry(country: string | null | undefined): CountryCode | undefined {
	if (!country) return undefined;
	const upper = country.toUpperCase();
	return isSupportedCountry(upper) ? upper : undefined;
}

/**
 * What a platform expects a pre-hashed phone to be the SHA-256 of (docs/platforms/<platform>.md):
 * one hash cannot be right for Meta/Pinterest (digits) and TikTok/Google/Microsoft (E.164 with
 * '+') at once, so the Identity Normalizer states it per platform.
 */
export function phoneHashForm(profile: IdentityProfile): string {
	return profile.phone === 'digits'
		? "SHA-256 (lowercase hex) of the number with country code, digits only, no '+' (16505551212)"
		: "SHA-256 (lowercase hex) of the E.164 number with '+' (+16505551212)";
}

/** Renders a canonical E.164 number in the platform's format. */
export function renderPhone(e164: string, format: IdentityProfile['phone']): string {
	return format === 'digits' ? e164.replace(/^\+/, '') : e164;
}

/**
 * The phone as the profile's platform wants it before hashing (Meta, Pinterest: digits without '+';
 * TikTok, Google, Microsoft: E.164 with '+'), or null to omit. `defaultCountry` (a code or a
 * name) is used for numbers without an international prefix.
 */
export function normalizePhone(
	raw: unknown,
	opts: { profile: IdentityProfile; defaultCountry?: string },
): string | null {
	const country = opts.defaultCountry === undefined ? null : normalizeCountry(opts.defaultCountry);
	const canonical = firstFieldValue('phone', raw, (text) => normalizePhoneText(text, { country }));
	if (canonical === null || !canonical.startsWith('+')) return canonical;
	return renderPhone(canonical, opts.profile.phone);
}
