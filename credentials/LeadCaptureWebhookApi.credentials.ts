import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * The secret a form tool or CRM signs its webhooks with (Typeform secret, Tally signing secret,
 * Calendly webhook signing key, Cal.com webhook secret, or your own HMAC key). Checked locally by
 * the Lead Capture Trigger on every delivery; there is no remote API to test it against, so the
 * credential test is the signature check of a real delivery (see the README).
 */
export class LeadCaptureWebhookApi implements ICredentialType {
	name = 'leadCaptureWebhookApi';

	displayName = 'Lead Capture Webhook Secret API';

	icon: Icon = { light: 'file:../icons/lead-capture.svg', dark: 'file:../icons/lead-capture.dark.svg' };

	documentationUrl = 'https://github.com/lead-capi/n8n-nodes-lead-capi#lead-capture-trigger';

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
