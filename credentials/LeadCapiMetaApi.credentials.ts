import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';
import { appSecretProof } from '../shared/platforms/meta/proof';

/**
 * Meta dataset (pixel) + Conversions API access token. Tested by the Meta Conversions node
 * (testedBy `leadCapiMetaApiTest`), not by a declarative `test`: n8n reports a refused
 * declarative test with its own generic message, and Meta's reason (e.g. code 190, the token)
 * is what tells the user what to fix.
 */
export class LeadCapiMetaApi implements ICredentialType {
	name = 'leadCapiMetaApi';

	// Ends in "(Lead CAPI)": credential names are global in n8n, so ours say whose they are.
	// eslint-disable-next-line n8n-nodes-base/cred-class-field-display-name-missing-api
	displayName = 'Meta Conversions API (Lead CAPI)';

	icon: Icon = { light: 'file:../icons/meta.svg', dark: 'file:../icons/meta.dark.svg' };

	documentationUrl =
		'https://developers.facebook.com/docs/marketing-api/conversions-api/get-started';

	properties: INodeProperties[] = [
		{
			displayName: 'Dataset (Pixel) ID',
			name: 'pixelId',
			type: 'string',
			default: '',
			required: true,
			placeholder: '123456789012345',
			description: 'The dataset or pixel ID from Events Manager',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'A Conversions API access token (Events Manager → Settings → Generate access token) or a system-user token with access to the dataset',
		},
		{
			displayName: 'Graph API Version',
			name: 'apiVersion',
			type: 'string',
			default: 'v26.0',
			description: 'The Graph API version to call, e.g. v26.0',
		},
		{
			displayName: 'App Secret',
			name: 'appSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Optional. When set, every request carries appsecret_proof (required by apps with "Require App Secret" on).',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://graph.facebook.com',
			description: 'Change only for a gateway or a test stand-in',
		},
	];

	/** For the HTTP Request node: the token in the query string, plus appsecret_proof when configured. */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const token = String(credentials.accessToken ?? '');
		const qs: Record<string, string> = { ...(requestOptions.qs as Record<string, string>), access_token: token };
		const appSecret = String(credentials.appSecret ?? '');
		if (appSecret) qs.appsecret_proof = appSecretProof(token, appSecret);
		return { ...requestOptions, qs };
	}
}
