/** Reading a field of a record by dotted path. */

const hasOwn = Object.prototype.hasOwnProperty;

/** The parts of a dotted path (`attributes.utm_source` → ['attributes', 'utm_source']). */
export function splitPath(path: string): string[] {
	return path.trim().split('.');
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

/**
 * Every present value at `parts` in `record`. Arrays along the way or at the end are expanded
 * (a list of contacts, a multi-value email field), so a condition can pass when any element
 * does. Only own properties are read, so `constructor` or `__proto__` never reach the prototype.
 * An empty result means the field is missing.
 */
export function readValues(record: unknown, parts: readonly string[]): unknown[] {
	const out: unknown[] = [];
	collect(record, parts, 0, out);
	return out;
}

function collect(node: unknown, parts: readonly string[], depth: number, out: unknown[]): void {
	if (Array.isArray(node)) {
		for (const element of node) collect(element, parts, depth, out);
		return;
	}
	if (depth === parts.length) {
		if (!isMissing(node)) out.push(node);
		return;
	}
	if (typeof node !== 'object' || node === null) return;
	const part = parts[depth];
	if (!hasOwn.call(node, part)) return;
	collect((node as Record<string, unknown>)[part], parts, depth + 1, out);
}

/** The first present value at a dotted path, or undefined. */
export function readFirstValue(record: unknown, path: string): unknown {
	return readValues(record, splitPath(path))[0];
}
