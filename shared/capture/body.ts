import type { CaptureRequest, CaptureSource } from './types';
import { echo, FORBIDDEN_KEYS, readHeader, type JsonObject } from './values';

/**
 * Body parsing: JSON (`application/json`, `*+json`, or `text/plain` holding JSON — what the
 * capture script's sendBeacon sends), and `application/x-www-form-urlencoded` for the generic
 * source, with bracketed keys (`contact[email]`) read as nested objects. Multipart is out of
 * scope. A request without a content type is read as JSON.
 */
export type ParsedBody =
	| { ok: true; body: JsonObject }
	| { ok: false; status: 400 | 415; reason: string };

/** Bracket nesting deeper than this is kept as a flat key. */
const MAX_FORM_DEPTH = 5;

export function parseCaptureBody(request: CaptureRequest, source: CaptureSource): ParsedBody {
	const mediaType = (readHeader(request.headers, 'content-type') ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	const text = decodeUtf8(request.rawBody);
	if (text === null) return { ok: false, status: 400, reason: 'malformed body: not valid UTF-8' };

	if (mediaType === 'application/x-www-form-urlencoded') {
		if (source !== 'generic') {
			return {
				ok: false,
				status: 415,
				reason: `unsupported content type ${mediaType} for the ${source} source (expected application/json)`,
			};
		}
		return { ok: true, body: parseFormBody(text) };
	}
	if (mediaType === '' || isJsonMediaType(mediaType) || mediaType === 'text/plain') {
		return parseJsonBody(text, source === 'hubspot');
	}
	return {
		ok: false,
		status: 415,
		reason: `unsupported content type ${echo(mediaType)} (accepted: application/json, text/plain holding JSON${
			source === 'generic' ? ', application/x-www-form-urlencoded' : ''
		})`,
	};
}

function isJsonMediaType(mediaType: string): boolean {
	return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

function decodeUtf8(raw: Buffer): string | null {
	try {
		const text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
		return text.startsWith('\uFEFF') ? text.slice(1) : text;
	} catch {
		return null;
	}
}

/** `arrayAs`: a top-level array is accepted as `{ events: [...] }` (HubSpot batches its events). */
function parseJsonBody(text: string, arrayAs = false): ParsedBody {
	if (text.trim() === '') return malformedJson('empty body');
	let parsed: unknown;
	try {
		parsed = JSON.parse(keepBigIntegersExact(text));
	} catch {
		// The message (and its position) of the text as it was sent.
		try {
			JSON.parse(text);
		} catch (error) {
			return malformedJson(describeJsonError(error));
		}
		return malformedJson('not valid JSON');
	}
	if (arrayAs && Array.isArray(parsed)) return { ok: true, body: { events: parsed } as JsonObject };
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		const got = Array.isArray(parsed)
			? 'an array'
			: parsed === null
				? 'null'
				: `a ${typeof parsed}`;
		return malformedJson(`expected an object at the top level, got ${got}`);
	}
	return { ok: true, body: parsed as JsonObject };
}

/**
 * JSON integers beyond 2^53 (Number.MAX_SAFE_INTEGER) lose digits as JavaScript numbers:
 * `1234567890123456789` becomes `1234567890123456800`, so three CRM records with snowflake ids
 * would become one record id. Such an integer literal is read as the string of its exact digits
 * instead: the text is rewritten before JSON.parse, wrapping each unsafe integer literal outside
 * strings in quotes (Node 20's JSON.parse gives revivers no source text). Fractions, exponents and
 * safe integers stay numbers. Text without a run of 16 digits is returned as is.
 */
export function keepBigIntegersExact(text: string): string {
	if (!/\d{16}/.test(text)) return text;
	let out = '';
	let copied = 0;
	let i = 0;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (c === 0x22 /* " */) {
			i = endOfString(text, i);
			continue;
		}
		if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
			NUMBER_TOKEN.lastIndex = i;
			const token = NUMBER_TOKEN.exec(text)?.[0] ?? text[i];
			if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
				out += `${text.slice(copied, i)}"${token}"`;
				copied = i + token.length;
			}
			i += token.length;
			continue;
		}
		i++;
	}
	return copied === 0 ? text : out + text.slice(copied);
}

const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The index just past the string starting at `start` (a quote); the end of text if unclosed. */
function endOfString(text: string, start: number): number {
	let i = start + 1;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (c === 0x5c /* \\ */) i += 2;
		else if (c === 0x22) return i + 1;
		else i++;
	}
	return text.length;
}

/**
 * V8's messages quote the offending text ("…is not valid JSON"), which may be personal data, so
 * only the position (when V8 gives one) is kept.
 */
function describeJsonError(error: unknown): string {
	const message = error instanceof Error ? error.message : '';
	if (/end of (?:json )?input/i.test(message)) return 'unexpected end of input';
	const position = /position (\d+)/.exec(message);
	return position ? `invalid JSON at position ${position[1]}` : 'not valid JSON';
}

function malformedJson(detail: string): ParsedBody {
	return { ok: false, status: 400, reason: `malformed JSON body: ${detail}` };
}

/**
 * `a=1&contact[email]=x&tags[]=p&tags[]=q`
 * → `{ a: '1', contact: { email: 'x' }, tags: ['p', 'q'] }`.
 * A repeated plain key becomes a list. Keys that conflict with an earlier shape are dropped.
 */
export function parseFormBody(text: string): JsonObject {
	const root: JsonObject = {};
	for (const [key, value] of new URLSearchParams(text)) {
		const segments = splitFormKey(key);
		if (segments === null) continue;
		assign(root, segments, value);
	}
	return root;
}

/** `contact[email]` → ['contact', 'email']; `tags[]` → ['tags', '']; null when unusable. */
function splitFormKey(key: string): string[] | null {
	const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
	const segments = match
		? [match[1], ...Array.from(match[2].matchAll(/\[([^[\]]*)\]/g), (part) => part[1])]
		: [key];
	if (segments.length > MAX_FORM_DEPTH + 1) return [key];
	if (segments.some((segment) => FORBIDDEN_KEYS.has(segment))) return null;
	// An empty segment (`[]`) is only meaningful at the end: "append to this list".
	if (segments.slice(0, -1).some((segment) => segment === '') || segments[0] === '') return null;
	return segments;
}

function assign(root: JsonObject, segments: string[], value: string): void {
	const append = segments[segments.length - 1] === '';
	const path = append ? segments.slice(0, -1) : segments;
	let node: JsonObject = root;
	for (const segment of path.slice(0, -1)) {
		const existing = ownEntry(node, segment);
		if (existing === undefined) {
			const child: JsonObject = {};
			node[segment] = child;
			node = child;
		} else if (typeof existing === 'object' && existing !== null && !Array.isArray(existing)) {
			node = existing as JsonObject;
		} else {
			return;
		}
	}
	const last = path[path.length - 1];
	const existing = ownEntry(node, last);
	if (existing === undefined) node[last] = append ? [value] : value;
	else if (Array.isArray(existing)) existing.push(value);
	else if (typeof existing === 'string') node[last] = [existing, value];
}

function ownEntry(node: JsonObject, key: string): unknown {
	return Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
}
