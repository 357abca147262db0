#!/usr/bin/env node
/**
 * Google sender, before and after issue 11: the Google Ads API adapter (uploadClickConversions)
 * against the Data Manager adapter (events:ingest), through the core dispatch as built in dist/.
 * Each stand-in runs in its own process (its CPU is not ours). Dedup off, so only building,
 * sending and reading answers are measured: CPU µs per event, wall µs per event and HTTP
 * requests per 1,000 leads, for all-valid leads and for 1,000 leads of which one is refused.
 * A scenario module of `npm run bench` (bench/run.js: `run({ quick, log })`), or alone:
 *
 *   npm run build && node bench/google.js [--n 10000] [--runs 5]
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { generateLeads } = require('./lib/leads.js');

const ROOT = path.join(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shared = require(path.join(ROOT, 'dist/shared'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const google = require(path.join(ROOT, 'dist/shared/platforms/google'));

const arg = (name, fallback) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
let N = arg('n', 10_000);
let RUNS = arg('runs', 5);

/** Starts a stand-in script in its own process; resolves with its URL and access token. */
function startChild(script, args) {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			[path.join(ROOT, 'test/standins', script), '--port', '0', ...args],
			{
				stdio: ['ignore', 'pipe', 'inherit'],
			},
		);
		let out = '';
		child.stdout.on('data', (chunk) => {
			out += chunk;
			const url = /listening on (http:\/\/\S+)/.exec(out);
			const token = /oauthTokenData: (\{.*\})/.exec(out);
			if (url && token) resolve({ url: url[1], token: JSON.parse(token[1]).access_token, child });
		});
		child.on('error', reject);
	});
}

async function requestsOf(url) {
	const res = await fetch(`${url}/__standin/received`);
	const body = /** @type {{ requests: Array<{ path: string }> }} */ (await res.json());
	await fetch(`${url}/__standin/received`, { method: 'DELETE' });
	return body.requests.filter((r) => !r.path.includes('googleAds:search')).length;
}

async function faults(url, list) {
	await fetch(`${url}/__standin/faults`, { method: 'POST', body: JSON.stringify(list) });
}

function executor(token) {
	return async (request) => {
		const url = new URL(request.url);
		for (const [k, v] of Object.entries(request.params ?? {})) url.searchParams.set(k, v);
		const res = await fetch(url, {
			method: request.method,
			headers: {
				'content-type': 'application/json',
				authorization: `Bearer ${token}`,
				...request.headers,
			},
			body: request.body === undefined ? undefined : JSON.stringify(request.body),
		});
		const text = await res.text();
		return {
			status: res.status,
			headers: Object.fromEntries(res.headers),
			data: text ? JSON.parse(text) : null,
		};
	};
}

async function measure(label, adapter, config, token, url, makeLeads, beforeRun = async () => {}) {
	let items = [];
	const cpu = [];
	const wall = [];
	let requests = 0;
	let sent = 0;
	let failed = 0;
	let skipped = 0;
	for (let run = 0; run < RUNS; run++) {
		// Fresh record ids each run: Google would answer a resent order id as a duplicate.
		items = makeLeads(run).map((record) => ({ record, eventName: 'lead' }));
		await beforeRun();
		const transport = new shared.Transport({ executor: executor(token) });
		const c0 = process.cpuUsage();
		const t0 = process.hrtime.bigint();
		const results = await shared.dispatch(items, {
			adapter,
			config,
			transport,
			store: null,
			batchSize: 2000,
		});
		const t1 = process.hrtime.bigint();
		const c1 = process.cpuUsage(c0);
		cpu.push((c1.user + c1.system) / items.length);
		wall.push(Number(t1 - t0) / 1000 / items.length);
		requests = await requestsOf(url);
		sent = results.filter((r) => r.status === 'sent').length;
		failed = results.filter((r) => r.status === 'failed').length;
		// Leads with nothing Google can match (no click id, email or phone) are skipped alike.
		skipped = results.filter((r) => r.status === 'skipped').length;
	}
	const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
	return {
		label,
		n: items.length,
		sent,
		failed,
		skipped,
		cpu_us_per_event: median(cpu).toFixed(1),
		wall_us_per_event: median(wall).toFixed(1),
		requests_per_1000: ((requests / items.length) * 1000).toFixed(2),
	};
}

