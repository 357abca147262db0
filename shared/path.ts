/**
 * THE dotted-path reader of the package: the record (readLeadRecord), the rules, the capture
 * (field mapping, record id and state fields) and the capture log all read paths here.
 *
 * - Own properties only: `__proto__`, `constructor`, `prototype` and anything inherited are never
 *   followed (a path through them reads as missing).
 * - Segments are trimmed (`contact . email` is `contact.email`).
 * - Arrays: a segment of digits indexes an array (`answers.0.email`); any other segment — or the
 *   end of the path — expands the array, so every element is read (a list of contacts, a
 *   multi-value email field) and a condition passes when any element does.
 * - Missing values (undefined, null, blank strings) are not returned.
 */

const hasOwn = Object.prototype.hasOwnProperty;

/** The parts of a dotted path (`attributes.utm_source` → ['attributes', 'utm_source']). */
export function splitPath(path: string): string[] {
	return path.split('.').map((part) => part.trim());
}

/** True for a path made of non-empty parts without spaces. */
export function isValidPath(path: string): boolean {
	const trimmed = path.trim();
	return trimmed !== '' && splitPath(trimmed).every((part) => part !== '' && !/\s/.test(part));
}

/** True for what counts as "no value": undefined, null, or a string that is empty once trimmed. */
export function isMissing(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

/** Nodes a read visits at most (elements and properties along the path). */
export const MAX_READ_VISITS = 200;
/** Arrays nested in arrays are expanded this deep at most. */
const MAX_ARRAY_NESTING = 8;

export interface ReadResult {
	values: unknown[];
	/** Nodes visited: the work of the read. */
	visits: number;
	/** True when values were left out (more than `maxValues`, or the visit cap was reached). */
	cut: boolean;
}

/**
 * Every present value at `parts` in `record`. Arrays along the way or at the end are expanded
 * (a list of contacts, a multi-value email field), so a condition can pass when any element
 * does. Only own properties are read, so `constructor` or `__proto__` never reach the prototype.
 * An empty result means the field is missing.
 */
export function readValues(record: unknown, parts: readonly string[]): unknown[] {
	return readBounded(record, parts, Infinity).values;
}

/**
 * readValues with bounds: at most `maxValues` values, MAX_READ_VISITS nodes visited and arrays
 * nested MAX_ARRAY_NESTING deep, so a hostile record (a field with a million elements, arrays
 * nested ten thousand deep) costs a read no more than a normal one.
 */
export function readBounded(
	record: unknown,
	parts: readonly string[],
	maxValues: number,
): ReadResult {
	const read: ReadResult = { values: [], visits: 0, cut: false };
	collect(record, parts, 0, 0, read, maxValues);
	return read;
}

function collect(
	node: unknown,
	parts: readonly string[],
	depth: number,
	nesting: number,
	read: ReadResult,
	maxValues: number,
): void {
	if (read.visits >= MAX_READ_VISITS || read.values.length >= maxValues) {
		read.cut = true;
		return;
	}
	read.visits += 1;
	if (Array.isArray(node) && depth < parts.length && /^\d+$/.test(parts[depth])) {
		const index = Number(parts[depth]);
		if (index < node.length) collect(node[index], parts, depth + 1, 0, read, maxValues);
		return;
	}
	if (Array.isArray(node)) {
		if (nesting >= MAX_ARRAY_NESTING) {
			read.cut = true;
			return;
		}
		for (const element of node) {
			collect(element, parts, depth, nesting + 1, read, maxValues);
			if (read.cut) return;
		}
		return;
	}
	if (depth === parts.length) {
		if (!isMissing(node)) read.values.push(node);
		return;
	}
	if (typeof node !== 'object' || node === null) return;
	const part = parts[depth];
	if (!hasOwn.call(node, part)) return;
	collect((node as Record<string, unknown>)[part], parts, depth + 1, 0, read, maxValues);
}

/**
 * The value at a dotted path as one value: undefined when missing, the value when there is one,
 * the list of values when the path expanded an array to several.
 */
export function readPathValue(record: unknown, path: string): unknown {
	const values = readBounded(record, splitPath(path).filter((part) => part !== ''), MAX_READ_VISITS).values;
	return values.length <= 1 ? values[0] : values;
}

/** The first present value at a dotted path, or undefined. */
export function readFirstValue(record: unknown, path: string): unknown {
	return readBounded(record, splitPath(path), 1).values[0];
}
