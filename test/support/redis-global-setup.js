const { ensureRedis } = require('../../scripts/local/redis');

module.exports = async function globalSetup() {
	const redis = await ensureRedis();
	process.env.REDIS_URL = redis.url;
	// The run's Redis PII scans are collected under this id (redis-pii-scan.js).
	process.env.LEAD_CAPI_REDIS_SCAN_ID = `${Date.now()}-${process.pid}`;
	globalThis.__LEAD_CAPI_REDIS__ = redis;
};