async function measureAll() {
	const ads = await startChild('google.js', ['--developer-token', 'bench-dev-token']);
	const dm = await startChild('googleDataManager.js', []);
	try {
		return await measureWith(ads, dm);
	} finally {
		ads.child.kill();
		dm.child.kill();
	}
}

async function measureWith(ads, dm) {
	const adsConfig = {
		developerToken: 'bench-dev-token',
		customerId: '1234567890',
		conversionAction: 'customers/1234567890/conversionActions/987654321',
		timeZone: 'America/New_York',
		baseUrl: ads.url,
	};
	const dmConfig = {
		operatingAccountId: '1234567890',
		conversionActionId: '987654321',
		baseUrl: dm.url,
	};
	// Leads Google could match (an email or a gclid); the generator's other leads are skipped alike.
	const stamp = Date.now();
	const leads = (n, tag) => (run) => generateLeads(n, { idPrefix: `bench-${stamp}-${tag}-${run}` });
	const rows = [];
	rows.push(
		await measure(
			'Google Ads API, all valid',
			google.googleAdapter,
			adsConfig,
			ads.token,
			ads.url,
			leads(N, 'ads'),
		),
	);
	rows.push(
		await measure(
			'Data Manager, all valid',
			google.googleDataManagerAdapter,
			dmConfig,
			dm.token,
			dm.url,
			leads(N, 'dm'),
		),
	);

	// 1,000 leads, one refused: Data Manager fails the whole request naming events[i]; the sender
	// fails that lead and resends the other 999 (one extra request). Queued as the stand-in's
	// answer to the first request of each run.
	const refused = {
		error: {
			code: 400,
			status: 'INVALID_ARGUMENT',
			message: 'There was a problem with the request.',
			details: [
				{
					'@type': 'type.googleapis.com/google.rpc.BadRequest',
					fieldViolations: [
						{ field: 'events[500]', reason: 'INVALID_EVENT', description: 'bench' },
					],
				},
			],
		},
	};
	rows.push(
		await measure(
			'Data Manager, 1,000 with one refused',
			google.googleDataManagerAdapter,
			dmConfig,
			dm.token,
			dm.url,
			(run) => {
				return generateLeads(1000, { idPrefix: `bench-${stamp}-bad-${run}` });
			},
			() => faults(dm.url, [{ status: 400, body: refused }]),
		),
	);
	return rows;
}

const VARIANTS = [
	'before: Google Ads API (uploadClickConversions), all valid',
	'after: Data Manager (events:ingest), all valid',
	'after: Data Manager, 1,000 leads with one refused',
];

/** bench/run.js: the three measurements as table rows, and what must hold. */
async function run({ quick = false, log = console.error } = {}) {
	if (quick) {
		N = 2000;
		RUNS = 3;
	}
	log(
		`[google] ${N.toLocaleString('en-US')} leads per run, ${RUNS} runs each (medians), dedup off`,
	);
	const measured = await measureAll();
	const baseline = Number(measured[0].cpu_us_per_event);
	const rows = measured.map((m, i) => ({
		scenario: 'google sender',
		variant: VARIANTS[i],
		n: m.n,
		metrics: {
			cpu_us_per_event: Number(m.cpu_us_per_event),
			us_per_event: Number(m.wall_us_per_event),
			requests_per_1000_leads: Number(m.requests_per_1000),
			sent: m.sent,
			failed: m.failed,
			...(i > 0 ? { '×Google Ads API': Number(m.cpu_us_per_event) / baseline } : {}),
		},
	}));
	const refused = measured[2];
	return {
		rows,
		targets: [
			{
				target:
					'google: one refused lead in 1,000 fails alone, every other sendable lead is sent, in 2 requests (Data Manager)',
				value: `${refused.failed} failed, ${refused.sent} sent, ${refused.skipped} unmatchable skipped, ${refused.requests_per_1000} requests per 1,000 leads`,
				met:
					refused.failed === 1 &&
					refused.sent + refused.skipped === 999 &&
					Number(refused.requests_per_1000) === 2,
				gate: true,
			},
			{
				target:
					'google: Data Manager needs no more requests per 1,000 leads than the Google Ads API',
				value: `${measured[1].requests_per_1000} vs ${measured[0].requests_per_1000}`,
				met: Number(measured[1].requests_per_1000) <= Number(measured[0].requests_per_1000),
				gate: true,
			},
		],
	};
}

module.exports = { run };

if (require.main === module) {
	measureAll()
		.then((rows) => console.table(rows))
		.catch((error) => {
			console.error(error);
			process.exit(1);
		});
}
