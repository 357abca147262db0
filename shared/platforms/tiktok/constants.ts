import type { EventTimeWindow } from '../../events/eventTime';
import type { LeadState } from '../../types';
import type { ResendDedup } from '../contract';

/**
 * TikTok Events API 2.0 facts (../shared/docs/platforms.md §3), in one place. Every value marked
 * UNCONFIRMED is a choice where TikTok's documentation is silent; change it here and nowhere else.
 */
export const TIKTOK_BUSINESS_API_BASE_URL = 'https://business-api.tiktok.com';
/** Events API "2.0" lives under the v1.3 path; the trailing slash is part of TikTok's path. */
export const TIKTOK_EVENT_TRACK_PATH = '/open_api/v1.3/event/track/';

/**
 * UNCONFIRMED: TikTok documents no per-request event limit for event/track. 50 was the limit of
 * the legacy /pixel/batch endpoint (RudderStack) and is the smallest any integrator uses, so a
 * request of ours is never refused for its size.
 */
export const TIKTOK_MAX_EVENTS_PER_REQUEST = 50;

/**
 * UNCONFIRMED: TikTok's Events API pages read document no oldest accepted event_time. A third
 * party (Amperity) says events "must have occurred within the previous 28 days" (TikTok's
 * 28-day click-through attribution window). Older events are skipped, never clamped
 * (docs/platforms/tiktok.md).
 */
export const TIKTOK_EVENT_WINDOW_SECONDS = 28 * 24 * 3600;
export const TIKTOK_EVENT_TIME_WINDOW: EventTimeWindow = {
	platform: 'TikTok',
	seconds: TIKTOK_EVENT_WINDOW_SECONDS,
	basis: 'unconfirmed',
};

export const TIKTOK_REQUEST_TIMEOUT_MS = 10_000;

/** `web`: to the pixel code; `crm`: to the CRM event set (lead-stage events from a CRM). */
export const TIKTOK_EVENT_SOURCES = ['web', 'crm'] as const;
export type TiktokEventSource = (typeof TIKTOK_EVENT_SOURCES)[number];

/** Where a CRM lead's TikTok lead ID is read from in the canonical record. */
export const TIKTOK_LEAD_ID_ATTRIBUTE = 'tiktok_lead_id';

/**
 * The event for a completed lead. UNCONFIRMED: TikTok's standard-event lists up to May 2025 name
 * `SubmitForm`; a standard `Lead` appears only in community code, and whether `SubmitForm` was
 * renamed is not documented. `SubmitForm` is the name TikTok has documented, so it is the safe
 * choice; switch to 'Lead' here once TikTok lists it.
 */
export const TIKTOK_LEAD_EVENT = 'SubmitForm';

/**
 * Partial leads: a custom event, so they never count as completed leads. TikTok accepts custom
 * event names but cannot optimise campaigns for them (platforms.md §3.2).
 */
export const TIKTOK_PARTIAL_LEAD_EVENT = 'PartialLead';

/** One event name per canonical state; `Purchase` is the current name (formerly CompletePayment). */
export const TIKTOK_EVENT_BY_STATE: Readonly<Record<LeadState, string>> = {
	partial: TIKTOK_PARTIAL_LEAD_EVENT,
	lead: TIKTOK_LEAD_EVENT,
	contact: 'Contact',
	schedule: 'Schedule',
	registration: 'CompleteRegistration',
	purchase: 'Purchase',
};

/** The standard events the node offers besides From Lead State and Custom Event. */
export const TIKTOK_STANDARD_EVENTS = [
	'CompleteRegistration',
	'Contact',
	'Purchase',
	'Schedule',
	'SubmitForm',
	'Subscribe',
] as const;

/**
 * Whether TikTok drops a resend of an Events API event with the same event_id: yes — TikTok
 * documents dedup of the same event + event_id within 48 h, API↔API included
 * (docs/dedup.md#unknown-outcomes).
 */
export const TIKTOK_RESEND_DEDUP: ResendDedup = {
	dedups: true,
	note: 'TikTok drops an Events API event with the same event and event_id within 48 hours',
};
