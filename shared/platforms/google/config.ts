/**
 * How to reach the Google Ads API, from the credential. The OAuth2 access token is not here:
 * n8n signs each request with it (and refreshes it) in the node's HTTP executor.
 */
export interface GoogleAdsConnection {
	developerToken: string;
	/** Manager (MCC) account the user signs in through, digits only; sent as login-customer-id. */
	loginCustomerId?: string;
	/** e.g. `v26`. */
	apiVersion?: string;
	/** For gateways and loopback stand-ins; default https://googleads.googleapis.com. */
	baseUrl?: string;
	/**
	 * The OAuth2 values of the credential (access and refresh token, client secret): n8n sends
	 * them, not the sender, but an error body may echo them, so they are scrubbed like the
	 * developer token.
	 */
	oauthSecrets?: string[];
}

/** Everything the Google Ads sender needs, from the credential and the node's parameters. */
export interface GoogleAdsConfig extends GoogleAdsConnection {
	/** The account that owns the conversion action, digits only. */
	customerId: string;
	/** `customers/{customerId}/conversionActions/{id}`: the destination of every event. */
	conversionAction: string;
	/**
	 * `customers/{customerId}/conversionActions/{id}` for partial leads (event `partial_lead`).
	 * Without it partial leads are skipped: the completed-lead action would count them as leads.
	 */
	partialConversionAction?: string;
	/** IANA time zone of the account (conversionDateTime carries its offset). */
	timeZone: string;
	/** Test mode: Google validates the conversions without recording them. */
	validateOnly?: boolean;
}

/** `123-456-7890` (as the Google Ads UI shows it) → `1234567890`; null when not an account id. */
export function normalizeCustomerId(raw: unknown): string | null {
	if (typeof raw !== 'string' && typeof raw !== 'number') return null;
	const digits = String(raw).trim().replace(/[\s-]/g, '');
	return /^\d{1,20}$/.test(digits) ? digits : null;
}

/**
 * The conversion action's resource name from its ID (`987654321`) or its resource name as the
 * list of actions gives it (`customers/1234567890/conversionActions/987654321`); null otherwise.
 */
export function conversionActionResourceName(customerId: string, raw: unknown): string | null {
	if (typeof raw !== 'string' && typeof raw !== 'number') return null;
	const text = String(raw).trim();
	if (/^\d+$/.test(text)) return `customers/${customerId}/conversionActions/${text}`;
	const match = /^customers\/(\d+)\/conversionActions\/(\d+)$/.exec(text);
	return match ? text : null;
}
