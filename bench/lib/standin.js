// @ts-check
/**
 * The loopback Meta stand-in (test/standins/meta.js, unchanged) in its own process, plus a tiny
 * control server on a second port so that a measuring process can read cheap counters instead of
 * GET /__standin/received (which returns every event: ~100 MB of JSON at 100k events).
 *
 *   node bench/lib/standin.js --token <t>   → prints one JSON line {"url", "control"} when ready
 *
 * Control endpoints (loopback only):
 *   GET  /stats  → { requests, statuses: {200: n, …}, events, distinctEventIds }
 *   POST /reset  → forgets everything received (the stand-in's own reset())
 * The measuring process calls them only outside its timed sections.
 */
const http = require('node:http');
const path = require('node:path');
const { startMetaStandIn } = require(path.join(__dirname, '..', '..', 'test', 'standins', 'meta.js'));

async function main() {
	const i = process.argv.indexOf('--token');
	const token = i >= 0 ? process.argv[i + 1] : '';
	if (!token) throw new Error('usage: standin.js --token <token>');
	const standIn = await startMetaStandIn({ accessToken: token });
	const control = http.createServer((req, res) => {
		let body;
		if (req.method === 'GET' && req.url === '/stats') {
			/** @type {Record<string, number>} */
			const statuses = {};
			for (const r of standIn.requests) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
			const ids = new Set();
			for (const r of standIn.received) ids.add(r.event.event_id);
			body = {
				requests: standIn.requests.length,
				statuses,
				events: standIn.received.length,
				distinctEventIds: ids.size,
			};
		} else if (req.method === 'POST' && req.url === '/reset') {
			standIn.reset();
			body = { ok: true };
		} else {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
	});
	await new Promise((resolve) => control.listen(0, '127.0.0.1', () => resolve(undefined)));
	const address = control.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	process.stdout.write(`${JSON.stringify({ url: standIn.url, control: `http://127.0.0.1:${port}` })}\n`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
