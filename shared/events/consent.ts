import { normalizeCountry } from '../identity/country';
import { parseNumber, valueShape } from '../numbers';
import type { LeadRecord } from '../types';

/** Consent flags as they arrive (booleans, "granted"/"denied", yes/no, 1/0) → one reading. */
export type ConsentSignal = 'granted' | 'denied';

const GRANTED = new Set(['true', 'granted', 'yes', 'y', '1', 'allow', 'allowed', 'opt_in', 'optin']);
const DENIED = new Set(['false', 'denied', 'no', 'n', '0', 'deny', 'revoked', 'opt_out', 'optout']);

export function readConsent(raw: unknown): ConsentSignal | undefined {
	if (raw === true || raw === 1) return 'granted';
	if (raw === false || raw === 0) return 'denied';
	if (typeof raw !== 'string') return undefined;
	const text = raw.trim().toLowerCase();
	if (GRANTED.has(text)) return 'granted';
	if (DENIED.has(text)) return 'denied';
	return undefined;
}

/** A value's amount and ISO 4217 currency (both or neither), and what was wrong with them. */
export interface ValueReading {
	amount?: number;
	currency?: string;
	warnings: string[];
	/**
	 * When amount and currency are not both known, what the record had instead, as the platforms'
	 * messages say it: `without value.amount and value.currency`, `with an unreadable value.amount
	 * (text shaped "9.999,99 AAA")`, `with value.amount but without value.currency`, …
	 */
	absence?: string;
}

/** Reads a value's amount and ISO 4217 currency; never guesses either. */
export function readValue(raw: { amount?: unknown; currency?: unknown } | undefined): ValueReading {
	const warnings: string[] = [];
	const given = raw && typeof raw === 'object' ? raw : {};
	const amountGiven = isGiven(given.amount);
	const currencyGiven = isGiven(given.currency);
	const n = amountGiven ? parseNumber(given.amount) : null;
	const amount = n !== null && n >= 0 ? n : undefined;
	if (amountGiven && amount === undefined) {
		warnings.push(
			`value.amount: ${valueShape(given.amount)} is not a non-negative number, omitted`,
		);
	}
	const code = typeof given.currency === 'string' ? given.currency.trim().toUpperCase() : '';
	const currency = /^[A-Z]{3}$/.test(code) ? code : undefined;
	if (currencyGiven && currency === undefined) {
		warnings.push(`value.currency: ${valueShape(given.currency)} is not an ISO 4217 code, omitted`);
	}
	if (amount !== undefined && currency !== undefined) return { amount, currency, warnings };
	if (amount !== undefined) {
		warnings.push(
			'value.amount given without value.currency: value not sent (currency is never guessed)',
		);
	}
	return {
		warnings,
		absence: absenceOf(
			given,
			amountGiven && amount === undefined,
			currencyGiven && currency === undefined,
		),
	};
}

/** What a value that is not sent had instead (ValueReading.absence). */
function absenceOf(
	given: { amount?: unknown; currency?: unknown },
	amountUnreadable: boolean,
	currencyUnreadable: boolean,
): string {
	if (amountUnreadable) return `with an unreadable value.amount (${valueShape(given.amount)})`;
	if (currencyUnreadable)
		return `with an unreadable value.currency (${valueShape(given.currency)})`;
	if (isGiven(given.amount)) return 'with value.amount but without value.currency';
	if (isGiven(given.currency)) return 'with value.currency but without value.amount';
	return 'without value.amount and value.currency';
}

/** Present: not undefined, null or blank text. */
function isGiven(value: unknown): boolean {
	return (
		value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
	);
}

/**
 * Where a lead's consent rules come from, for the per-platform default when the lead carries no
 * consent signal (each platform's adapter decides what that region means for it):
 *  - `consent-required`: the EEA (EU 27, Iceland, Liechtenstein, Norway), the UK and
 *    Switzerland — the reach of Google's EU user consent policy and of Microsoft's consent-mode
 *    enforcement (docs/platforms/google-ads.md, microsoft.md);
 *  - `other`: a known country outside them;
 *  - `unknown`: neither the contact's nor the visitor's country is known.
 */
export type ConsentRegion = 'consent-required' | 'other' | 'unknown';

// prettier-ignore
const CONSENT_REQUIRED_COUNTRIES: ReadonlySet<string> = new Set([
	'at', 'be', 'bg', 'hr', 'cy', 'cz', 'dk', 'ee', 'fi', 'fr', 'de', 'gr', 'hu', 'ie', 'it', 'lv',
	'lt', 'lu', 'mt', 'nl', 'pl', 'pt', 'ro', 'sk', 'si', 'es', 'se', // EU 27
	'is', 'li', 'no', // rest of the EEA
	'gb', 'ch',
]);

/** The lead's country for consent purposes: the contact's own, else the visitor's (geo IP). */
export function consentRegion(record: LeadRecord): ConsentRegion {
	const country =
		normalizeCountry(record.contact?.country) ?? normalizeCountry(record.client?.country);
	if (!country) return 'unknown';
	return CONSENT_REQUIRED_COUNTRIES.has(country) ? 'consent-required' : 'other';
}

/** The one reading of a lead's consent: each flag, and the region its absence is judged by. */
export interface LeadConsentReading {
	adUserData?: ConsentSignal;
	adPersonalization?: ConsentSignal;
	/** consent.limited_data_use: the lead asked for Limited Data Use (see limitedDataUseFor). */
	limitedDataUse?: ConsentSignal;
	/** Neither ad_user_data nor ad_personalization says anything. */
	noSignal: boolean;
	region: ConsentRegion;
}

export function readLeadConsent(record: LeadRecord): LeadConsentReading {
	const consent = record.consent;
	const adUserData = readConsent(consent?.ad_user_data);
	const adPersonalization = readConsent(consent?.ad_personalization);
	return {
		adUserData,
		adPersonalization,
		limitedDataUse: readConsent(consent?.limited_data_use),
		noSignal: adUserData === undefined && adPersonalization === undefined,
		region: consentRegion(record),
	};
}
