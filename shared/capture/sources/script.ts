import { readEpochMs } from '../../identity';
import { applyEntries, utmAttributeKey, type FieldEntry } from '../detect';
import { createDraft, putFirst, type SourceResult } from '../draft';
import { browserRecordId, CAPTURE_ID_PATTERN } from '../recordId';
import { SCRIPT_PROTOCOL_VERSION } from '../scriptProtocol';
import { echo, ownObject, ownValue, readText, type JsonObject } from '../values';

/** Click and cookie values the script reports, as ScriptCapturePayload['click'] names them. */
const SCRIPT_CLICK_KEYS = [
	'fbclid',
	'fbc',
	'fbp',
	'ttclid',
	'ttp',
	'gclid',
	'gbraid',
	'wbraid',
	'msclkid',
	'epik',
];

/**
 * The project's capture script (scriptProtocol.ts, version 1). `partial` → state partial,
 * `submit` → state lead; record_id = `browser:` + capture_id (recordId.ts: ids by origin), so the
 * partial and the completed capture of one form fill share it and no signed or server-side
 * record ever does. Fields go through the same detection as generic bodies (a `name` is split
 * when no first/last name is given); utm → attributes; click.fbclid_at → click.clicked_at (ISO).
 *
 * occurred_at is the server's receipt time, never the visitor's clock (`ts`): a wrong or
 * tampered browser clock must not move an event in or out of a platform's window. `ts` is not
 * kept — nothing downstream reads it.
 */
export function mapScript(body: JsonObject): SourceResult {
	const version = ownValue(body, 'v');
	if (version !== SCRIPT_PROTOCOL_VERSION) {
		return malformed(
			`unsupported protocol version ${echo(typeof version === 'number' ? String(version) : version)}`,
		);
	}
	const type = ownValue(body, 'type');
	if (type !== 'partial' && type !== 'submit')
		return malformed('type must be "partial" or "submit"');

	const draft = createDraft();
	draft.presetState = type === 'partial' ? 'partial' : 'lead';
	const captureId = ownValue(body, 'capture_id');
	if (typeof captureId === 'string' && CAPTURE_ID_PATTERN.test(captureId)) {
		draft.recordId = { value: browserRecordId(captureId), from: 'capture_id' };
	} else {
		draft.recordIdProblem = 'capture_id must be 8–100 characters of A–Z, a–z, 0–9, _ or -';
	}
	putFirst(draft, 'source', 'form_id', readText(ownValue(body, 'form_id')));
	const pageUrl = readText(ownValue(body, 'page_url'));
	putFirst(draft, 'source', 'page_url', pageUrl);
	putFirst(draft, 'source', 'referrer', readText(ownValue(body, 'referrer')));
	if (pageUrl !== undefined) draft.urls.push(pageUrl);

	const click = ownObject(body, 'click');
	for (const key of SCRIPT_CLICK_KEYS)
		putFirst(draft, 'click', key, readText(ownValue(click, key)));
	const firstSeen = readEpochMs(ownValue(click, 'fbclid_at'));
	if (draft.click.fbclid !== undefined && firstSeen !== null) {
		putFirst(draft, 'click', 'clicked_at', new Date(firstSeen).toISOString());
	}
	for (const [key, value] of Object.entries(ownObject(body, 'utm'))) {
		const attribute = utmAttributeKey(key);
		if (attribute !== null) putFirst(draft, 'attributes', attribute, readText(value));
	}
	const fields = Object.entries(ownObject(body, 'fields')).map(
		([key, value]): FieldEntry => ({ key, value }),
	);
	applyEntries(draft, fields, { attributes: true });
	// Server time only (see above), even if a form field is called occurred_at.
	draft.occurredAt = undefined;
	return { kind: 'draft', draft };
}

function malformed(detail: string): SourceResult {
	return { kind: 'invalid', status: 400, reason: `malformed script capture: ${detail}` };
}
