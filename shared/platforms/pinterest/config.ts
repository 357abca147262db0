import type { PinterestActionSource } from './constants';

/** Everything the Pinterest sender needs, from the credential and the node's options. */
export interface PinterestConfig {
	/** The ad account events go to (digits). */
	adAccountId: string;
	/** The conversion access token from Ads Manager (or an OAuth token with ads:write). */
	accessToken: string;
	/** For gateways and loopback stand-ins; default https://api.pinterest.com. */
	baseUrl?: string;
	/** `?test=true`: Pinterest validates the events and answers as usual but records nothing. */
	testMode?: boolean;
	/** `auto`: web when the lead has a page URL and a user agent, else offline. */
	actionSource: 'auto' | PinterestActionSource;
	/**
	 * Limited Data Processing (`custom_data.opt_out_type: "LDP"`). `auto`: leads whose consent
	 * says limited_data_use, and leads in California, US.
	 */
	limitedDataProcessing: 'auto' | 'always' | 'never';
}
