#!/usr/bin/env node
// @ts-check
/**
 * `npm run dev`: a real n8n 1.123.x on http://127.0.0.1:5678 with this package loaded, the
 * example workflows imported (webhook examples active), their credentials pointing at loopback
 * stand-ins of all five platforms (Meta 18081, Pinterest 18083, TikTok 18084, Microsoft 18085,
 * Google Ads API 18086, Google Data Manager 18087), of HubSpot's CRM API (18088, for the stage
 * template) and a local Redis; a demo site with the
 * capture script on 18082. Ctrl-C
 * stops everything it started.
 *
 * Env: LEAD_CAPI_DEV_PORT (default 5678), LEAD_CAPI_SITE_PORT (default 18082),
 *      REDIS_URL (default: 127.0.0.1:6379, or a redis-server started for the session).
 *
 * `npm run dev -- --check`: the same start on free ports, then one template runs as a user
 * would run it (a CRM deal-won delivery to its webhook: one Purchase to all five stand-ins),
 * prints what each stand-in received, stops everything and exits 0, or 1 when anything did not
 * happen. CI runs it on an empty cache folder, so the fresh-machine path is proved.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('./n8n/n8n.js');
const { startDemoPlatforms, localizeTemplate, newOutboxKey, TOKENS } = require('./n8n/demo.js');
const { ensureRedis } = require('./local/redis.js');

const OWNER = { email: 'dev@example.com', password: 'Lead-Capi-Dev-1' };

const CHECK = process.argv.includes('--check');

/**
 * The outbox key of this install: random, made once and kept in the n8n user folder (mode 600),
 * so outbox entries queued before a restart of `npm run dev` can still be opened after it.
 * @param {string} userFolder
 */
function installOutboxKey(userFolder) {
	const file = path.join(userFolder, 'outbox-key');
	if (!fs.existsSync(file)) fs.writeFileSync(file, newOutboxKey(), { mode: 0o600 });
	return fs.readFileSync(file, 'utf8').trim();
}

