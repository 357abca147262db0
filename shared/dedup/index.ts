export * from './types';
export { MemoryDedupStore } from './memoryStore';
export { RedisDedupStore } from './redisStore';
export type { RedisDedupStoreOptions } from './redisStore';
export {
	createRedisClient,
	describeRedis,
	testRedisConnection,
	waitForReady,
	friendlyRedisError,
	parseRedisAddresses,
	redisClientOptions,
	isClusterClient,
	redisErrorHint,
	describeRedisTrouble,
	DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
	DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
	DEFAULT_SENTINEL_PORT,
} from '../redis/client';
export type * from '../redis/client';
export {
	assessEvictionPolicy,
	checkEvictionPolicy,
	evictionCheck,
	warnIfMarkersEvictable,
	watchEvictionPolicy,
	EVICTION_ADVICE,
} from './evictionPolicy';
export type { EvictionCheck } from './evictionPolicy';
export { describeRedisMemory, explainOutOfMemory, isOutOfMemory, keyFamily } from '../redis/memory';
