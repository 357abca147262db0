import type {
	IAuthenticateGeneric,
	ICredentialType,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

/**
 * TikTok pixel (and optional CRM event set) + Events API access token. Tested by the TikTok Events
 * node (testedBy `leadCapiTiktokApiTest`): a probe without events that reports TikTok's own reason
 * (message, code) when the token or the pixel is refused; a declarative `test` could only show
 * fixed texts for the codes listed in it.
 */
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
}
