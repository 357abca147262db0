/**
 * Numbers as people and CRMs write them: rule bounds (greater_than / less_than) and values
 * (amounts) share this one reading.
 */

// Digits with optional thousands separators (comma, space, no-break or thin space, apostrophe),
// an optional decimal part with a dot, an optional exponent. "1.200,50" (decimal comma) is not
// accepted: with both styles in use, guessing would silently compare the wrong amount.
const NUMBER =
	/^[+-]?(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u00a0\u202f]\d{3})+|\d{1,3}(?:'\d{3})+|\d+)?(?:\.\d+)?(?:e[+-]?\d+)?$/i;
const CURRENCY_SYMBOLS = /^[$€£¥₹]\s*|\s*[$€£¥₹]$/g;
const SEPARATORS = /[, \u00a0\u202f']/g;

/** The number a value stands for (`1,200.50` → 1200.5, `$99` → 99), or null. */
export function parseNumber(value: unknown): number | null {
	if (typeof value === 'number') return Number.isFinite(value) ? value : null;
	if (typeof value !== 'string') return null;
	const text = value.trim().replace(CURRENCY_SYMBOLS, '');
	if (!/\d/.test(text) || !NUMBER.test(text)) return null;
	const number = Number(text.replace(SEPARATORS, ''));
	return Number.isFinite(number) ? number : null;
}

/**
 * What a value looks like, without what it says (for messages about a value that cannot be
 * read): text with its digits as 9 and its letters as A (`"1.200,50 EUR"` → `text shaped
 * "9.999,99 AAA"`), `the number -5`, `a number shaped "999999999999"` (more than 6 digits: never
 * echoed, it may be a phone), `a list of 2`, `an object`, `the boolean true`.
 */
export function valueShape(raw: unknown): string {
	if (typeof raw === 'string') return `text shaped ${shapeOf(raw.trim())}`;
	// A short number is an amount or a code as typed (-5, 840); a long one may be a phone number
	// mapped into the wrong field, so only its shape is told.
	if (typeof raw === 'number')
		return String(raw).replace(/\D/g, '').length > 6 ? `a number shaped ${shapeOf(String(raw))}` : `the number ${String(raw)}`;
	if (typeof raw === 'boolean') return `the boolean ${String(raw)}`;
	if (Array.isArray(raw)) return `a list of ${raw.length}`;
	return raw === null ? 'null' : typeof raw === 'object' ? 'an object' : `a ${typeof raw}`;
}

/** Digits as 9, letters as A, control characters as ?, the first 24 characters, quoted. */
function shapeOf(text: string): string {
	const chars = Array.from(text);
	const shape = chars
		.slice(0, 24)
		.map((c) => (/\p{N}/u.test(c) ? '9' : /\p{L}/u.test(c) ? 'A' : c < ' ' ? '?' : c))
		.join('');
	return JSON.stringify(shape + (chars.length > 24 ? '…' : ''));
}
