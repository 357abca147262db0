const { ensureRedis, hasRedisServer, startRedisServer } = require('../../scripts/local/redis');

/**
 * The run's Redis: REDIS_URL, else 127.0.0.1:6379, else a redis-server of its own. With several
 * jest workers and redis-server installed, each worker also gets a private redis-server
 * (redis-worker.js points REDIS_URL at it in every test file the worker runs): files in
 * parallel never queue behind each other's scripts on one single-threaded Redis, which under
 * load made a 2,000-event claim miss its 3 s command timeout. LEAD_CAPI_TEST_REDIS=shared keeps
 * every file on the one Redis (REDIS_URL).
 */
module.exports = async function globalSetup(globalConfig) {
	const redis = await ensureRedis();
	process.env.REDIS_URL = redis.url;
	// The run's Redis PII scans are collected under this id (redis-pii-scan.js).
	process.env.LEAD_CAPI_REDIS_SCAN_ID = `${Date.now()}-${process.pid}`;
	const servers = [redis];
	const workers = Number(globalConfig?.maxWorkers ?? 1);
	if (workers > 1 && process.env.LEAD_CAPI_TEST_REDIS !== 'shared' && hasRedisServer()) {
		const own = await Promise.all(Array.from({ length: workers }, () => startRedisServer()));
		servers.push(...own);
		process.env.LEAD_CAPI_TEST_REDIS_URLS = own.map((s) => s.url).join(',');
	}
	globalThis.__LEAD_CAPI_REDIS__ = servers;
};
