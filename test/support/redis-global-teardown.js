const { scanAfterRun } = require('./redis-pii-scan');

module.exports = async function globalTeardown() {
	const servers = globalThis.__LEAD_CAPI_REDIS__ ?? [];
	try {
		// No raw email, phone or name in anything the suites wrote, on any of the run's Redis
		// servers (throws, failing the run, if so).
		if (servers.length > 0) await scanAfterRun(servers.map((s) => s.url));
	} finally {
		for (const server of servers) server.stop();
	}
};
