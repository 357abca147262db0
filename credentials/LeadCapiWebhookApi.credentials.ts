import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * The secret a form tool or CRM signs its webhooks with (Typeform secret, Tally signing secret,
 * Calendly webhook signing key, Cal.com webhook secret, or your own HMAC key). Checked locally by
 * the Lead Capture Trigger on every delivery; there is no remote API to test it against, so the
 * credential test is the signature check of a real delivery (see the README).
 */
export class LeadCapiWebhookApi implements ICredentialType {
	name = 'leadCapiWebhookApi';

	// Ends in "(Lead CAPI)": credential names are global in n8n, so ours say whose they are.
	// eslint-disable-next-line n8n-nodes-base/cred-class-field-display-name-missing-api
	displayName = 'Lead Capture Webhook Secret API (Lead CAPI)';

	icon: Icon = { light: 'file:../icons/lead-capture.svg', dark: 'file:../icons/lead-capture.dark.svg' };

	documentationUrl = 'https://github.com/lead-capi/n8n-nodes-lead-capi/blob/main/docs/capture.md#setting-up-each-source';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The secret the sender signs deliveries with: Typeform "Secret", Tally "Signing secret", Calendly webhook signing key, Cal.com webhook "Secret", or the HMAC key you configured',
		},
	];
}
