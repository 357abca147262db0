import { applyEntries, type DetectionTarget, type FieldEntry } from '../detect';
import { createDraft, putFirst, type SourceResult } from '../draft';
import { echo, isObject, ownArray, ownValue, readText, type JsonObject } from '../values';

/**
 * Tally `FORM_RESPONSE` webhooks (tally.so/help/webhooks, "Example webhook event"):
 * `{ eventId, eventType: 'FORM_RESPONSE', createdAt, data: { responseId, submissionId,
 * respondentId, formId, formName, createdAt, fields: [{ key, label, type, value, options? }] } }`.
 *
 * record_id = data.responseId (else data.submissionId); occurred_at = data.createdAt (else the
 * event's createdAt). INPUT_EMAIL / INPUT_PHONE_NUMBER fields are the contact's; HIDDEN_FIELDS
 * (label = the hidden field's name: utm_*, fbclid, …) are detected like generic keys; other
 * fields are matched by their label and otherwise become attributes keyed by label. Choice
 * values (option ids) are read as the options' texts.
 */
export function mapTally(body: JsonObject): SourceResult {
	const eventType = ownValue(body, 'eventType');
	if (eventType !== 'FORM_RESPONSE') {
		return { kind: 'ignored', reason: `tally eventType ${echo(eventType)} is not captured` };
	}
	const data = ownValue(body, 'data');
	if (!isObject(data)) {
		return { kind: 'invalid', status: 400, reason: 'malformed Tally body: data is not an object' };
	}
	const draft = createDraft();
	draft.presetState = 'lead';
	draft.recordId = readText(ownValue(data, 'responseId'))
		? { value: ownValue(data, 'responseId'), from: 'data.responseId' }
		: { value: ownValue(data, 'submissionId'), from: 'data.submissionId' };
	draft.occurredAt = ownValue(data, 'createdAt') ?? ownValue(body, 'createdAt');
	putFirst(draft, 'source', 'form_id', readText(ownValue(data, 'formId')));
	putFirst(draft, 'attributes', 'form_name', readText(ownValue(data, 'formName')));
	applyEntries(draft, fieldEntries(data), { attributes: true });
	return { kind: 'draft', draft };
}

const TYPE_HINTS: Readonly<Record<string, DetectionTarget>> = {
	INPUT_EMAIL: { section: 'contact', field: 'email' },
	INPUT_PHONE_NUMBER: { section: 'contact', field: 'phone' },
};

/** Field types whose value is no lead data. */
const SKIPPED_TYPES = new Set(['FILE_UPLOAD', 'SIGNATURE', 'PAYMENT']);

function fieldEntries(data: JsonObject): FieldEntry[] {
	const entries: FieldEntry[] = [];
	for (const field of ownArray(data, 'fields')) {
		if (!isObject(field)) continue;
		const type = readText(ownValue(field, 'type')) ?? '';
		const label = readText(ownValue(field, 'label')) ?? readText(ownValue(field, 'key'));
		if (label === undefined || SKIPPED_TYPES.has(type)) continue;
		const value = optionTexts(ownValue(field, 'value'), ownArray(field, 'options'));
		if (type === 'HIDDEN_FIELDS') entries.push({ key: label, value });
		else entries.push({ key: label, value, hint: TYPE_HINTS[type], label, attributeKey: label });
	}
	return entries;
}

/** Choice fields carry option ids; the texts are what a rule (and a person) reads. */
function optionTexts(value: unknown, options: unknown[]): unknown {
	if (options.length === 0) return value;
	const textById = new Map<string, string>();
	for (const option of options) {
		const id = readText(ownValue(option, 'id'));
		const text = readText(ownValue(option, 'text'));
		if (id !== undefined && text !== undefined) textById.set(id, text);
	}
	const read = (item: unknown) => (typeof item === 'string' ? (textById.get(item) ?? item) : item);
	return Array.isArray(value) ? value.map(read) : read(value);
}
