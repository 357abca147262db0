import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * The secret the outbox seals its entries with (AES-256-GCM, key derived from it). It stays in
 * n8n's credential store and is never written to Redis: without it nothing in the outbox can be
 * read. Changing it leaves entries sealed with the old one unreadable: they go to dead letters
 * as `undecryptable` (docs/outbox.md, "Rotating the key").
 */
export class LeadCapiOutboxApi implements ICredentialType {
	name = 'leadCapiOutboxApi';

	displayName = 'Lead CAPI Outbox Key API';

	icon: Icon = {
		light: 'file:../icons/lead-capture.svg',
		dark: 'file:../icons/lead-capture.dark.svg',
	};

	documentationUrl = 'https://github.com/lead-capi/n8n-nodes-lead-capi/blob/main/docs/outbox.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Outbox Key',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'At least 16 characters, e.g. the output of openssl rand -base64 32. Every node that queues or drains the same outbox needs the same key.',
		},
	];
}
