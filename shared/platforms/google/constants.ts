import type { LeadState } from '../../types';

/**
 * Google Ads click conversion upload facts (../shared/docs/platforms.md §4), in one place.
 * Whatever platforms.md marks UNCONFIRMED is a constant here, with the reason next to it.
 */
export const GOOGLE_ADS_BASE_URL = 'https://googleads.googleapis.com';
/**
 * UNCONFIRMED choice: Google's docs name v26 the latest active version; google-ads-python
 * (Aug 2026) ships v21–v25. The newest version lives longest before its sunset, and every field
 * we send exists unchanged in all of them, so we call v26; the credential lets users pin another.
 */
export const GOOGLE_ADS_DEFAULT_API_VERSION = 'v26';
/** TOO_MANY_CONVERSIONS_IN_REQUEST beyond this ("upload fewer than 2001"). */
export const GOOGLE_MAX_CONVERSIONS_PER_REQUEST = 2000;
/**
 * UNCONFIRMED: the click-through window is set per conversion action; 90 days is the commonly
 * cited maximum (not confirmed by the sources read). Older clicks give EXPIRED_EVENT per row.
 */
export const GOOGLE_EVENT_WINDOW_SECONDS = 90 * 24 * 3600;
/** Most user identifiers one ClickConversion may carry. */
export const GOOGLE_MAX_USER_IDENTIFIERS = 5;
/** Uploads of 2,000 rows answer in seconds; the search calls far sooner. */
export const GOOGLE_REQUEST_TIMEOUT_MS = 30_000;

/** The account's time zone: conversionDateTime must carry the account's UTC offset. */
export const GOOGLE_TIME_ZONE_QUERY = 'SELECT customer.time_zone FROM customer';
/** The actions a click conversion upload can target, for the node's list of actions. */
export const GOOGLE_CONVERSION_ACTIONS_QUERY =
	"SELECT conversion_action.resource_name, conversion_action.name, conversion_action.id FROM conversion_action WHERE conversion_action.type = 'UPLOAD_CLICKS' AND conversion_action.status = 'ENABLED'";

/**
 * Google has no event names: the conversion action decides what a conversion counts as. These
 * labels name our events (results, event ids, dedup keys); use one conversion action per state.
 * A partial lead's label differs from a completed lead's, so the two never share an event id.
 */
export const GOOGLE_EVENT_BY_STATE: Readonly<Record<LeadState, string>> = {
	partial: 'partial_lead',
	lead: 'lead',
	contact: 'contact',
	schedule: 'schedule',
	registration: 'registration',
	purchase: 'purchase',
};

/** ClickConversion.consent.adUserData (adPersonalization is not settable on click uploads). */
export type GoogleConsentStatus = 'GRANTED' | 'DENIED';

/**
 * Conversion adjustments: "Adjustment can't be made to a conversion that occurred more than 54
 * days ago" (ConversionAdjustmentUploadError.CONVERSION_EXPIRED, Google Ads API v21–v25 reference
 * and proto). Other pages and the issue say 55 days; the error's own text is the stricter figure,
 * so no adjustment Google would refuse is sent. Data Manager documents no window of its own
 * (UNCONFIRMED): the same figure applies there.
 */
export const GOOGLE_ADJUSTMENT_WINDOW_SECONDS = 54 * 24 * 3600;
/**
 * The event window adjustment adapters give the dispatcher: none. The conversion time is the
 * original's, never clamped into a window (a clamped time would pass the adjustment check);
 * adjustmentRefusal refuses what is too old, with its true age.
 */
export const GOOGLE_ADJUSTMENT_TIME_UNBOUNDED_SECONDS = Number.MAX_SAFE_INTEGER;

/**
 * Whether Google drops a resend of the same conversion: yes — a second click conversion with
 * the same order id is refused ORDER_ID_ALREADY_IN_USE (reported duplicate), and Data Manager
 * treats the same transaction id as the same event (docs/dedup.md#unknown-outcomes).
 */
export const GOOGLE_DROPS_RESENT_EVENT_ID = true;
