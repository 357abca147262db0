import type { IExecuteFunctions } from 'n8n-workflow';
import {
	MemoryDedupStore,
	RedisDedupStore,
	warnIfMarkersEvictable,
	type DedupStore,
	type RedisClient,
} from '../../shared';
import { getRedisClient, redisConfigFromCredentials } from './redisClients';

/** The in-memory store lives as long as this n8n process; every node of it shares this one. */
export const memoryStore = new MemoryDedupStore();

/**
 * The dedup store a node asks for: Redis (from the leadCapiRedisApi credential, one pooled
 * connection per credential), the process-wide in-memory store, or none.
 */
export async function resolveStore(
	ctx: IExecuteFunctions,
	kind: 'redis' | 'memory' | 'off',
): Promise<{ store: DedupStore | null; keyPrefix?: string; client?: RedisClient }> {
	if (kind === 'off') return { store: null };
	if (kind === 'memory') return { store: memoryStore };
	const credentials = await ctx.getCredentials('leadCapiRedisApi');
	const { client, description } = getRedisClient(redisConfigFromCredentials(credentials));
	// Logged once the connection is up, at most every 10 minutes per connection.
	void warnIfMarkersEvictable(client, (message) => ctx.logger.warn(message));
	return {
		store: new RedisDedupStore(client, { description }),
		client,
		keyPrefix: credentials.keyPrefix ? String(credentials.keyPrefix) : undefined,
	};
}
