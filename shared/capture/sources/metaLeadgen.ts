import { createHash, timingSafeEqual } from 'node:crypto';
import { createDraft, putFirst, type CaptureDraft } from '../draft';
import { isObject, ownArray, ownValue, readText, type JsonObject } from '../values';

/**
 * Meta's Lead Ads webhook (Graph API Webhooks, object `page`, field `leadgen`;
 * developers.facebook.com/docs/graph-api/webhooks/getting-started/webhooks-for-leadgen):
 * `{ object: 'page', entry: [{ id, time, changes: [{ field: 'leadgen', value: { leadgen_id,
 * page_id, form_id, ad_id, adgroup_id, created_time } }] }] }`. One delivery may carry several
 * changes (Meta batches them); each is a lead. The webhook carries ids, not the answers: the
 * record has Meta's lead id (record_id and attributes.meta_lead_id) and creation time, which is
 * what Conversion Leads matches on; the answers are read from the Graph API (n8n's Facebook
 * Lead Ads Trigger does that) when a platform needs email or phone.
 */

/** The leadgen changes of a delivery, or why there are none. */
export function leadgenChanges(
	body: JsonObject,
): { kind: 'changes'; values: JsonObject[] } | { kind: 'ignored'; reason: string } {
	if (ownValue(body, 'object') !== 'page') {
		return { kind: 'ignored', reason: 'not a Page webhook (object is not "page")' };
	}
	const values: JsonObject[] = [];
	for (const entry of ownArray(body, 'entry')) {
		for (const change of ownArray(entry, 'changes')) {
			if (ownValue(change, 'field') !== 'leadgen') continue;
			const value = ownValue(change, 'value');
			if (isObject(value)) values.push(value);
		}
	}
	if (values.length === 0) return { kind: 'ignored', reason: 'no leadgen change in this delivery' };
	return { kind: 'changes', values };
}

/** Ids arrive as strings or numbers; a number beyond exact integers has lost digits. */
function idText(value: unknown): string | undefined {
	if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
	return readText(value);
}

/** The draft of one leadgen change: a lead with Meta's lead id, form, page and ad. */
export function leadgenDraft(value: JsonObject): CaptureDraft {
	const draft = createDraft();
	draft.presetState = 'lead';
	const leadId = idText(ownValue(value, 'leadgen_id'));
	draft.recordId = { value: leadId, from: 'entry[].changes[].value.leadgen_id' };
	if (leadId === undefined && ownValue(value, 'leadgen_id') !== undefined) {
		draft.warnings.push('leadgen_id: a number too large to be exact; Meta sends it as a string');
	}
	draft.occurredAt = ownValue(value, 'created_time');
	putFirst(draft, 'source', 'form_id', idText(ownValue(value, 'form_id')));
	putFirst(draft, 'attributes', 'meta_lead_id', leadId);
	putFirst(draft, 'attributes', 'meta_page_id', idText(ownValue(value, 'page_id')));
	putFirst(draft, 'attributes', 'meta_ad_id', idText(ownValue(value, 'ad_id')));
	putFirst(draft, 'attributes', 'meta_adgroup_id', idText(ownValue(value, 'adgroup_id')));
	return draft;
}

/**
 * The answer to Meta's subscription check (Graph API Webhooks, "Verification Requests"): a GET
 * with `hub.mode=subscribe`, `hub.verify_token` (the token typed into the app dashboard) and
 * `hub.challenge`, answered with the challenge when the token matches, else 403. Tokens are
 * compared as SHA-256 digests in constant time; the token itself is never echoed.
 */
export function leadgenVerification(
	query: Record<string, unknown>,
	verifyToken: string | undefined,
): { status: 200 | 403; body: string } | null {
	const mode = query['hub.mode'];
	if (mode === undefined && query['hub.challenge'] === undefined) return null;
	if (!verifyToken) {
		return { status: 403, body: 'verification refused: no Verify Token is set on this trigger' };
	}
	const given = typeof query['hub.verify_token'] === 'string' ? query['hub.verify_token'] : '';
	const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
	const challenge = typeof query['hub.challenge'] === 'string' ? query['hub.challenge'] : '';
	if (mode !== 'subscribe' || !timingSafeEqual(digest(given), digest(verifyToken)) || !challenge) {
		return {
			status: 403,
			body: 'verification refused: hub.mode or hub.verify_token does not match',
		};
	}
	return { status: 200, body: challenge };
}
