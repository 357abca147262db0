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
