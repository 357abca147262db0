const { scanAfterRun } = require('./redis-pii-scan');

module.exports = async function globalTeardown() {
	const redis = globalThis.__LEAD_CAPI_REDIS__;
	try {
		// No raw email, phone or name in anything the suites wrote (throws, failing the run, if so).
		if (redis) await scanAfterRun(redis.url);
	} finally {
		if (redis) redis.stop();
	}
};
