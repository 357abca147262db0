import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';

export interface PostalCodeContext {
	/** The contact's country (lowercase alpha-2), when known. */
	country?: string | null;
}

/**
 * Postal code (zp): lowercase, whitespace and dashes removed (`M1 1AE` → `m11ae`); a US
 * ZIP+4 becomes its first 5 digits. Without a country, only the dashed `12345-6789` shape is
 * read as ZIP+4 (nine bare digits could be another country's code).
 */
export function normalizePostalCodeText(
	text: string,
	context: PostalCodeContext = {},
): FieldOutcome {
	const country = context.country?.toLowerCase();
	const isUs = country === 'us';
	if ((isUs || !country) && /^\d{5}\s*-\s*\d{4}$/.test(text)) return { value: text.slice(0, 5) };
	const code = text.toLowerCase().replace(/[\s\-\u2010-\u2015\u2212]/gu, '');
	if (!/^[\p{L}\p{N}]+$/u.test(code))
		return { omitted: 'contains characters other than letters and digits' };
	if (isUs) {
		if (/^\d{5}(?:\d{4})?$/.test(code)) return { value: code.slice(0, 5) };
		return { omitted: 'not a US ZIP code' };
	}
	if (code.length < 2) return { omitted: 'too short' };
	return { value: code };
}

export function normalizePostalCode(raw: unknown, opts: PostalCodeContext = {}): string | null {
	return firstFieldValue('postal_code', raw, (text) => normalizePostalCodeText(text, opts));
}
