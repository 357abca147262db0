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
 * Calendly v2 webhooks (developer.calendly.com, webhook subscriptions; the invitee resource):
 * `{ event: 'invitee.created' | 'invitee.canceled' | …, created_at, created_by, payload: { uri,
 * email, name, first_name, last_name, text_reminder_number, timezone, created_at, old_invitee,
 * questions_and_answers: [{ question, answer, position }], tracking: { utm_campaign, utm_source,
 * utm_medium, utm_content, utm_term, salesforce_uuid }, scheduled_event: { uri, name,
 * start_time, end_time, event_type } } }`.
 *
 * invitee.created → state schedule; every other event (invitee.canceled, no-shows, routing
 * forms) is ignored. record_id = payload.uri (the invitee). A reschedule arrives as a new
 * invitee (new uri, `old_invitee` set): it is captured as its own booking with
 * attributes.rescheduled = true, so a rule can leave reschedules out. source.form_id = the
 * event type URI (UNCONFIRMED that every payload carries scheduled_event.event_type).
 */
export function mapCalendly(body: JsonObject): SourceResult {
	const event = ownValue(body, 'event');
	if (event !== 'invitee.created') {
		return {
			kind: 'ignored',
			reason: `calendly event ${echo(event)} is not captured (only invitee.created)`,
		};
	}
	const invitee = ownValue(body, 'payload');
	if (!isObject(invitee)) {
		return {
			kind: 'invalid',
			status: 400,
			reason: 'malformed Calendly body: payload is not an object',
		};
	}
	const draft = createDraft();
	draft.presetState = 'schedule';
	draft.recordId = { value: ownValue(invitee, 'uri'), from: 'payload.uri' };
	draft.occurredAt = ownValue(invitee, 'created_at') ?? ownValue(body, 'created_at');
	const scheduled = ownObject(invitee, 'scheduled_event');
	putFirst(draft, 'source', 'form_id', readText(ownValue(scheduled, 'event_type')));

	const entries: FieldEntry[] = [
		{
			key: 'email',
			value: ownValue(invitee, 'email'),
			hint: { section: 'contact', field: 'email' },
		},
		{
			key: 'text_reminder_number',
			value: ownValue(invitee, 'text_reminder_number'),
			hint: { section: 'contact', field: 'phone' },
		},
		{ key: 'first_name', value: ownValue(invitee, 'first_name') },
		{ key: 'last_name', value: ownValue(invitee, 'last_name') },
		{ key: 'name', value: ownValue(invitee, 'name') },
		...ownArray(invitee, 'questions_and_answers').map((item): FieldEntry => {
			const question = readText(ownValue(item, 'question')) ?? '';
			return { key: question, label: question, value: ownValue(item, 'answer') };
		}),
		...Object.entries(ownObject(invitee, 'tracking')).map(
			([key, value]): FieldEntry => ({ key, value }),
		),
	];
	applyEntries(draft, entries, { attributes: true });
	putFirst(draft, 'attributes', 'scheduled_start', readText(ownValue(scheduled, 'start_time')));
	putFirst(draft, 'attributes', 'event_name', readText(ownValue(scheduled, 'name')));
	putFirst(draft, 'attributes', 'timezone', readText(ownValue(invitee, 'timezone')));
	if (readText(ownValue(invitee, 'old_invitee')) !== undefined) {
		putFirst(draft, 'attributes', 'rescheduled', true);
	}
	return { kind: 'draft', draft };
}
