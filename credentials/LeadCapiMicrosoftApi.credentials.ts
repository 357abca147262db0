import type { IAuthenticateGeneric, ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * A UET tag + its Conversions API auth key. No declarative `test`: Microsoft documents no
 * read-only call for this API, and the only authenticated endpoint (POST …/events) answers an
 * empty probe batch with 400, which a declarative test can only report as a failure. The
 * Microsoft Conversions node tests it instead (`leadCapiMicrosoftApiTest`): it posts an
 * empty batch, which cannot record a conversion, and tells 401/403 (token or tag refused) and
 * 404 (tag ID or Base URL) from 2xx/400 (past authentication).
 */
export class LeadCapiMicrosoftApi implements ICredentialType {
	name = 'leadCapiMicrosoftApi';

	// Ends in "(Lead CAPI)": credential names are global in n8n, so ours say whose they are.
	// eslint-disable-next-line n8n-nodes-base/cred-class-field-display-name-missing-api
	displayName = 'Microsoft Conversions API (Lead CAPI)';

	icon: Icon = { light: 'file:../icons/microsoft.svg', dark: 'file:../icons/microsoft.dark.svg' };

	documentationUrl =
		'https://learn.microsoft.com/en-us/advertising/guides/uet-conversion-api-integration';

	properties: INodeProperties[] = [
		{
			displayName: 'UET Tag ID',
			name: 'uetTagId',
			type: 'string',
			default: '',
			required: true,
			placeholder: '187072955',
			description:
				'The ID of the UET tag the conversions go to (Microsoft Advertising → Tools → UET tag)',
		},
		{
			displayName: 'API Token',
			name: 'apiToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The UET tag\'s Conversions API auth key (on the UET tag: "Use Conversions API"; or from your account manager). Not a Microsoft Advertising API OAuth token.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://capi.uet.microsoft.com',
			description: 'Change only for a gateway or a test stand-in',
		},
	];

	/** The bearer token, so the credential also works in the HTTP Request node. */
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.apiToken}}' } },
	};
}
