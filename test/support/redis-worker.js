/**
 * Runs in each test file before it starts (jest setupFiles): points REDIS_URL at the private
 * redis-server of the jest worker running the file, when the global setup started one per worker.
 */
const urls = (process.env.LEAD_CAPI_TEST_REDIS_URLS ?? '').split(',').filter(Boolean);
if (urls.length > 0) {
	const worker = Number(process.env.JEST_WORKER_ID ?? 1);
	process.env.REDIS_URL = urls[(worker - 1) % urls.length];
}
