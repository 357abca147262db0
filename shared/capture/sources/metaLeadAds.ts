import type { LeadRecord } from '../../types';

/**
 * Leads from Meta's instant forms as n8n's built-in Facebook Lead Ads Trigger outputs them
 * (n8n-nodes-base FacebookLeadAdsTrigger, read in n8n 1.123.81):
 *  - simplified (the default): `{ id, data: { <question>: <first answer> }, form: { id, name, … },
 *    ad: { id, name }, adset: { id, name }, page, created_time }`;
 *  - raw: the same with `field_data: [{ name, values: [] }]` instead of `data`, and `event`.
 * `id` is Meta's lead id (the webhook's leadgen_id) and `created_time` the lead's creation time.
 * The record carries both: record_id and attributes.meta_lead_id = the lead id, occurred_at =
 * created_time, so the lead and its later CRM stages reach Meta's Conversion Leads by lead id.
 */

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Meta's standard instant-form questions → lead record contact fields. */
const CONTACT_QUESTIONS: Readonly<Record<string, string>> = {
	email: 'email',
	work_email: 'email',
	phone_number: 'phone',
	work_phone_number: 'phone',
	first_name: 'first_name',
	last_name: 'last_name',
	city: 'city',
	state: 'region',
	province: 'region',
	zip_code: 'postal_code',
	post_code: 'postal_code',
	country: 'country',
	date_of_birth: 'date_of_birth',
	gender: 'gender',
};

/** True for the Facebook Lead Ads Trigger's output item (not a canonical lead record). */
export function isFacebookLeadAdsItem(json: unknown): json is Record<string, unknown> {
	if (!isObject(json)) return false;
	return (
		typeof json.id === 'string' &&
		/^\d+$/.test(json.id) &&
		typeof json.created_time === 'string' &&
		isObject(json.form) &&
		(isObject(json.data) || Array.isArray(json.field_data)) &&
		json.contact === undefined &&
		json.record_id === undefined
	);
}

/** The answers, one value per question: simplified `data`, or the raw `field_data`. */
function answers(json: Record<string, unknown>): Array<[string, unknown]> {
	if (isObject(json.data)) return Object.entries(json.data);
	const out: Array<[string, unknown]> = [];
	for (const field of json.field_data as unknown[]) {
		if (!isObject(field) || typeof field.name !== 'string') continue;
		const values = Array.isArray(field.values) ? field.values : [];
		out.push([field.name, values.length > 0 ? values[0] : undefined]);
	}
	return out;
}

function idOf(value: unknown): string | undefined {
	return isObject(value) && typeof value.id === 'string' && value.id !== '' ? value.id : undefined;
}

/** The canonical lead record of one Facebook Lead Ads Trigger item. */
export function fromFacebookLeadAdsItem(json: Record<string, unknown>): LeadRecord {
	const leadId = json.id as string;
	const contact: Record<string, unknown> = {};
	const attributes: Record<string, unknown> = { meta_lead_id: leadId };
	for (const [question, answer] of answers(json)) {
		if (answer === undefined || answer === null || answer === '') continue;
		const field = CONTACT_QUESTIONS[question.toLowerCase()];
		if (field && contact[field] === undefined) contact[field] = answer;
		else attributes[question] = answer;
	}
	const form = json.form as Record<string, unknown>;
	if (typeof form.name === 'string' && form.name) attributes.meta_form_name = form.name;
	const ad = idOf(json.ad);
	if (ad) attributes.meta_ad_id = ad;
	const adset = idOf(json.adset);
	if (adset) attributes.meta_adset_id = adset;
	const page = idOf(json.page);
	if (page) attributes.meta_page_id = page;
	const record: LeadRecord = {
		record_id: leadId,
		state: 'lead',
		occurred_at: json.created_time,
		source: { kind: 'metaLeadAds', ...(idOf(form) ? { form_id: idOf(form) } : {}) },
		attributes,
	};
	if (Object.keys(contact).length > 0) record.contact = contact;
	// A stage set on the item (an Edit Fields node after the trigger) is kept: a CRM stage event.
	if (json.stage !== undefined) record.stage = json.stage;
	if (json.stage_at !== undefined) record.stage_at = json.stage_at;
	return record;
}
