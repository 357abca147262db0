import type { LeadState } from '../../types';

/** Meta Conversions API facts (../shared/docs/platforms.md §1), in one place. */
export const META_GRAPH_BASE_URL = 'https://graph.facebook.com';
/** The newest Graph API version in platforms.md (Node Business SDK, Aug 2026). */
export const META_DEFAULT_API_VERSION = 'v26.0';
export const META_MAX_EVENTS_PER_REQUEST = 1000;
/** event_time older than 7 days fails the whole request. */
export const META_EVENT_WINDOW_SECONDS = 7 * 24 * 3600;
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
 * Whether Meta drops a resend of a server event with the same event_id (what makes resending
 * after an unknown outcome safe). UNCONFIRMED: Meta documents event_id + event_name dedup
 * between the pixel/app and the Conversions API within 48 h, not between two server events
 * (docs/dedup.md#unknown-outcomes). So: no.
 */
export const META_DROPS_RESENT_EVENT_ID = false;
