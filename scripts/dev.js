#!/usr/bin/env node
// @ts-check
/**
 * `npm run dev`: a real n8n 1.123.x on http://127.0.0.1:5678 with this package loaded, the
 * example workflows imported (webhook examples active), their credentials pointing at loopback
 * stand-ins of all five platforms (Meta 18081, Pinterest 18083, TikTok 18084, Microsoft 18085,
 * Google Ads API 18086, Google Data Manager 18087), of HubSpot's CRM API (18088, for the stage
 * template) and a local Redis; a demo site with the capture script on 18082. Ctrl-C stops
 * everything it started and says "stopped"; n8n exiting by itself is reported as a crash.
 *
 * Env: LEAD_CAPI_DEV_PORT (n8n, default 5678), LEAD_CAPI_STANDIN_PORT (the first of 8 ports:
 *      the stand-ins at +0 and +2…+7, the demo site at +1; default 18081), LEAD_CAPI_SITE_PORT
 *      (the demo site alone), LEAD_CAPI_DEV_FOLDER (n8n's user folder: database, n8n.log;
 *      default .dev/n8n), REDIS_URL (default: 127.0.0.1:6379, or a redis-server started for the
 *      session). A port already in use stops it at once, before the n8n install, with one line
 *      naming the port, whom it is for and the setting that picks another.
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
const rest = require('./n8n/rest.js');
const { startDemoPlatforms, localizeTemplate, newOutboxKey, TOKENS } = require('./n8n/demo.js');
const { ensureRedis } = require('./local/redis.js');
const { portProblem, freeRun } = require('./local/ports.js');

const OWNER = { email: 'dev@example.com', password: 'Lead-Capi-Dev-1' };

const CHECK = process.argv.includes('--check');

/** The stand-ins by the name startDemoPlatforms gives them, in their port order from LEAD_CAPI_STANDIN_PORT. */
const STANDINS = {
	meta: 'Meta',
	pinterest: 'Pinterest',
	tiktok: 'TikTok',
	microsoft: 'Microsoft',
	google: 'Google Ads API',
	googleDataManager: 'Google Data Manager',
	hubspot: 'HubSpot CRM API',
};

/**
 * A port from the environment, or the default.
 * @param {string} name @param {number} fallback @param {number} [span] ports used from there
 */
function portSetting(name, fallback, span = 1) {
	const value = process.env[name];
	if (value === undefined || value === '') return fallback;
	const port = Number(value);
	if (!Number.isInteger(port) || port < 1 || port + span - 1 > 65535) {
		throw new Error(`${name}=${value} is not a port number (1–${65536 - span})`);
	}
	return port;
}

/**
 * The ports `npm run dev` listens on (--check takes free ones instead), each with whom it is for
 * and the setting that moves it. The task broker n8n opens takes a free port of its own.
 */
function devPorts() {
	const n8nPort = portSetting('LEAD_CAPI_DEV_PORT', 5678);
	const first = portSetting('LEAD_CAPI_STANDIN_PORT', 18081, 8);
	const site = portSetting('LEAD_CAPI_SITE_PORT', first + 1);
	/** @type {Record<keyof typeof STANDINS, number>} */
	const standIns = {
		meta: first,
		pinterest: first + 2,
		tiktok: first + 3,
		microsoft: first + 4,
		google: first + 5,
		googleDataManager: first + 6,
		hubspot: first + 7,
	};
	const all = [
		{ port: n8nPort, owner: "n8n's editor", setting: 'LEAD_CAPI_DEV_PORT', first: n8nPort, span: 1 },
		{ port: site, owner: 'the demo site', setting: 'LEAD_CAPI_SITE_PORT', first: site, span: 1 },
		...Object.entries(standIns).map(([name, port]) => ({
			port,
			owner: `the ${STANDINS[/** @type {keyof typeof STANDINS} */ (name)]} stand-in`,
			setting: 'LEAD_CAPI_STANDIN_PORT',
			first,
			span: 8,
		})),
	];
	return { n8n: n8nPort, site, standIns, all };
}

/**
 * Throws one line for the first port that cannot be listened on: which port, for whom, and the
 * setting that picks another (with a port that is free now).
 * @param {ReturnType<typeof devPorts>['all']} entries
 */
async function assertPortsFree(entries) {
	for (const entry of entries) {
		const twin = entries.find((other) => other !== entry && other.port === entry.port);
		if (twin) {
			throw new Error(`port ${entry.port} is set for both ${entry.owner} and ${twin.owner}: change ${twin.setting}`);
		}
		const problem = await portProblem(entry.port);
		if (!problem) continue;
		const next = await freeRun(entry.first, entry.span, entries.map((e) => e.port));
		const what =
			problem === 'EADDRINUSE'
				? 'is already in use'
				: problem === 'EACCES'
					? 'may not be used by this user'
					: `cannot be used (${problem})`;
		const move = entry.span > 1 ? `move the stand-ins (the ${entry.span} ports from ${entry.first})` : 'pick another port';
		throw new Error(
			`port ${entry.port} (${entry.owner}) ${what}. Stop what listens there, or ${move}: ` +
				`${entry.setting}=${next ?? '<port>'} npm run dev`,
		);
	}
}

