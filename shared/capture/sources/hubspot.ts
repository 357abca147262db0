import { createDraft, putFirst, type SourceResult } from '../draft';
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
 * One capture makes one record: when a batch carries several stage changes, the latest one is
 * captured and the record warns how many others were not (UNCONFIRMED whether HubSpot can be
 * told to send one event per request; its batches hold up to 100 events).
 */
export function mapHubSpot(body: JsonObject): SourceResult {
	const events = ownArray(body, 'events').filter(isObject);
	if (events.length === 0) {
		return { kind: 'invalid', status: 400, reason: 'malformed HubSpot body: no events array' };
	}
	const stages = events.filter(isStageChange);
	if (stages.length === 0) {
		const type = ownValue(events[0], 'subscriptionType');
		return {
			kind: 'ignored',
			reason: `hubspot event ${echo(type)} is not a deal stage or lifecycle stage change`,
		};
	}
	const latest = stages.reduce((a, b) =>
		Number(ownValue(b, 'occurredAt')) > Number(ownValue(a, 'occurredAt')) ? b : a,
	);
	const draft = createDraft();
	const property = String(ownValue(latest, 'propertyName'));
	draft.recordId = { value: ownValue(latest, 'objectId'), from: 'objectId' };
	draft.occurredAt = ownValue(latest, 'occurredAt');
	draft.stage.stage = readText(ownValue(latest, 'propertyValue'));
	draft.stage.stage_at = ownValue(latest, 'occurredAt');
	putFirst(draft, 'attributes', 'hubspot_object', HUBSPOT_STAGE_PROPERTIES[property]);
	putFirst(draft, 'attributes', 'hubspot_property', property);
	putFirst(draft, 'attributes', 'hubspot_portal_id', readText(ownValue(latest, 'portalId')));
	putFirst(draft, 'attributes', 'hubspot_change_source', readText(ownValue(latest, 'changeSource')));
	if (stages.length > 1) {
		draft.warnings.push(
			`this HubSpot batch carried ${stages.length} stage changes: the latest (object ${readText(ownValue(latest, 'objectId')) ?? '?'}) was captured, ${stages.length - 1} not`,
		);
	}
	return { kind: 'draft', draft };
}

function isStageChange(event: JsonObject): boolean {
	const type = readText(ownValue(event, 'subscriptionType')) ?? '';
	const property = readText(ownValue(event, 'propertyName')) ?? '';
	if (!(property in HUBSPOT_STAGE_PROPERTIES)) return false;
	if (type === 'object.propertyChange') return true;
	return type === `${HUBSPOT_STAGE_PROPERTIES[property]}.propertyChange`;
}
