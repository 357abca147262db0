import type { EventTimeWindow } from '../../events/eventTime';
import type { LeadState } from '../../types';
import type { ResendDedup } from '../contract';

/** Meta Conversions API facts (../shared/docs/platforms.md §1), in one place. */
export const META_GRAPH_BASE_URL = 'https://graph.facebook.com';
/** The newest Graph API version in platforms.md (Node Business SDK, Aug 2026). */
export const META_DEFAULT_API_VERSION = 'v26.0';
export const META_MAX_EVENTS_PER_REQUEST = 1000;
/**
 * "The event_time can be up to 7 days before you send an event… If any event_time in data is
 * greater than 7 days in the past, we return an error for the entire request" (Meta, Conversions
 * API → Server Event Parameters). Documented, so Clamp to Window may apply.
 */
export const META_EVENT_WINDOW_SECONDS = 7 * 24 * 3600;
export const META_EVENT_TIME_WINDOW: EventTimeWindow = {
	platform: 'Meta',
	seconds: META_EVENT_WINDOW_SECONDS,
	basis: 'documented',
};
/** Meta recommends a 1.5 s client timeout; we allow more for 1,000-event batches. */
export const META_REQUEST_TIMEOUT_MS = 10_000;
export const META_DEFAULT_PARTNER_AGENT = 'n8n-nodes-lead-capi';

export const META_ACTION_SOURCES = [
	'website',
	'system_generated',
	'email',
	'phone_call',
	'chat',
	'physical_store',
	'app',
	'business_messaging',
	'other',
] as const;
export type MetaActionSource = (typeof META_ACTION_SOURCES)[number];

export const META_STANDARD_EVENTS = [
	'Lead',
	'Contact',
	'Schedule',
	'CompleteRegistration',
	'Purchase',
	'SubmitApplication',
	'StartTrial',
	'Subscribe',
] as const;

/**
 * One event name per canonical state. Partial leads get their own custom event so they never
 * count as completed leads.
 */
export const META_EVENT_BY_STATE: Readonly<Record<LeadState, string>> = {
	partial: 'PartialLead',
	lead: 'Lead',
	contact: 'Contact',
	schedule: 'Schedule',
	registration: 'CompleteRegistration',
	purchase: 'Purchase',
};

/** California in Meta's data_processing_options_state. */
export const META_LDU_STATE_CALIFORNIA = 1000;
export const META_LDU_COUNTRY_US = 1;

/**
 * Conversion Leads (CRM) events: `custom_data.event_source`, and Meta's lead id, read from
 * `attributes.meta_lead_id` — 15 to 17 digits ("the 15–17 digit Meta Lead ID", Meta's CRM
 * integration guide, step 1).
 */
export const META_CRM_EVENT_SOURCE = 'crm';
export const META_LEAD_ID_ATTRIBUTE = 'meta_lead_id';
export const META_LEAD_ID_PATTERN = /^\d{15,17}$/;

/**
 * Whether Meta drops a resend of a server event with the same event_id (what makes resending
 * after an unknown outcome safe). UNCONFIRMED: Meta documents event_id + event_name dedup
 * between the pixel/app and the Conversions API within 48 h, not between two server events
 * (docs/dedup.md#unknown-outcomes). So: no.
 */
export const META_RESEND_DEDUP: ResendDedup = {
	dedups: false,
	note: 'Meta documents event_id + event_name deduplication between the pixel and the Conversions API, not between two server events (UNCONFIRMED)',
};
