import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * The Redis that holds the dedup claims: one server (host and port, or URL), the master behind
 * Redis Sentinel, or a Redis Cluster. Tested by the sender nodes' `leadCapiRedisConnectionTest`
 * (connect + PING with a timeout), because a Redis connection is not an HTTP request.
 */
export class LeadCapiRedisApi implements ICredentialType {
	name = 'leadCapiRedisApi';

	displayName = 'Lead CAPI Dedup Store (Redis) API';

	icon: Icon = { light: 'file:../icons/redis.svg', dark: 'file:../icons/redis.dark.svg' };

	documentationUrl = 'https://github.com/lead-capi/n8n-nodes-lead-capi/blob/main/docs/dedup.md#the-redis-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'Connection',
			name: 'connection',
			type: 'options',
			options: [
				{ name: 'Host and Port', value: 'fields', description: 'One Redis server' },
				{
					name: 'Redis URL',
					value: 'url',
					description: 'One Redis server, as a redis:// or rediss:// URL',
				},
				{
					name: 'Sentinel',
					value: 'sentinel',
					description: 'The master that Redis Sentinels point to; follows failovers',
				},
				{ name: 'Cluster', value: 'cluster', description: 'A Redis Cluster (database 0 only)' },
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
			displayName: 'Sentinel Addresses',
			name: 'sentinels',
			type: 'string',
			default: '',
			placeholder: '10.0.0.1:26379, 10.0.0.2:26379, 10.0.0.3:26379',
			description:
				'The Sentinels as host:port, separated by commas (port 26379 when left out). One that answers is enough; list them all so a Sentinel outage does not matter.',
			displayOptions: { show: { connection: ['sentinel'] } },
		},
		{
			displayName: 'Master Name',
			name: 'masterName',
			type: 'string',
			default: 'mymaster',
			description: 'The name the Sentinels monitor the master under (sentinel monitor <name> …)',
			displayOptions: { show: { connection: ['sentinel'] } },
		},
		{
			displayName: 'Sentinel Username',
			name: 'sentinelUsername',
			type: 'string',
			default: '',
			hint: 'Only when the Sentinels themselves require authentication',
			displayOptions: { show: { connection: ['sentinel'] } },
		},
		{
			displayName: 'Sentinel Password',
			name: 'sentinelPassword',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			hint: 'Only when the Sentinels themselves require authentication (requirepass in sentinel.conf)',
			displayOptions: { show: { connection: ['sentinel'] } },
		},
		{
			displayName: 'Cluster Nodes',
			name: 'clusterNodes',
			type: 'string',
			default: '',
			placeholder: '10.0.0.1:6379, 10.0.0.2:6379, 10.0.0.3:6379',
			description:
				'One or more nodes of the cluster as host:port, separated by commas (port 6379 when left out); the other nodes are discovered',
			displayOptions: { show: { connection: ['cluster'] } },
		},
		{
			displayName:
				'Redis Cluster has only database 0. Dedup keys carry the destination as a hash tag (<prefix>:<platform>:{<destination>}:<event ID>) so that one batch stays in one slot; moving from a single Redis to a cluster therefore starts dedup memory afresh.',
			name: 'clusterNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { connection: ['cluster'] } },
		},
		{
			displayName: 'Username',
			name: 'username',
			type: 'string',
			default: '',
			hint: 'Leave blank for password-only authentication',
			displayOptions: { show: { connection: ['fields', 'sentinel', 'cluster'] } },
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { connection: ['fields', 'sentinel', 'cluster'] } },
		},
		{
			displayName: 'Database Number',
			name: 'database',
			type: 'number',
			default: 0,
			displayOptions: { show: { connection: ['fields', 'sentinel'] } },
		},
		{
			displayName: 'SSL/TLS',
			name: 'tls',
			type: 'boolean',
			default: false,
			description:
				'Whether to connect over TLS (with Sentinel: to the Sentinels and to the master)',
			displayOptions: { show: { connection: ['fields', 'sentinel', 'cluster'] } },
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
