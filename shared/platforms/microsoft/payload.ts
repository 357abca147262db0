import type { LeadConsentReading } from '../../events/consent';
import { consentDeniedSkip } from '../../events/context';
import type { BuildContext, BuildOutcome, PlatformUserData } from '../contract';
import type { IdentityField, PlatformIdentity } from '../../identity';
import type { LeadRecord } from '../../types';
import type { MicrosoftConfig } from './config';
import {
	MICROSOFT_EVENT_BY_STATE,
	MICROSOFT_IDENTIFYING_KEYS,
	MICROSOFT_NO_SIGNAL_AD_STORAGE,
	MICROSOFT_PURCHASE_PAGE_TYPE,
	MICROSOFT_TRANSACTION_ID_ATTRIBUTES,
	MICROSOFT_UNKNOWN_CONSENT_DEFAULT,
	MICROSOFT_VISITOR_ID_ATTRIBUTES,
	type MicrosoftAdStorageConsent,
	type MicrosoftEventType,
	type MicrosoftUnknownConsent,
} from './constants';

/** `userData` as the UET Conversions API takes it: one string per key. */
export interface MicrosoftUserData {
	em?: string;
	ph?: string;
	msclkid?: string;
	anonymousId?: string;
	externalId?: string;
	clientIpAddress?: string;
	clientUserAgent?: string;
}

export interface MicrosoftCustomData {
	value?: number;
	currency?: string;
	transactionId?: string;
	pageType?: string;
}

/** One event of the request's `data[]`. */
export interface MicrosoftEvent {
	eventType: MicrosoftEventType;
	eventId: string;
	/** Custom events only: the action of the UET custom-event goal. */
	eventName?: string;
	/** Unix seconds. */
	eventTime: number;
	eventSourceUrl?: string;
	referrerUrl?: string;
	adStorageConsent: MicrosoftAdStorageConsent;
	userData: MicrosoftUserData;
	customData?: MicrosoftCustomData;
}

/** Our identity fields → Microsoft's userData keys. Hashing is decided by the identity profile. */
const USER_DATA_KEYS: [IdentityField, keyof MicrosoftUserData][] = [
	['email', 'em'],
	['phone', 'ph'],
	['msclkid', 'msclkid'],
	['external_id', 'externalId'],
	['ip', 'clientIpAddress'],
	['user_agent', 'clientUserAgent'],
];
/** The order keys are sent and reported in. */
const KEY_ORDER: (keyof MicrosoftUserData)[] = [
	'em',
	'ph',
	'msclkid',
	'anonymousId',
	'externalId',
	'clientIpAddress',
	'clientUserAgent',
];
/** Longer than any cookie value we have seen; guards against a pasted blob landing here. */
const MAX_VISITOR_ID_LENGTH = 256;

function readScalarText(raw: unknown): string | undefined {
	if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
	if (typeof raw !== 'string') return undefined;
	const text = raw.trim();
	return text === '' ? undefined : text;
}

/** The first of `keys` present in the record's attributes, with the key it came from. */
function readAttribute(
	record: LeadRecord,
	keys: readonly string[],
): { key: string; text: string } | undefined {
	const attributes = record.attributes;
	if (!attributes || typeof attributes !== 'object') return undefined;
	for (const key of keys) {
		const text = readScalarText((attributes as Record<string, unknown>)[key]);
		if (text !== undefined) return { key, text };
	}
	return undefined;
}

/**
 * The UET visitor id (`_uetvid` cookie) from `attributes.uetvid`: an opaque token passed as
 * is. Never echoed in a warning (it identifies a browser).
 */
function readVisitorId(record: LeadRecord, warnings: string[]): string | undefined {
	const found = readAttribute(record, MICROSOFT_VISITOR_ID_ATTRIBUTES);
	if (!found) return undefined;
	if (/\s/u.test(found.text)) {
		warnings.push(`attributes.${found.key}: contains whitespace, not a UET visitor id; omitted`);
		return undefined;
	}
	if (found.text.length > MAX_VISITOR_ID_LENGTH) {
		warnings.push(
			`attributes.${found.key}: longer than ${MAX_VISITOR_ID_LENGTH} characters, not a UET visitor id; omitted`,
		);
		return undefined;
	}
	return found.text;
}

/**
 * Microsoft's userData from the identity rendered with its profile (em and ph SHA-256, the rest
 * in clear) plus the UET visitor id from the record. Microsoft takes one value per key: when a
 * lead has several (two emails), the first is sent and a warning says so.
 */
