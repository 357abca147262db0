import { createHash } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import {
	createRedisClient,
	describeRedis,
	watchEvictionPolicy,
	type RedisConnectionConfig,
} from '../../shared';
import {
	checkRedisHost,
	DEFAULT_SENTINEL_PORT,
	parseRedisAddresses,
	type RedisClient,
} from '../../shared/redis/client';

/**
 * One Redis connection per credential, reused across executions of this n8n process (as n8n's
 * Postgres node pools its connections), closed after a while unused.
 */
const IDLE_CLOSE_MS = 5 * 60_000;

interface PoolEntry {
	client: RedisClient;
	description: string;
	lastUsed: number;
}

const pool = new Map<string, PoolEntry>();
let sweeper: ReturnType<typeof setInterval> | undefined;

const text = (value: unknown): string | undefined => (value ? String(value) : undefined);

/**
 * The credential as a connection config. Throws a message naming the field and the problem when
 * an address cannot be read (shown by the credential test and by the node that uses it, and
 * logged by the trigger); the message never repeats what was typed, which may be a password.
 */
export function redisConfigFromCredentials(
	credentials: ICredentialDataDecryptedObject,
): RedisConnectionConfig {
	const allowUnauthorizedCerts = Boolean(credentials.disableTlsVerification);
	const auth = {
		username: text(credentials.username),
		password: text(credentials.password),
		tls: Boolean(credentials.tls),
		allowUnauthorizedCerts,
	};
	switch (credentials.connection) {
		case 'url':
			return { url: checkedRedisUrl(String(credentials.url ?? '').trim()), allowUnauthorizedCerts };
		case 'sentinel': {
			const masterName = String(credentials.masterName ?? '').trim();
			if (!masterName) {
				throw new Error('Master Name: enter the name the Sentinels monitor, e.g. mymaster');
			}
			return {
				mode: 'sentinel',
				sentinels: parseRedisAddresses(
					String(credentials.sentinels ?? ''),
					DEFAULT_SENTINEL_PORT,
					'Sentinel Addresses',
				),
				masterName,
				sentinelUsername: text(credentials.sentinelUsername),
				sentinelPassword: text(credentials.sentinelPassword),
				database: Number(credentials.database || 0),
				...auth,
			};
		}
		case 'cluster':
			return {
				mode: 'cluster',
				nodes: parseRedisAddresses(String(credentials.clusterNodes ?? ''), 6379, 'Cluster Nodes'),
				...auth,
			};
		default: {
			// 'fields', and credentials saved before the connection type existed.
			const host = String(credentials.host || '127.0.0.1').trim();
			checkRedisHost(host, 'Host');
			return {
				host,
				port: Number(credentials.port || 6379),
				database: Number(credentials.database || 0),
				...auth,
			};
		}
	}
}

/**
 * A redis:// or rediss:// URL, or a thrown message that does not repeat it: the URL holds the
 * password, and Node's own "Invalid URL" error carries the input along.
 */
function checkedRedisUrl(url: string): string {
	let parsed: URL | undefined;
	try {
		parsed = new URL(url);
	} catch {
		parsed = undefined;
	}
	if (!parsed || !/^rediss?:$/.test(parsed.protocol) || parsed.hostname === '') {
		throw new Error(
			'Redis URL: not a redis://[user:password@]host:port/db or rediss://… URL (the value is not shown)',
		);
	}
	return url;
}

function poolKey(config: RedisConnectionConfig): string {
	return createHash('sha256').update(JSON.stringify(config)).digest('hex');
}

function sweep(): void {
	const now = Date.now();
	for (const [key, entry] of pool) {
		if (now - entry.lastUsed > IDLE_CLOSE_MS) {
			pool.delete(key);
			entry.client.disconnect();
		}
	}
	if (pool.size === 0 && sweeper) {
		clearInterval(sweeper);
		sweeper = undefined;
	}
}

export function getRedisClient(config: RedisConnectionConfig): {
	client: RedisClient;
	description: string;
} {
	const key = poolKey(config);
	let entry = pool.get(key);
	if (!entry || entry.client.status === 'end') {
		entry = { client: createRedisClient(config), description: describeRedis(config), lastUsed: 0 };
		// Dedup markers must not be evictable: checked on every (re)connection (shared/dedup/evictionPolicy).
		watchEvictionPolicy(entry.client, entry.description);
		pool.set(key, entry);
	}
	entry.lastUsed = Date.now();
	if (!sweeper) {
		sweeper = setInterval(sweep, 60_000);
		sweeper.unref();
	}
	return entry;
}
