import { readClientKey } from '../clientKey';
import { hashSha256 } from '../identity/hash';

/**
 * The one event id formula (DESIGN.md principle 3): lowercase hex SHA-256 of
 * `destinationId|eventName|recordId`, and with an agency's Client Key
 * `client:<clientKey>|destinationId|eventName|recordId`. The destination is the pixel / dataset /
 * ad account / UET tag / conversion action the event goes to; the record id comes from the
 * business record. Same lead, same event, same destination (and same client) → same id, from every
 * code path, on every retry. Two clients sharing a pixel get different ids for the same record id,
 * so the platform does not drop one client's events as duplicates of the other's.
 */
export function deriveEventId(
	destinationId: string,
	eventName: string,
	recordId: string,
	clientKey?: string,
): string {
	if (!destinationId) throw new Error('deriveEventId: destinationId is empty');
	if (!eventName) throw new Error('deriveEventId: eventName is empty');
	if (!recordId) throw new Error('deriveEventId: recordId is empty');
	const client = readClientKey(clientKey);
	const parts = `${destinationId}|${eventName}|${recordId}`;
	return hashSha256(client ? `client:${client}|${parts}` : parts);
}

/**
 * Reads a record id from the record: strings are trimmed, numbers JavaScript holds exactly are
 * stringified, anything else (missing, empty, objects, integers beyond 2^53 whose digits are
 * already lost) is `null` so the caller can fail the item: `recordIdProblem` says why.
 */
export function readRecordId(raw: unknown): string | null {
	if (typeof raw === 'number') return isExactNumber(raw) ? String(raw) : null;
	if (typeof raw === 'bigint') return raw.toString();
	if (typeof raw !== 'string') return null;
	const trimmed = raw.trim();
	return trimmed === '' ? null : trimmed;
}

/**
 * Why `raw` is not a record id, or null when it is one. An integer beyond 2^53 has already lost
 * its last digits (1234567890123456789 arrives as 1234567890123456800), so different records
 * would share one event id: such an id fails with this message instead of colliding.
 */
export function recordIdProblem(raw: unknown): string | null {
	if (readRecordId(raw) !== null) return null;
	if (typeof raw === 'number' && Number.isFinite(raw)) {
		const digits = raw.toLocaleString('en-US', { useGrouping: false });
		return `record id ${digits.length > 40 ? String(raw) : digits} is larger than JavaScript numbers hold exactly; send it as a string`;
	}
	return 'record id is missing, empty or not text';
}

/** Finite, and an integer only within ±2^53 − 1 (a larger one may have lost digits). */
function isExactNumber(n: number): boolean {
	return Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n));
}
