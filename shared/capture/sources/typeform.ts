import { applyEntries, type DetectionTarget, type FieldEntry } from '../detect';
import { createDraft, putFirst, type SourceResult } from '../draft';
import {
	echo,
	isObject,
	ownArray,
	ownObject,
	ownValue,
	readScalar,
	readText,
	type JsonObject,
} from '../values';

/**
 * Typeform `form_response` webhooks (typeform.com/developers/webhooks/example-payload):
 * `{ event_id, event_type: 'form_response', form_response: { form_id, token, submitted_at,
 * landed_at, hidden: {…}, calculated: { score }, variables: [{ key, type, <type>: value }],
 * definition: { id, fields: [{ id, ref, type, title }] }, answers: [{ type, <type>: value,
 * field: { id, ref, type } }] } }`.
 *
 * record_id = form_response.token (the response id); occurred_at = submitted_at. Answers typed
 * `email` / `phone_number` are the contact's; other answers are matched by their field ref, then
 * their question title; unmatched answers become attributes keyed by field ref. Hidden fields
 * (utm_*, fbclid, gclid, …) are detected like generic keys. UNCONFIRMED: whether Typeform sends
 * other event types (partial responses) to webhooks; any other event_type is ignored.
 */
export function mapTypeform(body: JsonObject): SourceResult {
	const eventType = ownValue(body, 'event_type');
	if (eventType !== 'form_response') {
		return { kind: 'ignored', reason: `typeform event_type ${echo(eventType)} is not captured` };
	}
	const response = ownValue(body, 'form_response');
	if (!isObject(response)) {
		return {
			kind: 'invalid',
			status: 400,
			reason: 'malformed Typeform body: form_response is not an object',
		};
	}
	const draft = createDraft();
	draft.presetState = 'lead';
	draft.recordId = { value: ownValue(response, 'token'), from: 'form_response.token' };
	draft.occurredAt = ownValue(response, 'submitted_at');
	const definition = ownObject(response, 'definition');
	putFirst(
		draft,
		'source',
		'form_id',
		readText(ownValue(response, 'form_id')) ?? readText(ownValue(definition, 'id')),
	);

	const hidden = Object.entries(ownObject(response, 'hidden')).map(
		([key, value]): FieldEntry => ({ key, value }),
	);
	applyEntries(draft, [...answerEntries(response, definition), ...hidden], { attributes: true });

	const score = readScalar(ownValue(ownObject(response, 'calculated'), 'score'));
	putFirst(draft, 'attributes', 'score', score);
	for (const variable of ownArray(response, 'variables')) {
		const key = readText(ownValue(variable, 'key'));
		const type = readText(ownValue(variable, 'type'));
		if (key !== undefined && type !== undefined) {
			putFirst(draft, 'attributes', key, readScalar(ownValue(variable, type)));
		}
	}
	return { kind: 'draft', draft };
}

const ANSWER_HINTS: Readonly<Record<string, DetectionTarget>> = {
	email: { section: 'contact', field: 'email' },
	phone_number: { section: 'contact', field: 'phone' },
};

/** Answer types whose value is no lead data (uploads, payments). */
const SKIPPED_ANSWER_TYPES = new Set(['file_url', 'payment']);

function answerEntries(response: JsonObject, definition: JsonObject): FieldEntry[] {
	const titles = new Map<string, string>();
	for (const field of ownArray(definition, 'fields')) {
		const id = readText(ownValue(field, 'id'));
		const title = readText(ownValue(field, 'title'));
		if (id !== undefined && title !== undefined) titles.set(id, title);
	}
	const entries: FieldEntry[] = [];
	for (const answer of ownArray(response, 'answers')) {
		if (!isObject(answer)) continue;
		const type = readText(ownValue(answer, 'type'));
		if (type === undefined || SKIPPED_ANSWER_TYPES.has(type)) continue;
		const field = ownObject(answer, 'field');
		const id = readText(ownValue(field, 'id'));
		const ref = readText(ownValue(field, 'ref')) ?? id;
		if (ref === undefined) continue;
		entries.push({
			key: ref,
			value: answerValue(answer, type),
			hint: ANSWER_HINTS[type] ?? ANSWER_HINTS[readText(ownValue(field, 'type')) ?? ''],
			label: id === undefined ? undefined : titles.get(id),
		});
	}
	return entries;
}

/** The value of an answer: `answer[type]`, with choices read as their labels. */
function answerValue(answer: JsonObject, type: string): unknown {
	const value = ownValue(answer, type);
	if (type === 'choice')
		return readText(ownValue(value, 'label')) ?? readText(ownValue(value, 'other'));
	if (type === 'choices') {
		const labels = ownArray(value, 'labels');
		const other = readText(ownValue(value, 'other'));
		return other === undefined ? labels : [...labels, other];
	}
	return value;
}
