/**
 * Small readers for untrusted webhook bodies: objects, dotted paths, usable values, headers.
 */

import { readPathValue, splitPath as splitRulePath } from '../path';

export type JsonObject = Record<string, unknown>;

/**
 * Keys that would reach or shadow Object.prototype if ever assigned on a plain object: never
 * taken from a body into a record (a JSON body may hold them as its own keys).
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
	'__proto__',
	'prototype',
	'constructor',
]);

export function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[key]` only when it is the object's own property (never `__proto__` and friends). */
export function ownValue(value: unknown, key: string): unknown {
	if (typeof value !== 'object' || value === null) return undefined;
	return Object.prototype.hasOwnProperty.call(value, key) ? (value as JsonObject)[key] : undefined;
}

/** The object at `key`, or an empty object. */
export function ownObject(value: unknown, key: string): JsonObject {
	const found = ownValue(value, key);
	return isObject(found) ? found : {};
}

/** The array at `key`, or an empty array. */
export function ownArray(value: unknown, key: string): unknown[] {
	const found = ownValue(value, key);
	return Array.isArray(found) ? found : [];
}

/**
 * Reads a dotted path (`data.attributes.email`, `answers.0.email`) with the one path reader
 * (shared/path.ts): own properties only, digits index arrays, other segments expand them.
 */
export function readPath(root: unknown, path: string): unknown {
	return readPathValue(root, path);
}

/** The segments of a dotted path as the one path reader reads them (trimmed), empty ones left out. */
export function splitPath(path: string): string[] {
	return splitRulePath(path).filter((segment) => segment !== '');
}

/** A key for matching field names: lowercase ASCII letters and digits only (`E-Mail` → `email`). */
export function normalizeKey(key: string): string {
	return key
		.normalize('NFD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '');
}

/** A trimmed non-empty string, or undefined. */
export function readText(value: unknown): string | undefined {
	if (typeof value === 'string') {
		const trimmed = value.trim();
		return trimmed === '' ? undefined : trimmed;
	}
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

export type Scalar = string | number | boolean;

/** A usable scalar: trimmed non-empty string, finite number or boolean. */
export function readScalar(value: unknown): Scalar | undefined {
	if (typeof value === 'string') return readText(value);
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value === 'boolean') return value;
	return undefined;
}

/**
 * A scalar, or a list of scalars with the blanks removed (multi-value fields). Objects and empty
 * lists are not values.
 */
export function readValue(value: unknown): Scalar | Scalar[] | undefined {
	if (!Array.isArray(value)) return readScalar(value);
	const items = value.map(readScalar).filter((item): item is Scalar => item !== undefined);
	if (items.length === 0) return undefined;
	return items.length === 1 ? items[0] : items;
}

/** The first value of a header (lower-case name), trimmed; undefined when absent or blank. */
export function readHeader(
	headers: Record<string, string | string[] | undefined>,
	name: string,
): string | undefined {
	const raw = headers[name.toLowerCase()];
	const first = Array.isArray(raw) ? raw[0] : raw;
	return readText(first);
}

/** Every value of a header, for list headers such as X-Forwarded-For. */
export function readHeaderList(
	headers: Record<string, string | string[] | undefined>,
	name: string,
): string[] {
	const raw = headers[name.toLowerCase()];
	const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
	return values.flatMap((value) => value.split(',')).map((value) => value.trim());
}

/**
 * A client-supplied word for a reason line (an event type, a content type): quoted, cut short and
 * stripped of control characters, so a reason stays one short line.
 */
export function echo(value: unknown): string {
	if (value === undefined || value === null) return 'none';
	if (typeof value !== 'string') return `a ${Array.isArray(value) ? 'list' : typeof value}`;
	const clean = Array.from(value)
		.filter((char) => char >= ' ' && char !== '\u007f')
		.join('');
	return JSON.stringify(clean.length > 40 ? `${clean.slice(0, 40)}…` : clean);
}
