import type { TiktokEventSource } from './constants';

/** Everything the TikTok sender needs, from the credential and the node's options. */
export interface TiktokConfig {
	/** Pixel code: the event_source_id of web events. */
	pixelCode: string;
	accessToken: string;
	/** CRM event set ID: the event_source_id of CRM events. */
	crmEventSetId?: string;
	/** For gateways and loopback stand-ins; default https://business-api.tiktok.com. */
	baseUrl?: string;
	eventSource: TiktokEventSource;
	/** CRM events: the CRM the leads live in (`lead.lead_event_source`), e.g. HubSpot. */
	leadEventSource?: string;
	/** From Events Manager → Test Events. TikTok does not keep live data sent with it. */
	testEventCode?: string;
	/** `auto`: limited_data_use for leads in California (or flagged by consent.limited_data_use). */
	limitedDataUse: 'auto' | 'always' | 'never';
}
