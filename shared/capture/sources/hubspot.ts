import { createDraft, putFirst, type CaptureDraft } from '../draft';
import { echo, isObject, ownArray, ownValue, readText, type JsonObject } from '../values';

/** The properties whose changes are a lead's stages: a deal's stage, a contact's lifecycle stage. */
export const HUBSPOT_STAGE_PROPERTIES: Readonly<Record<string, string>> = {
	dealstage: 'deal',
	lifecyclestage: 'contact',
};

/**
 * HubSpot webhooks (developers.hubspot.com/docs/api/webhooks, "Webhooks API" payloads): HubSpot
 * POSTs a JSON array of events, batched, even for one: `[{ eventId, subscriptionId, portalId,
 * appId, occurredAt (epoch ms), subscriptionType, attemptNumber, objectId, propertyName,
 * propertyValue, changeSource }]`. The body parser hands the array over as `{ events: [...] }`.
 *
 * Captured: property changes of `dealstage` (subscriptionType `deal.propertyChange`) and
 * `lifecyclestage` (`contact.propertyChange`), or the generic `object.propertyChange` with the
 * same property names. Each becomes a stage of the lead: record_id = objectId (the deal or
 * contact id: the lead's record_id must be that id for its stages to line up), stage =
 * propertyValue (HubSpot's internal stage value, e.g. `closedwon`, `salesqualifiedlead`),
 * stage_at = occurred_at = occurredAt. Other events are ignored. HubSpot carries no contact data
 * in these events: the record has no identity, which a stage does not need (docs/stages.md).
 *
 * Every stage change of a batch is its own record, oldest first (by occurredAt; the batch order
 * breaks ties), as HubSpot does not promise its batches are in time order (UNCONFIRMED: its
 * documents are silent). The senders deduplicate per (record, stage) as for any item.
 */

/** One element of a batch: its position in the request, and the event or why it is not one. */
export type HubSpotChange =
	| { index: number; kind: 'change'; event: JsonObject }
	| { index: number; kind: 'refused'; reason: string };

/** The stage changes of a batch in time order, the malformed elements refused, or why none. */
export function hubspotStageChanges(
	body: JsonObject,
):
	| { kind: 'changes'; changes: HubSpotChange[] }
	| { kind: 'ignored'; reason: string }
	| { kind: 'invalid'; status: 400; reason: string } {
	const events = ownArray(body, 'events');
	if (events.length === 0) {
		return { kind: 'invalid', status: 400, reason: 'malformed HubSpot body: no events array' };
	}
	if (!events.some(isObject)) {
		return {
			kind: 'invalid',
			status: 400,
			reason: 'malformed HubSpot body: no event objects in the array',
		};
	}
	const changes: HubSpotChange[] = [];
	events.forEach((event, index) => {
		if (!isObject(event)) {
			changes.push({ index, kind: 'refused', reason: `not an event object (${kindOf(event)})` });
		} else if (isStageChange(event)) {
			changes.push({ index, kind: 'change', event });
		}
	});
	if (!changes.some((c) => c.kind === 'change')) {
		const type = ownValue(events.find(isObject), 'subscriptionType');
		return {
			kind: 'ignored',
			reason: `hubspot event ${echo(type)} is not a deal stage or lifecycle stage change`,
		};
	}
	return { kind: 'changes', changes: inTimeOrder(changes) };
}

/** Stage changes by occurredAt (a missing or unreadable time keeps its batch position last). */
function inTimeOrder(changes: HubSpotChange[]): HubSpotChange[] {
	const time = (c: HubSpotChange) => {
		const raw = c.kind === 'change' ? readText(ownValue(c.event, 'occurredAt')) : undefined;
		const value = raw === undefined ? NaN : Number(raw);
		return Number.isFinite(value) ? value : Number.POSITIVE_INFINITY;
	};
	return changes
		.map((c) => ({ c, t: time(c) }))
		.sort((a, b) => (a.t === b.t ? a.c.index - b.c.index : a.t < b.t ? -1 : 1))
		.map(({ c }) => c);
}

/** The draft of one stage change: the lead's record id, its stage and the stage's time. */
export function hubspotDraft(event: JsonObject): CaptureDraft {
	const draft = createDraft();
	const property = String(ownValue(event, 'propertyName'));
	draft.recordId = { value: ownValue(event, 'objectId'), from: 'objectId' };
	draft.occurredAt = ownValue(event, 'occurredAt');
	draft.stage.stage = readText(ownValue(event, 'propertyValue'));
	draft.stage.stage_at = ownValue(event, 'occurredAt');
	putFirst(draft, 'attributes', 'hubspot_object', HUBSPOT_STAGE_PROPERTIES[property]);
	putFirst(draft, 'attributes', 'hubspot_property', property);
	putFirst(draft, 'attributes', 'hubspot_portal_id', readText(ownValue(event, 'portalId')));
	putFirst(draft, 'attributes', 'hubspot_change_source', readText(ownValue(event, 'changeSource')));
	putFirst(draft, 'attributes', 'hubspot_event_id', readText(ownValue(event, 'eventId')));
	return draft;
}

/** Why a stage change cannot be a stage record before assembly, or undefined. */
export function hubspotChangeProblem(event: JsonObject): string | undefined {
	if (readText(ownValue(event, 'propertyValue')) === undefined) {
		return 'propertyValue (the stage) is missing or empty';
	}
	return undefined;
}

/** What a non-object element is, never its content (it may be anything a sender put there). */
function kindOf(value: unknown): string {
	if (value === null) return 'null';
	return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

function isStageChange(event: JsonObject): boolean {
	const type = readText(ownValue(event, 'subscriptionType')) ?? '';
	const property = readText(ownValue(event, 'propertyName')) ?? '';
	if (!(property in HUBSPOT_STAGE_PROPERTIES)) return false;
	if (type === 'object.propertyChange') return true;
	return type === `${HUBSPOT_STAGE_PROPERTIES[property]}.propertyChange`;
}
