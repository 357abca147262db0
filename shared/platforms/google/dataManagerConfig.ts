/**
 * Google Ads conversions through the Data Manager API (`events.ingest`): the facts and choices of
 * docs/platforms/google-data-manager.md, in one place. What that page marks UNCONFIRMED is a
 * constant here, with the reason next to it.
 */
export const DATA_MANAGER_BASE_URL = 'https://datamanager.googleapis.com';
/** The only scope the Data Manager API asks for (ingestion_service.proto oauth_scopes). */
export const DATA_MANAGER_SCOPE = 'https://www.googleapis.com/auth/datamanager';
/** IngestEventsRequest.events: "At most 2000 Event resources" (proto; limits page). */
export const DATA_MANAGER_MAX_EVENTS_PER_REQUEST = 2000;
/** UserData.user_identifiers: at most 10 per Event (proto; limits page). */
export const DATA_MANAGER_MAX_USER_IDENTIFIERS = 10;
/** A request of 2,000 events answers in seconds; the status read far sooner. */
export const DATA_MANAGER_REQUEST_TIMEOUT_MS = 30_000;

/** Event.event_source. UNCONFIRMED whether Google Ads offline conversions require it. */
export type DataManagerEventSource = 'WEB' | 'APP' | 'IN_STORE' | 'PHONE' | 'OTHER';
/** Leads come from web forms (docs/platforms/google-data-manager.md §2). */
export const DATA_MANAGER_DEFAULT_EVENT_SOURCE: DataManagerEventSource = 'WEB';

export type DataManagerConsentStatus = 'CONSENT_GRANTED' | 'CONSENT_DENIED';

/**
 * How to reach the Data Manager API, from the credential. The OAuth2 access token is not here:
 * n8n signs each request with it (and refreshes it).
 */
export interface GoogleDataManagerConnection {
	/** For gateways and loopback stand-ins; default https://datamanager.googleapis.com. */
	baseUrl?: string;
	/** OAuth2 values an error body might echo: scrubbed from every message and response. */
	oauthSecrets?: string[];
}

/** Everything the Data Manager sender needs, from the credential and the node's parameters. */
export interface GoogleDataManagerConfig extends GoogleDataManagerConnection {
	/** The Google Ads account that owns the conversion action (operatingAccount), digits only. */
	operatingAccountId: string;
	/** The conversion action ID (productDestinationId), digits only. */
	conversionActionId: string;
	/**
	 * The conversion action ID for partial leads (event `partial_lead`), digits only. Without it
	 * partial leads are skipped: the completed-lead action would count them as leads.
	 */
	partialConversionActionId?: string;
	/** A manager account the signed-in user reaches the operating account through. */
	loginAccountId?: string;
	/** A data partner's linked account, when sending through an account link. */
	linkedAccountId?: string;
	/** Test mode: Google validates the request and records nothing. */
	validateOnly?: boolean;
	eventSource?: DataManagerEventSource;
}

/**
 * `Destination.reference` / `Event.destinationReferences` (destination.proto, event.proto):
 * with a partial-lead action the request carries two destinations and each event names its
 * own; an event without references would go to every destination of the request.
 */
export const DATA_MANAGER_MAIN_REFERENCE = 'main';
export const DATA_MANAGER_PARTIAL_REFERENCE = 'partial_lead';

/**
 * The destination every event id and dedup key is derived from: the same string as on the Google
 * Ads API path, so switching a node between the two APIs never sends a lead's event again.
 */
export function dataManagerDestinationId(config: GoogleDataManagerConfig): string {
	return `customers/${config.operatingAccountId}/conversionActions/${config.conversionActionId}`;
}
