/**
 * The canonical lead record: the contract between the capture trigger, the rule filter, the
 * identity normalizer and every sender (see DESIGN.md). Field names are snake_case; absent
 * values are omitted, never empty strings. Inputs are typed loosely (`unknown`) because they
 * arrive from webhooks and user expressions; the identity module is what gives them shape.
 */
export type LeadState = 'partial' | 'lead' | 'contact' | 'schedule' | 'registration' | 'purchase';

export const LEAD_STATES: readonly LeadState[] = [
	'partial',
	'lead',
	'contact',
	'schedule',
	'registration',
	'purchase',
];

export type Platform = 'meta' | 'pinterest' | 'tiktok' | 'google' | 'microsoft';

export const PLATFORMS: readonly Platform[] = ['meta', 'pinterest', 'tiktok', 'google', 'microsoft'];

/** A value as it may arrive: a scalar, or several values for multi-value fields. */
export type RawValue = unknown;

export interface LeadContact {
	email?: RawValue;
	phone?: RawValue;
	first_name?: RawValue;
	last_name?: RawValue;
	city?: RawValue;
	region?: RawValue;
	postal_code?: RawValue;
	country?: RawValue;
	gender?: RawValue;
	date_of_birth?: RawValue;
	external_id?: RawValue;
}

export interface LeadClick {
	fbclid?: RawValue;
	fbc?: RawValue;
	fbp?: RawValue;
	gclid?: RawValue;
	gbraid?: RawValue;
	wbraid?: RawValue;
	ttclid?: RawValue;
	ttp?: RawValue;
	msclkid?: RawValue;
	epik?: RawValue;
	/** When the click was first seen (ISO-8601 or epoch ms); used as the fbc creation time. */
	clicked_at?: RawValue;
}

export interface LeadClient {
	ip?: RawValue;
	user_agent?: RawValue;
	/** Visitor geography (from the request), a fallback for phone parsing. */
	country?: RawValue;
	region?: RawValue;
}

export interface LeadSource {
	kind?: RawValue;
	form_id?: RawValue;
	page_url?: RawValue;
	referrer?: RawValue;
}

export interface LeadValue {
	amount?: RawValue;
	currency?: RawValue;
}

export interface LeadConsent {
	ad_user_data?: RawValue;
	ad_personalization?: RawValue;
	limited_data_use?: RawValue;
}

export interface LeadRecord {
	record_id?: RawValue;
	state?: RawValue;
	occurred_at?: RawValue;
	/**
	 * A later stage of the lead (docs/stages.md): the CRM's stage name (`qualified`, `won`), sent
	 * as the event of that name. The record keeps the `record_id` of the lead it belongs to.
	 */
	stage?: RawValue;
	/** When the lead reached the stage (ISO-8601 or epoch); the event time of a stage event. */
	stage_at?: RawValue;
	/** When the lead itself was created (its first capture); the stage ledger keeps it too. */
	lead_created_at?: RawValue;
	/** The stage before this one, when the CRM says (else the stage ledger's last stage). */
	previous_stage?: RawValue;
	source?: LeadSource;
	contact?: LeadContact;
	click?: LeadClick;
	client?: LeadClient;
	value?: LeadValue;
	consent?: LeadConsent;
	attributes?: Record<string, unknown>;
}
