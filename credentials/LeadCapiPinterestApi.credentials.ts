import type { IAuthenticateGeneric, ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * Pinterest ad account + conversion access token. Tested by the Pinterest Conversions node
 * (testedBy): a conversion token may not be allowed to read the ad account, so the test is one
 * synthetic event sent with `?test=true`, which Pinterest validates and does not record.
 */
export class LeadCapiPinterestApi implements ICredentialType {
	name = 'leadCapiPinterestApi';

	// Ends in "(Lead CAPI)": credential names are global in n8n, so ours say whose they are.
	// eslint-disable-next-line n8n-nodes-base/cred-class-field-display-name-missing-api
	displayName = 'Pinterest Conversions API (Lead CAPI)';

	icon: Icon = { light: 'file:../icons/pinterest.svg', dark: 'file:../icons/pinterest.dark.svg' };

	documentationUrl = 'https://developers.pinterest.com/docs/api-features/conversion-overview/';

	properties: INodeProperties[] = [
		{
			displayName: 'Ad Account ID',
			name: 'adAccountId',
			type: 'string',
			default: '',
			required: true,
			placeholder: '549755885175',
			description: 'The ad account the conversions belong to (digits, from Ads Manager)',
		},
		{
			displayName: 'Conversion Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Generated in Ads Manager → Conversions → Conversions API. Its user must own the ad account or have Admin, Analyst, Audience or Campaign access to it.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.pinterest.com',
			description: 'Change only for a gateway or a test stand-in',
		},
	];

	/** Lets the HTTP Request node use this credential too. */
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.accessToken}}' } },
	};
}
