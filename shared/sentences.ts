/**
 * Joins message parts into sentences: a part that already ends a sentence (. ? !) gets no second
 * period, so a message built from a platform's or a store's own text never reads "..". Empty
 * parts are left out.
 */
export function joinSentences(...parts: Array<string | undefined>): string {
	return parts
		.map((part) => (part ?? '').trim())
		.filter((part) => part !== '')
		.map((part, i, all) => (i < all.length - 1 && !/[.?!]$/.test(part) ? `${part}.` : part))
		.join(' ');
}
