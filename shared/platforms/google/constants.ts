import type { BuildOutcome, ResendDedup } from '../contract';
import type { ConsentRegion, LeadConsentReading } from '../../events/consent';
import type { EventTimeWindow } from '../../events/eventTime';
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
export const GOOGLE_EVENT_TIME_WINDOW: EventTimeWindow = {
	platform: 'Google',
	seconds: GOOGLE_EVENT_WINDOW_SECONDS,
	basis: 'unconfirmed',
};
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

/**
 * Partial leads and completed leads must stay distinguishable, and Google counts what the
 * conversion action says, not our label: a partial lead uploaded to the completed-lead action
 * would be counted as a lead. So a partial lead goes only to its own action (the node's Partial
 * Lead Conversion Action) and is skipped, with this reason, when there is none.
 */
export const GOOGLE_PARTIAL_WITHOUT_ACTION_REASON =
	'partial lead not sent: Google would count it as a conversion of the completed-lead action. Set Options → Partial Lead Conversion Action to a separate "Conversions from clicks" action to send partial leads there';

/** Is this event a partial lead (the label "From Lead State" gives the partial state)? */
export function isGooglePartialEvent(eventName: string): boolean {
	return eventName === GOOGLE_EVENT_BY_STATE.partial;
}

/**
 * A partial lead with no partial-lead conversion action is skipped (both APIs): Google would
 * count it as a conversion of the completed-lead action. Null when it may go.
 */
export function partialLeadSkip<Payload>(
	partial: boolean,
	partialAction: string | undefined,
	matchKeys: string[],
	warnings: string[],
): BuildOutcome<Payload> | null {
	if (!partial || partialAction) return null;
	return {
		ok: false,
		status: 'skipped',
		reason: GOOGLE_PARTIAL_WITHOUT_ACTION_REASON,
		matchKeys,
		warnings,
	};
}

/**
 * Whether a lead's email, phone and address may go to Google:
 *  - `send`: consent granted, or no signal outside the EEA/UK/CH (or country unknown);
 *  - `denied`: consent.ad_user_data denied;
 *  - `no-eea-consent`: no signal at all for a lead in the EEA, the UK or Switzerland. Google's
 *    EU user consent policy requires consent to use those users' data, and Google asks for
 *    consent signals for them (docs/platforms/google-ads.md → Consent); without one, only the
 *    click id goes, and no consent field is invented (UNSPECIFIED is the absence of a value).
 * A property of the Google platform: GOOGLE_NO_SIGNAL_RULE by region.
 */
export type GoogleUserDataGate = 'send' | 'denied' | 'no-eea-consent';
export const GOOGLE_NO_SIGNAL_RULE: Readonly<Record<ConsentRegion, GoogleUserDataGate>> = {
	'consent-required': 'no-eea-consent',
	other: 'send',
	unknown: 'send',
};

export function googleUserDataGate(consent: LeadConsentReading): GoogleUserDataGate {
	if (consent.adUserData === 'denied') return 'denied';
	if (consent.adUserData === 'granted') return 'send';
	return GOOGLE_NO_SIGNAL_RULE[consent.region];
}

/** Why the contact fields (`email and phone`, `email, phone and address`) were left out. */
export function googleWithheldWarning(
	gate: Exclude<GoogleUserDataGate, 'send'>,
	fields: string,
): string {
	return gate === 'denied'
		? `consent.ad_user_data is denied: ${fields} not sent (click id only)`
		: `consent.ad_user_data: no consent signal for a lead in the EEA, the UK or Switzerland (Google's EU user consent policy): ${fields} not sent (click id only)`;
}

/** Why a lead with neither a click id nor contact fields it may send was skipped. */
export const GOOGLE_WITHHELD_SKIP_REASON: Record<Exclude<GoogleUserDataGate, 'send'>, string> = {
	denied:
		'consent.ad_user_data is denied and the lead has no Google click id (gclid, gbraid or wbraid): without consent only a click id may be sent',
	'no-eea-consent':
		"the lead is in the EEA, the UK or Switzerland, has no consent signal and no Google click id (gclid, gbraid or wbraid): Google's EU user consent policy needs consent before their email or phone is sent. Map consent.ad_user_data to send it",
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
export const GOOGLE_ADJUSTMENT_TIME_WINDOW: EventTimeWindow = {
	platform: 'Google',
	seconds: GOOGLE_ADJUSTMENT_TIME_UNBOUNDED_SECONDS,
	basis: 'unconfirmed',
};

/**
 * Whether Google drops a resend of the same conversion: yes — a second click conversion with
 * the same order id is refused ORDER_ID_ALREADY_IN_USE (reported duplicate), and Data Manager
 * treats the same transaction id as the same event (docs/dedup.md#unknown-outcomes).
 */
export const GOOGLE_RESEND_DEDUP: ResendDedup = {
	dedups: true,
	note: 'Google refuses a second conversion with the same order id (ORDER_ID_ALREADY_IN_USE, then reported duplicate); Data Manager treats the same transaction id as the same event',
};
