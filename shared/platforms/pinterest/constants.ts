import type { EventTimeWindow } from '../../events/eventTime';
import type { LeadState } from '../../types';
import type { ResendDedup } from '../contract';

/** Pinterest Conversions API v5 facts (../shared/docs/platforms.md §2), in one place. */
export const PINTEREST_API_BASE_URL = 'https://api.pinterest.com';
/** `data`: 1..1000 events (`minItems`/`maxItems` in the official OpenAPI spec). */
export const PINTEREST_MAX_EVENTS_PER_REQUEST = 1000;
/**
 * Oldest event Pinterest accepts. UNCONFIRMED: Pinterest's OpenAPI and conversions guide state
 * no window (event_time is only "Unix timestamp in seconds"); a third party (Amperity) says 7
 * days. Older events are skipped, never clamped (docs/platforms/pinterest.md).
 */
export const PINTEREST_EVENT_WINDOW_SECONDS = 7 * 24 * 3600;
export const PINTEREST_EVENT_TIME_WINDOW: EventTimeWindow = {
	platform: 'Pinterest',
	seconds: PINTEREST_EVENT_WINDOW_SECONDS,
	basis: 'unconfirmed',
};
/** 5,000 calls per minute per ad account (the endpoint's own description). */
export const PINTEREST_RATE_LIMIT_PER_MINUTE = 5000;
export const PINTEREST_REQUEST_TIMEOUT_MS = 10_000;

export const PINTEREST_ACTION_SOURCES = ['web', 'offline', 'app_android', 'app_ios'] as const;
export type PinterestActionSource = (typeof PINTEREST_ACTION_SOURCES)[number];

/**
 * `event_name` as the official spec lists it (Dec 2025). Segment's newer names (contact,
 * schedule, submit_application, start_trial…) are UNCONFIRMED there, so they are not used:
 * those states go out as `custom` with a label.
 */
export const PINTEREST_EVENT_NAMES = [
	'add_payment_info',
	'add_to_cart',
	'add_to_wishlist',
	'app_install',
	'checkout',
	'custom',
	'initiate_checkout',
	'lead',
	'page_visit',
	'search',
	'signup',
	'subscribe',
	'view_category',
	'view_content',
	'watch_video',
] as const;
export type PinterestEventName = (typeof PINTEREST_EVENT_NAMES)[number];

/**
 * Our name for a custom event labelled `label`: `custom:<label>`. It is what the event id is
 * derived from (so a partial lead, a contact and a schedule of the same record get three
 * different ids) and what the results show; Pinterest receives `event_name: "custom"` with the
 * label in `custom_data.content_name`.
 */
export const PINTEREST_CUSTOM_PREFIX = 'custom:';

/**
 * One event name per canonical state. Partial leads, contacts and bookings have no standard
 * Pinterest event in the official spec: each gets its own labelled custom event, so a partial
 * lead never counts as a lead.
 */
export const PINTEREST_EVENT_BY_STATE: Readonly<Record<LeadState, string>> = {
	partial: 'custom:partial_lead',
	lead: 'lead',
	contact: 'custom:contact',
	schedule: 'custom:schedule',
	registration: 'signup',
	purchase: 'checkout',
};

/** `custom_data.opt_out_type` for Limited Data Processing. */
export const PINTEREST_LDP = 'LDP';

/**
 * Whether Pinterest drops a resend of an API event with the same event_id. UNCONFIRMED:
 * Pinterest documents event_id dedup between the tag and the API only, and none for offline
 * events (docs/dedup.md#unknown-outcomes). So: no.
 */
export const PINTEREST_RESEND_DEDUP: ResendDedup = {
	dedups: false,
	note: 'Pinterest documents event_id deduplication between the tag and the API, not between two API events (UNCONFIRMED)',
};
