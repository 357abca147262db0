import { createHash } from 'node:crypto';

import { readRecordId, recordIdProblem } from '../events';
import { isObject, normalizeKey, type JsonObject } from './values';

/**
 * Record ids: read from the source (submission id, booking uid, capture id), detected in generic
 * bodies, or — only when switched on — derived deterministically from the form and the lead's
 * identity. Never random, never time-based, never an execution id.
 */

/** Generic bodies: keys tried in this order, at the root first, then one level deep. */
export const RECORD_ID_KEYS: readonly string[] = [
	'record_id',
	'submission_id',
	'response_id',
	'lead_id',
	'entry_id',
	'uuid',
	'id',
];

/** Longer ids are not record ids but pasted content. */
export const MAX_RECORD_ID_LENGTH = 256;

export interface FoundRecordId {
	value: unknown;
	/** The dotted path it was read from. */
	from: string;
}

/**
 * The best record id key of a generic body: the earliest key of RECORD_ID_KEYS with a usable
 * value, the root beating nested objects for the same key.
 */
export function detectRecordId(
	body: JsonObject,
	excluded: ReadonlySet<string>,
): FoundRecordId | null {
	const candidates: Array<FoundRecordId & { key: string; depth: number }> = [];
	for (const [key, value] of Object.entries(body)) {
		candidates.push({ key, value, from: key, depth: 0 });
		if (!isObject(value)) continue;
		for (const [innerKey, innerValue] of Object.entries(value)) {
			candidates.push({ key: innerKey, value: innerValue, from: `${key}.${innerKey}`, depth: 1 });
		}
	}
	for (const idKey of RECORD_ID_KEYS) {
		for (const depth of [0, 1]) {
			const found = candidates.find(
				(candidate) =>
					candidate.depth === depth &&
					normalizeKey(candidate.key) === normalizeKey(idKey) &&
					!excluded.has(candidate.from) &&
					readRecordId(candidate.value) !== null,
			);
			if (found !== undefined) return { value: found.value, from: found.from };
		}
	}
	return null;
}

/**
 * A usable record id (trimmed string; numbers JavaScript holds exactly, stringified), or why not.
 * Bodies keep big JSON integers as their exact digits (body.ts), so an unsafe number only comes
 * from elsewhere (a mapped field, a preset); it is refused rather than collide with its neighbours.
 */
export function validateRecordId(raw: unknown): { id: string } | { problem: string } {
	const id = readRecordId(raw);
	if (id === null) {
		const problem = recordIdProblem(raw) ?? '';
		return {
			problem: problem.startsWith('record id ')
				? problem.slice('record id '.length)
				: 'is missing, empty or not text',
		};
	}
	if (id.length > MAX_RECORD_ID_LENGTH) {
		return { problem: `is longer than ${MAX_RECORD_ID_LENGTH} characters` };
	}
	return { id };
}

/**
 * The derived record id, exactly:
 *
 *   record_id = 'derived:' + sha256_hex(form_id + '|' + identity)
 *
 * where `form_id` is the record's source.form_id (from the body, else the node's Form ID) and
 * `identity` is the canonical email (trimmed, lowercased: identity/email.ts) when the lead has a
 * valid email, else the canonical phone in E.164 with `+` (identity/phone.ts). An identity that
 * arrived as a SHA-256 is used as that (lowercase) digest. Same form and same person → same id;
 * another form → another id.
 */
export function deriveRecordId(formId: string, identity: string): string {
	const digest = createHash('sha256').update(`${formId}|${identity}`, 'utf8').digest('hex');
	return `derived:${digest}`;
}

/** The script's capture id: 8–100 characters of A–Z, a–z, 0–9, `_` and `-`. */
export const CAPTURE_ID_PATTERN = /^[A-Za-z0-9_-]{8,100}$/;

/**
 * Record ids by origin (docs/lead-record.md#record-ids-by-origin). The capture endpoint is public,
 * so a capture id is whatever a stranger posts; the record id of a browser capture is
 *
 *   record_id = 'browser:' + capture_id
 *
 * and no other source of the trigger may give an id that starts with `browser:` (refused, 422).
 * So a browser capture can never take the event id or the stage ledger of a record a signed
 * form tool or a CRM owns: the event id contract (sha256 of destination, event and record id)
 * is unchanged, the record id itself carries its origin.
 */
export const BROWSER_RECORD_ID_PREFIX = 'browser:';

/** The record id of the script's capture `captureId` (already matched by CAPTURE_ID_PATTERN). */
export function browserRecordId(captureId: string): string {
	return `${BROWSER_RECORD_ID_PREFIX}${captureId}`;
}

/** Why a server-side source's record id cannot be used: it claims the browser's namespace. */
export function serverRecordIdProblem(id: string): string | undefined {
	return id.startsWith(BROWSER_RECORD_ID_PREFIX)
		? `starts with "${BROWSER_RECORD_ID_PREFIX}", which only the capture script's ids carry (a browser capture must never share a record with a signed or server-side source)`
		: undefined;
}
