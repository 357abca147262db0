import { readFirstValue } from '../path';
import type { LeadRecord } from '../types';
import { fromFacebookLeadAdsItem, isFacebookLeadAdsItem } from './sources/metaLeadAds';

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The lead record inside an input item: the item itself, or the object at a dotted path
 * (`lead`, `body.lead`). Returns null when the path does not lead to an object. An item of n8n's
 * Facebook Lead Ads Trigger is read as the lead record it describes (Meta's lead id and
 * creation time included; see sources/metaLeadAds.ts), so no Code node is needed.
 */
export function readLeadRecord(json: unknown, path?: string): LeadRecord | null {
	const trimmed = (path ?? '').trim();
	// The one path reader (shared/path.ts): own properties only, digits index arrays.
	const node = trimmed ? readFirstValue(json, trimmed) : json;
	if (isFacebookLeadAdsItem(node)) return fromFacebookLeadAdsItem(node);
	return isObject(node) ? (node as LeadRecord) : null;
}
