const { ensureRedis } = require('../../scripts/local/redis');

module.exports = async function globalSetup() {
	const redis = await ensureRedis();
	process.env.REDIS_URL = redis.url;
	globalThis.__LEAD_CAPI_REDIS__ = redis;
};
