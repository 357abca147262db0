import { createHash } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import type Redis from 'ioredis';
import { createRedisClient, describeRedis, type RedisConnectionConfig } from '../../shared';

/**
 * One Redis connection per credential, reused across executions of this n8n process (as n8n's
 * Postgres node pools its connections), closed after a while unused.
 */
const IDLE_CLOSE_MS = 5 * 60_000;

interface PoolEntry {
	client: Redis;
	description: string;
	lastUsed: number;
}

const pool = new Map<string, PoolEntry>();
let sweeper: ReturnType<typeof setInterval> | undefined;

export function redisConfigFromCredentials(
	credentials: ICredentialDataDecryptedObject,
): RedisConnectionConfig {
	if (credentials.connection === 'url') {
		return {
			url: String(credentials.url ?? ''),
			allowUnauthorizedCerts: Boolean(credentials.disableTlsVerification),
		};
	}
	return {
		host: String(credentials.host || '127.0.0.1'),
		port: Number(credentials.port || 6379),
		username: credentials.username ? String(credentials.username) : undefined,
		password: credentials.password ? String(credentials.password) : undefined,
		database: Number(credentials.database || 0),
		tls: Boolean(credentials.tls),
		allowUnauthorizedCerts: Boolean(credentials.disableTlsVerification),
	};
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

export function getRedisClient(config: RedisConnectionConfig): { client: Redis; description: string } {
	const key = poolKey(config);
	let entry = pool.get(key);
	if (!entry || entry.client.status === 'end') {
		entry = { client: createRedisClient(config), description: describeRedis(config), lastUsed: 0 };
		pool.set(key, entry);
	}
	entry.lastUsed = Date.now();
	if (!sweeper) {
		sweeper = setInterval(sweep, 60_000);
		sweeper.unref();
	}
	return entry;
}
