import { hashSha256 } from '../identity/hash';

/**
 * The one event id formula (DESIGN.md principle 3): lowercase hex SHA-256 of
 * `destinationId|eventName|recordId`. The destination is the pixel / dataset / ad account /
 * UET tag / conversion action the event goes to; the record id comes from the business record.
 * Same lead, same event, same destination → same id, from every code path, on every retry.
 */
export function deriveEventId(destinationId: string, eventName: string, recordId: string): string {
	if (!destinationId) throw new Error('deriveEventId: destinationId is empty');
	if (!eventName) throw new Error('deriveEventId: eventName is empty');
	if (!recordId) throw new Error('deriveEventId: recordId is empty');
	return hashSha256(`${destinationId}|${eventName}|${recordId}`);
}

/**
 * Reads a record id from the record: strings are trimmed, finite numbers are stringified, anything
 * else (missing, empty, objects) is `null` so the caller can fail the item with a clear message.
 */
export function readRecordId(raw: unknown): string | null {
	if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
	if (typeof raw === 'bigint') return raw.toString();
	if (typeof raw !== 'string') return null;
	const trimmed = raw.trim();
	return trimmed === '' ? null : trimmed;
}
