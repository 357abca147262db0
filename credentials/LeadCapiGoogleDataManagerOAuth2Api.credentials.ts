import type { ICredentialTestRequest, ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * Google's Data Manager API (events:ingest) for Google Ads conversions: OAuth2 with the
 * datamanager scope and no developer token (docs/platforms/google-data-manager.md §1). Built on
 * n8n's generic `oAuth2Api` with Google's endpoints, as n8n's own Google credentials are.
 */
export class LeadCapiGoogleDataManagerOAuth2Api implements ICredentialType {
	name = 'leadCapiGoogleDataManagerOAuth2Api';

	extends = ['oAuth2Api'];

	// Display names end in "(Lead CAPI)" (lead's decision, issue 10 item 3); n8n's rules expect
	// "OAuth2 API" at the very end.
	// eslint-disable-next-line n8n-nodes-base/cred-class-field-display-name-missing-api, n8n-nodes-base/cred-class-field-display-name-missing-oauth2
	displayName = 'Google Data Manager OAuth2 API (Lead CAPI)';

	icon: Icon = { light: 'file:../icons/google.svg', dark: 'file:../icons/google.dark.svg' };

	documentationUrl = 'https://developers.google.com/data-manager/api/get-started/set-up-access';

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
			default: 'https://www.googleapis.com/auth/datamanager',
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
			displayName:
				'No developer token is needed. Enable the Data Manager API in the Google Cloud project of this OAuth client, and sign in with a Google account that can edit the Google Ads account.',
			name: 'setupNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://datamanager.googleapis.com',
			description: 'Change only for a gateway or a test stand-in',
		},
	];

	/**
	 * A real Data Manager call that touches no data: the status of a request id that does not
	 * exist. Google answers 401 UNAUTHENTICATED for a refused token, 403 PERMISSION_DENIED for a
	 * token without the datamanager scope (or the API not enabled in the project), and 400
	 * INVALID_REQUEST_ID once the token is accepted, which is what this test counts as success.
	 * n8n's editor never tests OAuth2 credentials (signing in is their test); this runs when a test
	 * is asked for through n8n's API.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ ($credentials.baseUrl || "https://datamanager.googleapis.com").replace(/\\/+$/, "") }}',
			url: '/v1/requestStatus:retrieve',
			method: 'GET',
			qs: { requestId: 'lead-capi-credential-test' },
			ignoreHttpStatusErrors: true,
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.status',
					value: 'UNAUTHENTICATED',
					message: 'Google refused the access token: sign in with Google again',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.status',
					value: 'PERMISSION_DENIED',
					message:
						'Google refused the call: enable the Data Manager API in the Google Cloud project of this OAuth client and sign in again (scope https://www.googleapis.com/auth/datamanager)',
				},
			},
		],
	};
}
