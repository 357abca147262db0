/** Text helpers shared by the matchers: one normalization, one way to quote values in reasons. */

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The comparable form of a text: Unicode NFC (so a decomposed "Zürich" equals a composed one),
 * trimmed, and lowercased unless case-sensitive. toLowerCase is locale-independent, unlike
 * toLocaleLowerCase, so a rule means the same on every server.
 */
export function comparableText(text: string, caseSensitive: boolean): string {
	if (!NON_ASCII.test(text)) return caseSensitive ? text.trim() : text.trim().toLowerCase();
	const composed = text.normalize('NFC').trim();
	// Lowercasing can produce decomposed sequences (İ → i + U+0307); compose again.
	return caseSensitive ? composed : composed.toLowerCase().normalize('NFC');
}

/**
 * The text form of a field value: numbers and booleans as their string form, dates as ISO,
 * other objects as JSON. Null means "no text".
 */
export function textOf(value: unknown): string | null {
	switch (typeof value) {
		case 'string':
			return value;
		case 'number':
		case 'boolean':
		case 'bigint':
			return String(value);
		case 'object':
			if (value === null) return null;
			if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
			try {
				return JSON.stringify(value);
			} catch {
				return null;
			}
		default:
			return null;
	}
}

/** List items of a pattern: separated by commas or newlines, trimmed, empty items dropped. */
export function parseList(pattern: string): string[] {
	return pattern
		.split(/[,\r\n]+/)
		.map((item) => item.trim())
		.filter((item) => item !== '');
}

const MAX_QUOTED = 80;

/** A value quoted for a reason line, shortened so one line stays one line. */
export function quote(text: string): string {
	// Cut before replacing, so a 1 MB value costs what 100 characters cost.
	const head = text.length > MAX_QUOTED * 2 ? text.slice(0, MAX_QUOTED * 2) : text;
	const oneLine = head.replace(/[\r\n]+/g, ' ');
	const short =
		oneLine.length > MAX_QUOTED || head.length < text.length
			? `${oneLine.slice(0, MAX_QUOTED - 1)}…`
			: oneLine;
	return JSON.stringify(short);
}

/** Quoted list items: `"a", "b", "c" (+4 more)`. */
export function quoteList(items: readonly string[], max = 5): string {
	const shown = items.slice(0, max).map(quote).join(', ');
	return items.length > max ? `${shown} (+${items.length - max} more)` : shown;
}
