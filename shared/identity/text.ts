/**
 * Text helpers shared by the field normalizers.
 */

/** Lowercase, keeping letters (any script, with accents), combining marks and digits only. */
export function compactLowercase(text: string): string {
	return text
		.normalize('NFC')
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}]/gu, '')
		.normalize('NFC');
}

/**
 * A lookup key for names of places and words: accents folded, lowercase ASCII letters and
 * digits only, `&` read as "and" ("Bosnia & Herzegovina" = "Bosnia and Herzegovina").
 */
export function lookupKey(text: string): string {
	return text
		.normalize('NFD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.replace(/&/g, 'and')
		.replace(/[^a-z0-9]/g, '');
}

/**
 * A short echo of a low-sensitivity input (a country or gender word) for a warning. Long values
 * are cut, and a value with an "@" or seven digits (an email address or a phone number mapped
 * into the wrong field) is not shown at all, so a misplaced piece of PII never reaches a log.
 */
export function shortEcho(text: string): string {
	if (text.includes('@') || (text.match(/\d/g)?.length ?? 0) >= 7)
		return 'a value that may be personal data (not shown)';
	const limit = 20;
	const shown = text.length > limit ? `${text.slice(0, limit)}…` : text;
	return JSON.stringify(shown);
}
