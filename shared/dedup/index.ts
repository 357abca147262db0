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
	DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
	DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
} from './redisClient';
export type { RedisConnectionConfig } from './redisClient';
