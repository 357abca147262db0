import type { MetaActionSource } from './constants';

/** Everything the Meta sender needs, from the credential and the node's options. */
export interface MetaConfig {
	/** Dataset / pixel id. */
	pixelId: string;
	accessToken: string;
	/** When set, `appsecret_proof` = HMAC-SHA256(app secret, access token) is sent. */
	appSecret?: string;
	/** Graph API version, e.g. `v26.0`. */
	apiVersion?: string;
	/** For gateways and loopback stand-ins; default https://graph.facebook.com. */
	baseUrl?: string;
	testEventCode?: string;
	partnerAgent?: string;
	/** `auto`: website when the lead has a page URL and a user agent, else system_generated. */
	actionSource: 'auto' | MetaActionSource;
	/** `auto`: Limited Data Use for leads in California (or flagged by consent.limited_data_use). */
	limitedDataUse: 'auto' | 'always' | 'never';
	/**
	 * `crm`: Conversion Leads events (crm.ts) — action_source system_generated, Meta's lead id,
	 * custom_data.event_source = crm; anything else: the usual server events (payload.ts).
	 */
	eventSource?: 'server' | 'crm';
	/** CRM events: the CRM's name, sent as custom_data.lead_event_source. */
	leadEventSource?: string;
}
