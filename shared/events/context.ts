import { normalizeCountry, normalizeRegion, type NormalizedIdentity } from '../identity';
import type { LeadRecord } from '../types';

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
