import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

/** TikTok pixel (and optional CRM event set) + Events API access token. */
export class LeadCapiTiktokApi implements ICredentialType {
	name = 'leadCapiTiktokApi';

	// Ends in "(Lead CAPI)": credential names are global in n8n, so ours say whose they are.
	// eslint-disable-next-line n8n-nodes-base/cred-class-field-display-name-missing-api
	displayName = 'TikTok Events API (Lead CAPI)';

	icon: Icon = { light: 'file:../icons/tiktok.svg', dark: 'file:../icons/tiktok.dark.svg' };

	documentationUrl = 'https://ads.tiktok.com/help/article/events-api';

	properties: INodeProperties[] = [
		{
			displayName: 'Pixel Code',
			name: 'pixelCode',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'C4ABCDEFGHIJ1234567',
			description: 'Events Manager → Web → your pixel: the code under the pixel name',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Events Manager → your pixel → Settings → Events API → Generate Access Token',
		},
		{
			displayName: 'CRM Event Set ID',
			name: 'crmEventSetId',
			type: 'string',
			default: '',
			description:
				'Optional. For Event Source "CRM": Events Manager → CRM → your event set → its ID',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://business-api.tiktok.com',
			description: 'Change only for a gateway or a test stand-in',
		},
	];

	/** The Events API reads the token from the Access-Token header. */
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { 'Access-Token': '={{$credentials.accessToken}}' } },
	};

	/**
	 * TikTok documents no read-only call that proves an Events API token (the Marketing API's
	 * user/pixel reads need an app token and an advertiser ID). So the test posts to event/track
	 * itself, with the pixel code, a test event code and no events: nothing can be recorded.
	 * TikTok answers errors on HTTP 200 with a `code`: a bad token gives 40104 (empty), 40105
	 * (invalid) or 40102 (expired), a token that may not send to the pixel 40001 / 40003, and the
	 * rules turn those into errors. Any other answer (expected: a parameter error about the empty
	 * `data`) passes. The order of TikTok's checks is not documented: if it ever judged the empty
	 * `data` before the token or the pixel, a bad one would pass here and fail on the first send,
	 * with TikTok's message on the item.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ ($credentials.baseUrl || "https://business-api.tiktok.com").replace(/\\/+$/, "") }}',
			url: '/open_api/v1.3/event/track/',
			method: 'POST',
			body: {
				event_source: 'web',
				event_source_id: '={{ $credentials.pixelCode }}',
				test_event_code: 'N8N_CREDENTIAL_TEST',
				data: [],
			},
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'code',
					value: 40104,
					message: 'TikTok: the access token is empty (code 40104)',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'code',
					value: 40105,
					message:
						'TikTok: the access token is incorrect or has been revoked (code 40105); generate a new one in Events Manager',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'code',
					value: 40102,
					message:
						'TikTok: the access token has expired (code 40102); generate a new one in Events Manager',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'code',
					value: 40001,
					message:
						'TikTok: this access token may not send events to this pixel code (code 40001); check the pixel code',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'code',
					value: 40003,
					message:
						'TikTok: access forbidden for this pixel code (code 40003); check the pixel code and the token',
				},
			},
		],
	};
}