async function main() {
	const port = CHECK ? await n8n.freePort() : Number(process.env.LEAD_CAPI_DEV_PORT || 5678);
	const home = n8n.ensureN8n();
	const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: n8n.REPO, stdio: 'inherit' });
	if (build.status !== 0) throw new Error('build failed');

	const userFolder = path.join(n8n.REPO, '.dev', CHECK ? 'n8n-check' : 'n8n');
	if (CHECK) fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	const env = n8n.n8nEnv(home, userFolder, await n8n.freePort());
	n8n.installPackage(userFolder, 'link');

	const redis = await ensureRedis();
	const platforms = await startDemoPlatforms({
		redisUrl: redis.url,
		ports: CHECK
			? {}
			: {
					meta: 18081,
					pinterest: 18083,
					tiktok: 18084,
					microsoft: 18085,
					google: 18086,
					googleDataManager: 18087,
					hubspot: 18088,
				},
		keyPrefix: CHECK ? `leadcapi-devcheck-${Date.now()}` : undefined,
		outboxKey: installOutboxKey(userFolder),
	});
	// A deal the HubSpot stage template can read: its amount, and a contact with a click id.
	platforms.hubspot.addDeal('42', { amount: '1200', deal_currency_code: 'USD' }, {
		id: '4201',
		properties: { email: 'buyer@example.com', country: 'US', hs_google_click_id: 'Cj0KCQiA-dev-deal-42' },
	});
	const credentialsFile = path.join(userFolder, 'demo-credentials.json');
	fs.writeFileSync(credentialsFile, JSON.stringify(platforms.credentials, null, 2));
	n8n.importCredentials(home, env, credentialsFile);
	const examples = fs
		.readdirSync(path.join(n8n.REPO, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.map((f) => path.join(n8n.REPO, 'examples', f));
	for (const file of examples) {
		// HubSpot's CRM API, which the stage template reads, is answered by a local stand-in too.
		const workflow = localizeTemplate(JSON.parse(fs.readFileSync(file, 'utf8')), platforms);
		const hasWebhook = workflow.nodes.some(
			(/** @type {{ type: string }} */ n) =>
				/webhook|Trigger$/i.test(n.type) && !/manualTrigger/.test(n.type),
		);
		const local = path.join(userFolder, `example-${path.basename(file)}`);
		fs.writeFileSync(local, JSON.stringify(workflow, null, 2));
		n8n.importWorkflow(home, env, local, { activate: hasWebhook });
	}

	const server = await n8n.startServer(home, env, {
		port,
		logFile: path.join(userFolder, 'n8n.log'),
	});
	const demoSite = await startDemoSite(
		server.baseUrl,
		CHECK ? await n8n.freePort() : Number(process.env.LEAD_CAPI_SITE_PORT || 18082),
	);
	const cookie = await n8n.ownerSession(server.baseUrl, OWNER).catch(() => undefined);
	// n8n 2.x activates workflows in the background after start-up: wait for their webhooks.
	if (cookie) await n8n.waitForActiveWorkflows(server.baseUrl, cookie);

	const lines = [
		'',
		`n8n ${require(path.join(home, 'node_modules', 'n8n', 'package.json')).version} with n8n-nodes-lead-capi: ${server.baseUrl}`,
		`  sign in: ${OWNER.email} / ${OWNER.password}`,
		`  examples imported: ${examples.map((f) => path.basename(f)).join(', ')}`,
		...Object.entries(platforms.standIns).map(
			([name, standIn]) =>
				`  ${name} stand-in: ${standIn.url} (what it received: GET ${standIn.url}/__standin/received)`,
		),
		`  HubSpot CRM API stand-in (the stage template's deal and contact reads): ${platforms.hubspot.url} (deal 42 seeded)`,
		`  dedup Redis: ${redis.url}${redis.started ? ' (started for this session)' : ''}`,
		`  demo site with the capture script: ${demoSite.url}/pricing?fbclid=IwAR_demo&utm_source=fb (type a work email, then submit)`,
		`  try: curl -X POST ${server.baseUrl}/webhook/crm-deal-won -H 'content-type: application/json' \\`,
		`         -d '{"objectId":42,"properties":{"amount":{"value":"1200"},"deal_currency_code":{"value":"USD"}},"contact":{"email":"buyer@example.com","country":"US"}}'`,
		`  try a HubSpot stage change (signed as HubSpot's v1 signature, with the demo webhook secret):`,
		`       body='[{"eventId":1,"occurredAt":'$(date +%s000)',"subscriptionType":"deal.propertyChange","objectId":42,"propertyName":"dealstage","propertyValue":"qualifiedtobuy"}]'`,
		`       curl -X POST ${server.baseUrl}/webhook/hubspot-deal-stages -H 'content-type: application/json' -H 'x-hubspot-signature-version: v1' \\`,
		`         -H "x-hubspot-signature: $(printf '%s%s' '${TOKENS.webhook}' "$body" | sha256sum | cut -d' ' -f1)" -d "$body"`,
		`  logs: ${path.join(userFolder, 'n8n.log')}    stop: Ctrl-C`,
		'',
	];
	process.stdout.write(lines.join('\n') + '\n');
	if (CHECK) {
		let ok = false;
		try {
			ok = await checkTemplate(server.baseUrl, platforms.standIns);
		} finally {
			demoSite.close();
			server.child.removeAllListeners('exit');
			await server.stop();
			await platforms.close();
			redis.stop();
		}
		process.exit(ok ? 0 : 1);
	}

	const stop = async () => {
		demoSite.close();
		await server.stop();
		await platforms.close();
		redis.stop();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	server.child.once('exit', (code) => {
		process.stderr.write(`n8n exited (${code}); see ${path.join(userFolder, 'n8n.log')}\n`);
		platforms.close().then(() => {
			redis.stop();
			process.exit(code ?? 1);
		});
	});
}

/**
 * `--check`: a CRM deal-won delivery to the template's webhook, as the ready lines suggest;
 * passes when every one of the five stand-ins received exactly one event for it.
 * @param {string} baseUrl
 * @param {Record<string, { url: string }>} standIns
 * @returns {Promise<boolean>}
 */
async function checkTemplate(baseUrl, standIns) {
	const deal = {
		objectId: Date.now(),
		properties: { amount: { value: '1200' }, deal_currency_code: { value: 'USD' } },
		contact: { email: 'buyer@example.com', phone: '+1 650 555 1212', country: 'US' },
	};
	const res = await fetch(`${baseUrl}/webhook/crm-deal-won`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(deal),
	});
	process.stdout.write(`check: POST /webhook/crm-deal-won -> HTTP ${res.status}\n`);
	if (!res.ok) return false;
	/** @type {Record<string, number>} */
	let counts = {};
	const deadline = Date.now() + 60_000;
	while (Date.now() < deadline) {
		counts = {};
		for (const [name, standIn] of Object.entries(standIns)) {
			// The templates reach Google through the Data Manager API; the Google Ads API stand-in
			// serves workflows on the node's version 1 only.
			if (name === 'google') continue;
			const report = /** @type {{ received?: unknown[] }} */ (
				await (await fetch(`${standIn.url}/__standin/received`)).json()
			);
			counts[name] = Array.isArray(report.received) ? report.received.length : 0;
		}
		if (Object.values(counts).every((n) => n >= 1)) break;
		await new Promise((r) => setTimeout(r, 500));
	}
	const line = Object.entries(counts)
		.map(([name, n]) => `${name} ${n}`)
		.join(', ');
	const ok = Object.values(counts).every((n) => n === 1);
	process.stdout.write(`check: events received per stand-in: ${line} -> ${ok ? 'PASS' : 'FAIL'}\n`);
	return ok;
}

/**
 * A page on its own origin with a form and the capture script tag of the example workflow
 * "site capture script → qualified partial leads → Meta Conversions".
 * @param {string} n8nBase
 * @param {number} port
 */
function startDemoSite(n8nBase, port) {
	const http = require('node:http');
	const server = http.createServer((req, res) => {
		if (req.method === 'POST') {
			res.writeHead(303, { location: '/thanks' }).end();
			return;
		}
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
		res.end(
			req.url === '/thanks'
				? '<!doctype html><p>Thanks! Check the Meta stand-in for a PartialLead and a Lead.</p>'
				: `<!doctype html><html><head><title>Demo pricing page</title></head><body>
<h1>Book a demo</h1>
<form id="demo" method="post" action="/submit">
  <p><label>Work email <input type="email" name="email" autocomplete="email"></label></p>
  <p><label>Phone <input type="tel" name="phone"></label></p>
  <p><label>First name <input name="first_name"></label> <label>Last name <input name="last_name"></label></p>
  <p><button type="submit">Book a demo</button></p>
</form>
<script src="${n8nBase}/webhook/site-leads" async></script>
</body></html>`,
		);
	});
	return new Promise((resolve) => {
		server.listen(port, '127.0.0.1', () =>
			resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close() }),
		);
	});
}

main().catch((error) => {
	process.stderr.write(`npm run dev: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
