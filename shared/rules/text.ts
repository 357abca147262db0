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

/**
 * textOf, cut to about `max` characters without building more: a string is sliced, an object
 * is serialized only until `max` characters of its JSON are written (the start of what
 * JSON.stringify would give), so a field holding a 50 MB object costs what 2,000 characters do.
 * `length` is the whole text's length, or (`more`) what was written when the object's JSON was
 * cut short.
 */
export function textHead(
	value: unknown,
	max: number,
): { text: string | null; length: number; more?: boolean } {
	if (typeof value === 'string') {
		return { text: value.length > max ? value.slice(0, max) : value, length: value.length };
	}
	if (typeof value !== 'object' || value === null || value instanceof Date) {
		const text = textOf(value);
		return { text, length: text?.length ?? 0 };
	}
	const out: string[] = [];
	const state = { written: 0, max, seen: new Set<object>() };
	try {
		writeJson(value, out, state);
	} catch {
		return { text: null, length: 0 };
	}
	const text = out.join('');
	return state.written > max
		? { text: text.slice(0, max), length: state.written, more: true }
		: { text, length: text.length };
}

interface JsonState {
	written: number;
	max: number;
	seen: Set<object>;
}

/** Appends JSON.stringify's text of `value`, stopping once more than `max` characters are out. */
function writeJson(value: unknown, out: string[], state: JsonState): void {
	const put = (text: string) => {
		out.push(text);
		state.written += text.length;
	};
	const json = (value as { toJSON?: () => unknown } | null)?.toJSON;
	const plain = typeof json === 'function' ? json.call(value) : value;
	if (typeof plain !== 'object' || plain === null) {
		put(JSON.stringify(plain) ?? 'null');
		return;
	}
	if (state.seen.has(plain)) throw new TypeError('circular');
	state.seen.add(plain);
	const array = Array.isArray(plain);
	put(array ? '[' : '{');
	let first = true;
	for (const [key, item] of array ? plain.entries() : Object.entries(plain)) {
		if (state.written > state.max) break;
		const skipped = item === undefined || typeof item === 'function' || typeof item === 'symbol';
		if (skipped && !array) continue;
		if (!first) put(',');
		first = false;
		if (!array) put(`${JSON.stringify(key)}:`);
		if (skipped) put('null');
		else writeJson(item, out, state);
	}
	put(array ? ']' : '}');
	state.seen.delete(plain);
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
