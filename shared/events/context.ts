import { normalizeCountry, normalizeRegion, type NormalizedIdentity } from '../identity';
import type { LeadRecord } from '../types';
import { readLeadConsent, readValue, type LeadConsentReading, type ValueReading } from './consent';

/** A page or referrer URL as platforms take it (http/https, no spaces), or undefined. */
export function readPageUrl(raw: unknown): string | undefined {
	if (typeof raw !== 'string') return undefined;
	const text = raw.trim();
	return /^https?:\/\/\S+$/i.test(text) ? text : undefined;
}

/**
 * Whether the lead is in California, US: from the contact's own address, else from the
 * visitor's geography. Drives the limited-data flags that platforms ask for California
 * traffic (Meta LDU, Pinterest LDP).
 */
export function isCaliforniaLead(identity: NormalizedIdentity, record: LeadRecord): boolean {
	const contactCountry = identity.values.country?.[0];
	const contactRegion = identity.values.region?.[0];
	if (contactCountry === 'us' && contactRegion === 'ca') return true;
	if (contactCountry && contactCountry !== 'us') return false;
	const clientCountry = normalizeCountry(record.client?.country);
	const clientRegion = normalizeRegion(record.client?.region, { country: clientCountry ?? 'us' });
	return (clientCountry ?? contactCountry) === 'us' && (clientRegion ?? contactRegion) === 'ca';
}

/**
 * Everything about a lead's event that is not its identity, read once per lead in the prepare
 * stage (shared/dispatch/prepare.ts) and handed to every platform builder on BuildContext:
 * builders map these to their platform's names and never read the raw record for them. Click
 * ids are part of the identity (normalizeIdentity), read there once.
 */
export interface EventContext {
	consent: LeadConsentReading;
	/** value.amount and value.currency, both or neither, with what was wrong with them. */
	value: ValueReading;
	/** source.page_url as platforms take it (http/https), if any. */
	pageUrl?: string;
	/** source.referrer as platforms take it, if any. */
	referrer?: string;
	/** The lead is in California, US (isCaliforniaLead): the "auto" limited-data rule's trigger. */
	california: boolean;
}

export interface EventContextOptions {
	/** The lead's identity, already normalized (country and region read in its light). */
	identity: NormalizedIdentity;
}

/** The one reading of a lead's event context; see EventContext. */
export function readEventContext(record: LeadRecord, options: EventContextOptions): EventContext {
	const source = record.source;
	return {
		consent: readLeadConsent(record),
		value: readValue(record.value),
		pageUrl: readPageUrl(source?.page_url),
		referrer: readPageUrl(source?.referrer),
		california: isCaliforniaLead(options.identity, record),
	};
}

/** Why a lead that denied ad_user_data is not sent (the one consent-denied rule's reason). */
export const CONSENT_DENIED_SKIP_REASON =
	'consent.ad_user_data is denied: the lead did not agree to their data being sent for advertising';

/**
 * What a platform does with a lead that denied `ad_user_data`, as its documents allow:
 *  - `skip`: nothing is sent (Meta, Pinterest, TikTok, Microsoft);
 *  - `click-id-only`: the event goes out without contact identifiers, with the denial in its
 *    consent field (Google; see googleUserDataGate).
 */
export type ConsentDeniedRule = 'skip' | 'click-id-only';

/** The one consent-denied rule: the skip reason when this platform's rule skips the lead. */
export function consentDeniedSkip(
	event: EventContext,
	rule: ConsentDeniedRule,
): string | undefined {
	if (rule !== 'skip' || event.consent.adUserData !== 'denied') return undefined;
	return CONSENT_DENIED_SKIP_REASON;
}

/** A builder's Limited Data Use setting (Meta LDU, Pinterest LDP, TikTok limited_data_use). */
export type LimitedDataUseSetting = 'auto' | 'always' | 'never';

/**
 * The one Limited Data Use rule. Always / Never: as chosen. Auto: the lead's own
 * consent.limited_data_use granted, or a lead in California, US.
 */
export function limitedDataUseFor(event: EventContext, setting: LimitedDataUseSetting): boolean {
	if (setting === 'always') return true;
	if (setting === 'never') return false;
	return event.consent.limitedDataUse === 'granted' || event.california;
}
