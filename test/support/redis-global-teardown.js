module.exports = async function globalTeardown() {
	const redis = globalThis.__LEAD_CAPI_REDIS__;
	if (redis) redis.stop();
};
