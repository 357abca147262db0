import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * The Redis that holds the dedup claims. Tested by the sender nodes' `leadCapiRedisConnectionTest`
 * (connect + PING with a timeout), because a Redis connection is not an HTTP request.
 */
export class LeadCapiRedisApi implements ICredentialType {
	name = 'leadCapiRedisApi';

	displayName = 'Lead CAPI Dedup Store (Redis) API';

	icon: Icon = { light: 'file:../icons/redis.svg', dark: 'file:../icons/redis.dark.svg' };

	documentationUrl = 'https://github.com/lead-capi/n8n-nodes-lead-capi#deduplication';

	properties: INodeProperties[] = [
		{
			displayName: 'Connection',
			name: 'connection',
			type: 'options',
			options: [
				{ name: 'Host and Port', value: 'fields' },
				{ name: 'Redis URL', value: 'url' },
			],
			default: 'fields',
		},
		// The URL may carry the password (redis://user:password@host), so it is masked.
		// eslint-disable-next-line @n8n/community-nodes/credential-unnecessary-password
		{
			displayName: 'Redis URL',
			name: 'url',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'redis://user:password@127.0.0.1:6379/0',
			description: 'A redis:// URL, or rediss:// for TLS',
			displayOptions: { show: { connection: ['url'] } },
		},
		{
			displayName: 'Host',
			name: 'host',
			type: 'string',
			default: '127.0.0.1',
			displayOptions: { show: { connection: ['fields'] } },
		},
		{
			displayName: 'Port',
			name: 'port',
			type: 'number',
			default: 6379,
			displayOptions: { show: { connection: ['fields'] } },
		},
		{
			displayName: 'Username',
			name: 'username',
			type: 'string',
			default: '',
			hint: 'Leave blank for password-only authentication',
			displayOptions: { show: { connection: ['fields'] } },
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { connection: ['fields'] } },
		},
		{
			displayName: 'Database Number',
			name: 'database',
			type: 'number',
			default: 0,
			displayOptions: { show: { connection: ['fields'] } },
		},
		{
			displayName: 'SSL/TLS',
			name: 'tls',
			type: 'boolean',
			default: false,
			description: 'Whether to connect over TLS',
			displayOptions: { show: { connection: ['fields'] } },
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'disableTlsVerification',
			type: 'boolean',
			default: false,
			description: 'Whether to accept a certificate that cannot be verified (self-signed)',
		},
		{
			displayName: 'Key Prefix',
			name: 'keyPrefix',
			type: 'string',
			default: 'leadcapi',
			description:
				'First part of every dedup key: <prefix>:<platform>:<destination>:<event ID>. Give each environment (or client) its own prefix to keep their dedup apart.',
		},
	];
}