/** What `npm run dev` prints as it goes (the ready lines come at the end). @param {string} text */
function say(text) {
	process.stdout.write(`npm run dev: ${text}\n`);
}

/** @param {number} t0 */
function seconds(t0) {
	return Math.round((Date.now() - t0) / 1000);
}

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

/** `npm run build`, its output kept unless it fails. */
function buildPackage() {
	const t0 = Date.now();
	const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: n8n.REPO, encoding: 'utf8' });
	if (build.status !== 0) {
		process.stderr.write(`${build.stdout}${build.stderr}`);
		throw new Error('npm run build failed (its output is above)');
	}
	say(`package built in ${seconds(t0)} s`);
}

/**
 * What this run started, stopped in reverse order: on Ctrl-C, when n8n exits, at the end of
 * --check, after an error.
 * @type {Array<() => unknown>}
 */
const running = [];
let stopping = false;
/** Set by Ctrl-C (or a kill): the stop it asked for is not an error. */
let interrupted = false;

async function stopAll() {
	stopping = true;
	for (const stop of running.splice(0).reverse()) await stop();
}

/** Ctrl-C (or a kill) stops what this run started, and says so. */
function stopOnSignals() {
	for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
		process.on(signal, () => {
			if (stopping) return;
			interrupted = true;
			if (process.stdout.isTTY) process.stdout.write('\n');
			say('stopping n8n, the stand-ins and the demo site …');
			const t0 = Date.now();
			stopAll().then(() => {
				say(`stopped (${Date.now() - t0} ms)`);
				process.exit(0);
			});
		});
	}
}

/**
 * n8n exiting by itself, while nobody asked it to, is a crash: reported with the end of its log,
 * everything else stopped, and the exit code passed on (1 when n8n said 0).
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} logFile
 */
