import type { LeadRecord } from './types';

/**
 * Every field of the canonical lead record a user can map, as dotted paths. The order is the
 * order shown in the nodes' field pickers.
 */
export const LEAD_RECORD_FIELDS: readonly string[] = [
	'record_id',
	'state',
	'occurred_at',
	'stage',
	'stage_at',
	'lead_created_at',
	'previous_stage',
	'contact.email',
	'contact.phone',
	'contact.first_name',
	'contact.last_name',
	'contact.city',
	'contact.region',
	'contact.postal_code',
	'contact.country',
	'contact.gender',
	'contact.date_of_birth',
	'contact.external_id',
	'click.fbclid',
	'click.fbc',
	'click.fbp',
	'click.gclid',
	'click.gbraid',
	'click.wbraid',
	'click.ttclid',
	'click.ttp',
	'click.msclkid',
	'click.epik',
	'click.clicked_at',
	'client.ip',
	'client.user_agent',
	'client.country',
	'client.region',
	'source.kind',
	'source.form_id',
	'source.page_url',
	'source.referrer',
	'value.amount',
	'value.currency',
	'consent.ad_user_data',
	'consent.ad_personalization',
	'consent.limited_data_use',
];

const KNOWN = new Set(LEAD_RECORD_FIELDS);

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Returns a copy of `record` with mapped values set at their dotted paths (`contact.email`,
 * `attributes.utm_source`). Only the objects on the path are copied; the input is untouched.
 * Empty strings, null and undefined mean "no value" and remove the field (absent values are
 * omitted, never empty strings).
 */
export function withRecordFields(
	record: LeadRecord,
	fields: ReadonlyArray<{ path: string; value: unknown }>,
): LeadRecord {
	const out: Record<string, unknown> = { ...record };
	for (const { path, value } of fields) {
		const parts = path.split('.');
		if (parts.length === 0 || (!KNOWN.has(path) && parts[0] !== 'attributes')) {
			throw new Error(`unknown lead record field "${path}"`);
		}
		let parent = out;
		for (const part of parts.slice(0, -1)) {
			const next = parent[part];
			parent[part] = isObject(next) ? { ...next } : {};
			parent = parent[part] as Record<string, unknown>;
		}
		const leaf = parts[parts.length - 1];
		if (value === undefined || value === null || value === '') delete parent[leaf];
		else parent[leaf] = value;
	}
	return out as LeadRecord;
}
