import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import { COUNTRY_ALIASES, COUNTRY_CODES } from './country-codes';
import { lookupKey } from './text';

/** lookup key → lowercase alpha-2, built once from the code list, English names and aliases. */
const COUNTRY_BY_KEY: ReadonlyMap<string, string> = buildCountryIndex();

function buildCountryIndex(): Map<string, string> {
	const index = new Map<string, string>();
	const englishName = englishRegionNames();
	for (const [alpha2, alpha3] of COUNTRY_CODES) {
		const code = alpha2.toLowerCase();
		const name = englishName(alpha2);
		if (name !== undefined) {
			for (const variant of nameVariants(name)) index.set(lookupKey(variant), code);
		}
		index.set(lookupKey(alpha3), code);
	}
	for (const [alias, code] of Object.entries(COUNTRY_ALIASES)) index.set(lookupKey(alias), code);
	// Codes last, so a two- or three-letter code always means that code.
	for (const [alpha2, alpha3] of COUNTRY_CODES) {
		index.set(lookupKey(alpha2), alpha2.toLowerCase());
		index.set(lookupKey(alpha3), alpha2.toLowerCase());
	}
	return index;
}

function englishRegionNames(): (alpha2: string) => string | undefined {
	try {
		const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
		return (alpha2) => names.of(alpha2);
	} catch {
		// A Node built without full ICU: codes and the alias table still work.
		return () => undefined;
	}
}

/** "St. Lucia" is also typed "Saint Lucia"; "Myanmar (Burma)" also "Myanmar". */
function nameVariants(name: string): string[] {
	const variants = [name];
	const withoutParenthesis = name.replace(/\s*\([^)]*\)\s*/g, ' ').trim();
	if (withoutParenthesis !== name) variants.push(withoutParenthesis);
	for (const variant of [...variants]) {
		if (/^St\.?\s/.test(variant)) variants.push(variant.replace(/^St\.?\s/, 'Saint '));
	}
	return variants;
}

/** Country: ISO 3166-1 alpha-2, lowercase, from codes, English names and common aliases. */
export function normalizeCountryText(text: string): FieldOutcome {
	const key = lookupKey(text);
	const code =
		COUNTRY_BY_KEY.get(key) ??
		(key.startsWith('the') ? COUNTRY_BY_KEY.get(key.slice(3)) : undefined);
	if (code !== undefined) return { value: code };
	// The value itself is never quoted: a name or an initial mapped into the wrong field is
	// personal data (issue 13). The shape says enough to find the mapping.
	return {
		omitted: /^[a-z]{2}$/.test(key)
			? 'two letters that are not an ISO 3166-1 country code'
			: 'not a recognised country name or code',
	};
}

/** The country as a lowercase ISO alpha-2 code (or an existing SHA-256), or null to omit. */
export function normalizeCountry(raw: unknown): string | null {
	return firstFieldValue('country', raw, normalizeCountryText);
}