function reportUnexpectedExit(child, logFile) {
	child.once('exit', (code, signal) => {
		if (stopping) return;
		const tail = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
		process.stderr.write(
			`npm run dev: n8n stopped unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`}); ` +
				`the end of its log, ${logFile}:\n${tail}\n`,
		);
		stopAll().then(() => process.exit(code || 1));
	});
}

/**
 * The example workflows with their credentials, imported into the user folder's n8n before it
 * starts: one `import:credentials` and one `import:workflow` of them all (ids kept, so a second
 * run updates them in place; each CLI start costs ~5 s). Returns the files and the ids of the
 * workflows with a webhook or trigger, which activateExamples switches on once n8n runs.
 * @param {string} home @param {Record<string, string>} env @param {string} userFolder
 * @param {Awaited<ReturnType<typeof startDemoPlatforms>>} platforms
 */
function importExamples(home, env, userFolder, platforms) {
	const credentialsFile = path.join(userFolder, 'demo-credentials.json');
	fs.writeFileSync(credentialsFile, JSON.stringify(platforms.credentials, null, 2));
	n8n.importCredentials(home, env, credentialsFile);
	const files = fs.readdirSync(path.join(n8n.REPO, 'examples')).filter((f) => f.endsWith('.json'));
	// HubSpot's CRM API, which the stage template reads, is answered by a local stand-in too.
	const workflows = files.map((f) =>
		localizeTemplate(JSON.parse(fs.readFileSync(path.join(n8n.REPO, 'examples', f), 'utf8')), platforms),
	);
	const local = path.join(userFolder, 'examples.json');
	fs.writeFileSync(local, JSON.stringify(workflows, null, 2));
	n8n.importWorkflow(home, env, local);
	const live = workflows
		.filter((workflow) =>
			workflow.nodes.some(
				(/** @type {{ type: string }} */ n) => /webhook|Trigger$/i.test(n.type) && !/manualTrigger/.test(n.type),
			),
		)
		.map((workflow) => String(workflow.id));
	return { files, live };
}

/**
 * Switches the example workflows with a webhook or trigger on, through the running n8n's REST
 * API (as the editor's toggle does; the CLI would need one n8n start per workflow).
 * @param {string} baseUrl @param {string} cookie @param {string[]} ids
 */
async function activateExamples(baseUrl, cookie, ids) {
	const client = rest.restClient(baseUrl, cookie);
	for (const id of ids) {
		const workflow = /** @type {{ versionId: string }} */ (await client.ok('GET', `/workflows/${id}`));
		await rest.activateWorkflow(client, id, workflow.versionId);
	}
	// n8n 2.x publishes them in the background: wait for their webhooks.
	await n8n.waitForActiveWorkflows(baseUrl, cookie, { ids });
}

async function main() {
	const ports = CHECK ? undefined : devPorts();
	// Before the install and the build, which can take minutes on a fresh machine.
	if (ports) await assertPortsFree(ports.all);
	buildPackage();
	const home = n8n.ensureN8n();

	const userFolder = CHECK
		? path.join(n8n.REPO, '.dev', 'n8n-check')
		: path.resolve(n8n.REPO, process.env.LEAD_CAPI_DEV_FOLDER || path.join('.dev', 'n8n'));
	if (CHECK) fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	const logFile = path.join(userFolder, 'n8n.log');
	const env = n8n.n8nEnv(home, userFolder, await n8n.freePort());
	n8n.installPackage(userFolder, 'link');

	if (ports) await assertPortsFree(ports.all);
	stopOnSignals();
	const redis = await ensureRedis();
	running.push(redis.stop);
	const platforms = await startDemoPlatforms({
		redisUrl: redis.url,
		ports: ports ? ports.standIns : {},
		keyPrefix: CHECK ? `leadcapi-devcheck-${Date.now()}` : undefined,
		outboxKey: installOutboxKey(userFolder),
	});
	running.push(platforms.close);
	const port = ports ? ports.n8n : await n8n.freePort();
	const demoSite = await startDemoSite(`http://127.0.0.1:${port}`, ports ? ports.site : await n8n.freePort());
	running.push(demoSite.close);
	// A deal the HubSpot stage template can read: its amount, and a contact with a click id.
	platforms.hubspot.addDeal('42', { amount: '1200', deal_currency_code: 'USD' }, {
		id: '4201',
		properties: { email: 'buyer@example.com', country: 'US', hs_google_click_id: 'Cj0KCQiA-dev-deal-42' },
	});
	let t0 = Date.now();
	const shown = path.relative(n8n.REPO, userFolder);
	say(`importing the example workflows and their credentials into ${shown.startsWith('..') ? userFolder : shown} …`);
	const examples = importExamples(home, env, userFolder, platforms);
	say(`${examples.files.length} example workflows imported in ${seconds(t0)} s; starting n8n (its log: ${logFile}) …`);

	if (ports) await assertPortsFree([ports.all[0]]);
	t0 = Date.now();
	const server = await n8n.startServer(home, env, { port, logFile }).catch(async (error) => {
		// n8n exits at once when its port is taken: say so when something took it meanwhile.
		if (ports) await assertPortsFree([ports.all[0]]);
		throw error;
	});
	running.push(server.stop);
	reportUnexpectedExit(server.child, logFile);
	const cookie = await n8n.ownerSession(server.baseUrl, OWNER);
	await activateExamples(server.baseUrl, cookie, examples.live);
	say(`n8n started in ${seconds(t0)} s; ${examples.live.length} example workflows with a webhook or trigger active`);
	printReady({ home, server, examples: examples.files, platforms, redis, demoSite, logFile });
	if (CHECK) {
		const ok = await checkTemplate(server.baseUrl, platforms.standIns).finally(stopAll);
		process.exit(ok ? 0 : 1);
	}
}

/**
 * The lines that say what runs where, how to sign in and what to try.
 * @param {{
 *   home: string, server: { baseUrl: string }, examples: string[], logFile: string,
 *   platforms: Awaited<ReturnType<typeof startDemoPlatforms>>,
 *   redis: { url: string, started: boolean }, demoSite: { url: string },
 * }} parts
 */
function printReady({ home, server, examples, platforms, redis, demoSite, logFile }) {
	const lines = [
		'',
		`n8n ${require(path.join(home, 'node_modules', 'n8n', 'package.json')).version} with n8n-nodes-lead-capi: ${server.baseUrl}`,
		`  sign in: ${OWNER.email} / ${OWNER.password}`,
		`  examples imported: ${examples.join(', ')}`,
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
		`  logs: ${logFile}    stop: Ctrl-C`,
		'',
	];
	process.stdout.write(lines.join('\n') + '\n');
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
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () =>
			resolve({
				url: `http://127.0.0.1:${port}`,
				close: () =>
					new Promise((done) => {
						server.close(done);
						server.closeAllConnections();
					}),
			}),
		);
	});
}

main().catch(async (error) => {
	// Ctrl-C during a step that blocks (an n8n CLI import) ends that step with an error first:
	// the signal's handler, on the next turns, stops everything and says so instead.
	await new Promise((resolve) => setTimeout(resolve, 100));
	if (interrupted) return;
	process.stderr.write(`npm run dev: ${error instanceof Error ? error.message : String(error)}\n`);
	await stopAll();
	process.exit(1);
});
