import type { MicrosoftEventType, MicrosoftUnknownConsent } from './constants';

/** Everything the Microsoft sender needs, from the credential and the node's options. */
export interface MicrosoftConfig {
	/** The UET tag id events go to (the destination, and part of every event id). */
	uetTagId: string;
	/** The UET tag's Conversions API auth key, sent as `Authorization: Bearer …`. */
	apiToken: string;
	/** For gateways and loopback stand-ins; default https://capi.uet.microsoft.com. */
	baseUrl?: string;
	/** `custom`: eventName from the event-name row; `pageLoad`: needs the lead's page URL. */
	eventType: MicrosoftEventType;
	/** `adStorageConsent` for leads without any consent signal (default `auto`: by region). */
	unknownConsent?: MicrosoftUnknownConsent;
	/** Sent as `dataProvider`; default n8n-nodes-lead-capi, empty string to leave it out. */
	dataProvider?: string;
}
