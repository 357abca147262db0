import type { ICredentialTestRequest, ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * Google Ads API access for conversion uploads: OAuth2 (n8n signs requests and refreshes the
 * token) plus the developer token every Google Ads call carries. Built on n8n's generic
 * `oAuth2Api` with Google's endpoints, as n8n's own Google credentials are.
 */
export class LeadCapiGoogleAdsOAuth2Api implements ICredentialType {
	name = 'leadCapiGoogleAdsOAuth2Api';

	extends = ['oAuth2Api'];

	// Ends in "(Lead CAPI)": credential names are global in n8n, so ours say whose they are.
	// eslint-disable-next-line n8n-nodes-base/cred-class-field-display-name-missing-api, n8n-nodes-base/cred-class-field-display-name-missing-oauth2
	displayName = 'Google Ads Conversions OAuth2 API (Lead CAPI)';

	icon: Icon = { light: 'file:../icons/google.svg', dark: 'file:../icons/google.dark.svg' };

	documentationUrl = 'https://developers.google.com/google-ads/api/docs/oauth/overview';

	properties: INodeProperties[] = [
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'authorizationCode',
		},
		{
			displayName: 'Authorization URL',
			name: 'authUrl',
			type: 'hidden',
			default: 'https://accounts.google.com/o/oauth2/v2/auth',
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			default: 'https://oauth2.googleapis.com/token',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: 'https://www.googleapis.com/auth/adwords',
		},
		{
			// offline + consent: Google issues a refresh token, so n8n can renew the hour-long
			// access token without the user signing in again.
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: 'access_type=offline&prompt=consent',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'hidden',
			default: 'body',
		},
		{
			displayName: 'Developer Token',
			name: 'developerToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'From Google Ads → Tools → Setup → API Center (of a manager account). A test-level token only works with test accounts.',
		},
		{
			displayName: 'Login Customer ID',
			name: 'loginCustomerId',
			type: 'string',
			default: '',
			placeholder: '123-456-7890',
			description:
				'Only when you reach the account through a manager (MCC) account: the manager account ID, sent as login-customer-id. Dashes are removed.',
		},
		{
			displayName: 'API Version',
			name: 'apiVersion',
			type: 'string',
			default: 'v26',
			description:
				'The Google Ads API version to call, e.g. v26. Google retires old versions about a year after release.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://googleads.googleapis.com',
			description: 'Change only for a gateway or a test stand-in',
		},
	];

	/**
	 * n8n's editor never tests OAuth2 credentials (signing in with Google is their test) and the
	 * lint does not require one for them; this request runs when a test is asked for through
	 * n8n's API. It lists the accounts the signed-in user can reach, which needs the OAuth2 token
	 * (n8n refreshes it on a 401) and a valid developer token, and touches no account data.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ ($credentials.baseUrl || "https://googleads.googleapis.com").replace(/\\/+$/, "") }}',
			url: '={{ "/" + ($credentials.apiVersion || "v26") + "/customers:listAccessibleCustomers" }}',
			method: 'GET',
			headers: { 'developer-token': '={{ $credentials.developerToken }}' },
		},
	};
}
