import type { ConsentRegion } from '../../events/consent';
import type { EventTimeWindow } from '../../events/eventTime';
import type { LeadState } from '../../types';
import type { ResendDedup } from '../contract';

/**
 * Microsoft Advertising UET Conversions API facts (../shared/docs/platforms.md §5), in one
 * place. Microsoft has published only an overview of this API; most facts below come from
 * 2nd-party integrations (Segment, Stape, walkerOS), and every UNCONFIRMED choice is marked.
 */
export const MICROSOFT_CAPI_BASE_URL = 'https://capi.uet.microsoft.com';

/** UNCONFIRMED: no documented limit; Segment and Tealium batch up to 1,000 events. */
export const MICROSOFT_MAX_EVENTS_PER_REQUEST = 1000;

/**
 * UNCONFIRMED: Microsoft's UET Conversions API guide documents no window. 7 days is the
 * tightest window of the peers (Meta), so events inside it are accepted whatever Microsoft's real
 * limit is; older ones are skipped, never clamped (docs/platforms/microsoft.md).
 */
export const MICROSOFT_EVENT_WINDOW_SECONDS = 7 * 24 * 3600;
export const MICROSOFT_EVENT_TIME_WINDOW: EventTimeWindow = {
	platform: 'Microsoft',
	seconds: MICROSOFT_EVENT_WINDOW_SECONDS,
	basis: 'unconfirmed',
};

/** 1,000-event batches with full user data run to about 1 MB; leave room for a slow gateway. */
export const MICROSOFT_REQUEST_TIMEOUT_MS = 15_000;

/** Sent as `dataProvider` (Stape and walkerOS send their own names there). */
export const MICROSOFT_DATA_PROVIDER = 'n8n-nodes-lead-capi';

export const MICROSOFT_EVENT_TYPES = ['custom', 'pageLoad'] as const;
export type MicrosoftEventType = (typeof MICROSOFT_EVENT_TYPES)[number];

/** `adStorageConsent`: G(ranted) or D(enied). */
export type MicrosoftAdStorageConsent = 'G' | 'D';

/** The node option: a fixed value, or `auto` (MICROSOFT_NO_SIGNAL_AD_STORAGE by region). */
export type MicrosoftUnknownConsent = MicrosoftAdStorageConsent | 'auto';

/**
 * `adStorageConsent` for a lead that carries no consent signal at all, by the lead's region: the
 * default of Microsoft's own consent mode. Microsoft's UET consent-mode help: where
 * `ad_storage` is not set, UET defaults to granted in most countries, while in the EEA, the UK
 * and Switzerland Microsoft enforces consent mode and the default is denied. The UET CAPI guide
 * itself says nothing about an absent consent (UNCONFIRMED); a lead whose country is unknown
 * cannot be placed outside those regions, so it gets D. docs/platforms/microsoft.md.
 */
export const MICROSOFT_NO_SIGNAL_AD_STORAGE: Readonly<
	Record<ConsentRegion, MicrosoftAdStorageConsent>
> = {
	'consent-required': 'D',
	other: 'G',
	unknown: 'D',
};
export const MICROSOFT_UNKNOWN_CONSENT_DEFAULT: MicrosoftUnknownConsent = 'auto';

/**
 * Where the UET visitor id (the `_uetvid` cookie, sent as `userData.anonymousId`) is read from:
 * the lead record's `attributes`, first key present wins.
 */
export const MICROSOFT_VISITOR_ID_ATTRIBUTES = ['uetvid', '_uetvid'] as const;

/**
 * User-data keys that identify a person on their own. UNCONFIRMED which identifiers Microsoft
 * needs; IP address and user agent alone are not treated as enough (they identify a device
 * for a moment, and every peer platform asks for more), so such leads fail before sending.
 */
export const MICROSOFT_IDENTIFYING_KEYS = [
	'em',
	'ph',
	'msclkid',
	'anonymousId',
	'externalId',
] as const;

/**
 * One `eventName` per canonical state, for `eventType: custom`. Each must match the action of
 * a UET custom-event conversion goal in Microsoft Advertising; partial leads have their own.
 */
export const MICROSOFT_EVENT_BY_STATE: Readonly<Record<LeadState, string>> = {
	partial: 'partial_lead',
	lead: 'lead',
	contact: 'contact',
	schedule: 'schedule',
	registration: 'sign_up',
	purchase: 'purchase',
};

/**
 * `customData.pageType` for purchases (one of home, product, category, searchresults, cart,
 * purchase, other).
 */
export const MICROSOFT_PURCHASE_PAGE_TYPE = 'purchase';

/** Where a purchase's `customData.transactionId` comes from (first key present); never invented. */
export const MICROSOFT_TRANSACTION_ID_ATTRIBUTES = ['transaction_id', 'order_id'] as const;

/**
 * Whether Microsoft drops a resend of a UET Conversions API event with the same eventId.
 * UNCONFIRMED: Microsoft's guide states no API↔API dedup; integrators describe eventId dedup
 * between the UET tag and the API only (docs/dedup.md#unknown-outcomes). So: no.
 */
export const MICROSOFT_RESEND_DEDUP: ResendDedup = {
	dedups: false,
	note: 'Microsoft documents no deduplication by eventId between two API events (UNCONFIRMED)',
};
