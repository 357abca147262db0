import { applyEntries, type FieldEntry } from '../detect';
import { createDraft, putFirst, type SourceResult } from '../draft';
import {
	echo,
	isObject,
	ownArray,
	ownObject,
	ownValue,
	readText,
	type JsonObject,
} from '../values';

/**
 * Cal.com webhooks (cal.com/docs/core-features/webhooks; sendPayload.ts builds
 * `{ triggerEvent, createdAt, payload }`): `payload: { uid, bookingId, eventTypeId, type,
 * title, startTime, endTime, attendees: [{ email, name, firstName, lastName, phoneNumber?,
 * timeZone }], responses: { name: { value }, email: { value }, attendeePhoneNumber: { value },
 * <custom slug>: { value } }, metadata: { … } }`.
 *
 * BOOKING_CREATED → state schedule; other triggers are ignored. record_id = payload.uid. The
 * first attendee is the booker; the booking form's responses fill what the attendee lacks (the
 * name response may be `{ firstName, lastName }`); custom responses are detected by their slug and
 * otherwise become attributes. utm_* and click ids are read from `metadata` (booking-page query
 * parameters) and `tracking` — UNCONFIRMED: where Cal.com puts utm parameters varies by version,
 * so both are read.
 */
export function mapCalcom(body: JsonObject): SourceResult {
	const trigger = ownValue(body, 'triggerEvent');
	if (trigger !== 'BOOKING_CREATED') {
		return {
			kind: 'ignored',
			reason: `cal.com triggerEvent ${echo(trigger)} is not captured (only BOOKING_CREATED)`,
		};
	}
	const booking = ownValue(body, 'payload');
	if (!isObject(booking)) {
		return {
			kind: 'invalid',
			status: 400,
			reason: 'malformed Cal.com body: payload is not an object',
		};
	}
	const draft = createDraft();
	draft.presetState = 'schedule';
	draft.recordId = { value: ownValue(booking, 'uid'), from: 'payload.uid' };
	draft.occurredAt = ownValue(body, 'createdAt');
	putFirst(
		draft,
		'source',
		'form_id',
		readText(ownValue(booking, 'eventTypeId')) ?? readText(ownValue(booking, 'type')),
	);

	const attendee = ownArray(booking, 'attendees').find(isObject) ?? {};
	const responses = ownObject(booking, 'responses');
	const entries: FieldEntry[] = [
		{
			key: 'email',
			value: ownValue(attendee, 'email'),
			hint: { section: 'contact', field: 'email' },
		},
		{
			key: 'phone',
			value: ownValue(attendee, 'phoneNumber'),
			hint: { section: 'contact', field: 'phone' },
		},
		{ key: 'first_name', value: ownValue(attendee, 'firstName') },
		{ key: 'last_name', value: ownValue(attendee, 'lastName') },
		{ key: 'name', value: ownValue(attendee, 'name') },
		...responseEntries(responses),
		...objectEntries(ownObject(booking, 'metadata')),
		...objectEntries(ownObject(booking, 'tracking')),
	];
	applyEntries(draft, entries, { attributes: true });
	putFirst(draft, 'attributes', 'scheduled_start', readText(ownValue(booking, 'startTime')));
	putFirst(draft, 'attributes', 'timezone', readText(ownValue(attendee, 'timeZone')));
	return { kind: 'draft', draft };
}

/** Booking-form answers that are no lead data (where, notes, guests, reschedule reason). */
const SYSTEM_RESPONSES = new Set(['location', 'notes', 'guests', 'rescheduleReason', 'title']);

function responseEntries(responses: JsonObject): FieldEntry[] {
	const entries: FieldEntry[] = [];
	for (const [slug, response] of Object.entries(responses)) {
		if (SYSTEM_RESPONSES.has(slug)) continue;
		const value = ownValue(response, 'value');
		if (slug === 'name' && isObject(value)) {
			entries.push({ key: 'first_name', value: ownValue(value, 'firstName') });
			entries.push({ key: 'last_name', value: ownValue(value, 'lastName') });
		} else if (slug === 'attendeePhoneNumber') {
			entries.push({ key: slug, value, hint: { section: 'contact', field: 'phone' } });
		} else {
			entries.push({ key: slug, value });
		}
	}
	return entries;
}

/**
 * Booking metadata and tracking go through detection (utm_*, click ids) and into attributes,
 * except the video call link.
 */
function objectEntries(object: JsonObject): FieldEntry[] {
	return Object.entries(object)
		.filter(([key]) => key !== 'videoCallUrl')
		.map(([key, value]): FieldEntry => ({ key, value }));
}