export function microsoftUserData(
	user: PlatformIdentity,
	record: LeadRecord,
): PlatformUserData & { data: MicrosoftUserData; warnings: string[] } {
	const found: MicrosoftUserData = {};
	const warnings: string[] = [];
	for (let i = 0; i < USER_DATA_KEYS.length; i++) {
		const field = USER_DATA_KEYS[i][0];
		const key = USER_DATA_KEYS[i][1];
		const values = user.values[field];
		if (!values || values.length === 0) continue;
		found[key] = values[0];
		if (values.length > 1) {
			warnings.push(`${field}: Microsoft takes one value; sent the first of ${values.length}`);
		}
	}
	const visitorId = readVisitorId(record, warnings);
	if (visitorId !== undefined) found.anonymousId = visitorId;
	const data: MicrosoftUserData = {};
	for (const key of KEY_ORDER) if (found[key] !== undefined) data[key] = found[key];
	return { data, matchKeys: Object.keys(data), warnings };
}

/**
 * `adStorageConsent` from the lead's consent. (A lead whose `ad_user_data` is denied is never
 * sent at all; see buildMicrosoftEvent.)
 *  - `ad_user_data` or `ad_personalization` denied → D;
 *  - otherwise either of them granted → G;
 *  - no signal at all → `unknown`: a fixed G or D, or `auto` (default): Microsoft's consent-mode
 *    default for the lead's region (MICROSOFT_NO_SIGNAL_AD_STORAGE: D in the EEA, UK and
 *    Switzerland and when the country is unknown, G elsewhere).
 */
export function adStorageConsentFor(
	consent: LeadConsentReading,
	unknown: MicrosoftUnknownConsent = MICROSOFT_UNKNOWN_CONSENT_DEFAULT,
): MicrosoftAdStorageConsent {
	if (consent.adUserData === 'denied' || consent.adPersonalization === 'denied') return 'D';
	if (consent.adUserData === 'granted' || consent.adPersonalization === 'granted') return 'G';
	return unknown === 'auto' ? MICROSOFT_NO_SIGNAL_AD_STORAGE[consent.region] : unknown;
}

function isPurchase(eventName: string): boolean {
	return eventName.trim().toLowerCase() === MICROSOFT_EVENT_BY_STATE.purchase;
}

export function buildMicrosoftEvent(
	context: BuildContext,
	config: MicrosoftConfig,
): BuildOutcome<MicrosoftEvent> {
	const { record, event: lead, user } = context;
	const { data: userData, matchKeys, warnings: userWarnings } = microsoftUserData(user, record);
	const warnings = [...user.warnings, ...userWarnings];

	const denied = consentDeniedSkip(lead, 'skip');
	if (denied) return { ok: false, status: 'skipped', reason: denied, matchKeys, warnings };
	if (!MICROSOFT_IDENTIFYING_KEYS.some((key) => userData[key] !== undefined)) {
		return {
			ok: false,
			status: 'failed',
			reason: `no customer information Microsoft can match: an event needs an email, a phone number, an msclkid, a UET visitor id (attributes.uetvid) or an external id${matchKeys.length ? ` (this lead has only ${matchKeys.join(', ')})` : ''}`,
			matchKeys,
			warnings,
		};
	}

	const { pageUrl, referrer } = lead;
	if (config.eventType === 'pageLoad' && !pageUrl) {
		return {
			ok: false,
			status: 'failed',
			reason:
				'Page Load events need the page URL (Microsoft requires eventSourceUrl for pageLoad) and this lead has no source.page_url; use Event Type "Custom" for leads without one',
			matchKeys,
			warnings,
		};
	}

	// Keys in the documented order, so a raw request reads like Microsoft's examples. A page load
	// is the page itself: only custom events carry the goal's action name.
	const event: MicrosoftEvent = {
		eventType: config.eventType,
		eventId: context.eventId,
		...(config.eventType === 'custom' ? { eventName: context.eventName } : {}),
		eventTime: context.eventTime,
		...(pageUrl ? { eventSourceUrl: pageUrl } : {}),
		...(referrer ? { referrerUrl: referrer } : {}),
		adStorageConsent: adStorageConsentFor(lead.consent, config.unknownConsent),
		userData,
	};

	const customData: MicrosoftCustomData = {};
	const value = lead.value;
	warnings.push(...value.warnings);
	if (value.amount !== undefined && value.currency !== undefined) {
		customData.value = value.amount;
		customData.currency = value.currency;
	}
	if (isPurchase(context.eventName)) {
		const transaction = readAttribute(record, MICROSOFT_TRANSACTION_ID_ATTRIBUTES);
		if (transaction) customData.transactionId = transaction.text;
		customData.pageType = MICROSOFT_PURCHASE_PAGE_TYPE;
		if (customData.value === undefined) {
			warnings.push(
				`purchase sent ${value.absence ?? ''} (never guessed): the goal's own revenue setting applies`,
			);
		}
	}
	if (Object.keys(customData).length > 0) event.customData = customData;

	return { ok: true, payload: event, matchKeys, warnings };
}
