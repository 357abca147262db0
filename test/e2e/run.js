// @ts-check
/**
 * The end-to-end suite's runner (`npm run test:e2e`, through run.sh, which installs n8n, builds
 * and packs first). One n8n is started for the whole suite — a fresh user folder and SQLite, the
 * owner set up once — and every test file shares it, isolated by its own workflows, credentials
 * and Redis key prefix (test/e2e/n8n.ts deletes the file's workflows and credentials when it
 * ends). Files that need an n8n of their own start one through the same helper and say why
 * (OWN below). The files run in lanes, each lane one jest process running its files one after
 * another, the lanes side by side (LEAD_CAPI_E2E_LANES, default 2: the machine's two cores);
 * lanes are balanced by the files' measured durations (SECONDS), files that share a webhook
 * path kept in one lane (TOGETHER). Extra arguments select files
 * as jest would (a path pattern, --testPathIgnorePatterns …); other jest flags go to the lanes.
 * Ends with a table of each file's lane, duration and result.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('../../scripts/n8n/n8n.js');
const { prepareUserFolder, startTestServer, describeServer, REPO } = require('./server.js');
const { startOAuthRouter } = require('../support/oauthRouter.js');

/**
 * The files that start an n8n of their own, and why (the others share the suite's n8n).
 * Checked against the files at every run: a file that calls n8nWithPackage({ own }) must be here.
 */
const OWN = {
	'coexistence.e2e.test.ts': 'another community package installed beside ours',
	'outboxRestart.e2e.test.ts': 'n8n is SIGKILLed and started again',
	'proxy.e2e.test.ts': 'HTTP(S)_PROXY in the n8n environment',
	'queue.e2e.test.ts': 'queue mode: a main, three workers and PostgreSQL',
	'secrets.e2e.test.ts': "n8n's whole log at debug level and its whole execution list are searched",
};

/**
 * Files that must run in one lane, one after the other: they activate workflows on the same
 * webhook path (n8n refuses the second activation while the first is live). None today.
 * @type {string[][]}
 */
const TOGETHER = [];

/**
 * Seconds each file took on this machine's kind (2 cores, other work running), n8n 1.123.81 and
 * 2.41.1, measured 2026-12-02: the lanes are balanced on these (a file not listed counts 60 s).
 */
const SECONDS = {
	'1': {
		'queue.e2e.test.ts': 170,
		'outboxRestart.e2e.test.ts': 95,
		'secrets.e2e.test.ts': 45,
		'meta.e2e.test.ts': 20,
		'hostile.e2e.test.ts': 13,
		'proxy.e2e.test.ts': 13,
		'stageTemplates.e2e.test.ts': 11,
		'coexistence.e2e.test.ts': 10,
		'templates.e2e.test.ts': 9,
		'capture.e2e.test.ts': 8,
		'ids.e2e.test.ts': 5,
		'metaLeadAds.e2e.test.ts': 4,
		'stages.e2e.test.ts': 3,
		'examples.e2e.test.ts': 3,
		'fanout.e2e.test.ts': 3,
		'googleDataManager.e2e.test.ts': 3,
		'outbox.e2e.test.ts': 2,
		'googleAdjustments.e2e.test.ts': 2,
		'pinterest.e2e.test.ts': 1,
	},
	'2': {
		'queue.e2e.test.ts': 265,
		'outboxRestart.e2e.test.ts': 154,
		'hostile.e2e.test.ts': 95,
		'secrets.e2e.test.ts': 66,
		'proxy.e2e.test.ts': 25,
		'templates.e2e.test.ts': 23,
		'meta.e2e.test.ts': 22,
		'coexistence.e2e.test.ts': 22,
		'ids.e2e.test.ts': 21,
		'stageTemplates.e2e.test.ts': 18,
		'googleDataManager.e2e.test.ts': 13,
		'capture.e2e.test.ts': 12,
		'examples.e2e.test.ts': 10,
		'stages.e2e.test.ts': 8,
		'metaLeadAds.e2e.test.ts': 5,
		'fanout.e2e.test.ts': 4,
		'outbox.e2e.test.ts': 3,
		'googleAdjustments.e2e.test.ts': 3,
		'pinterest.e2e.test.ts': 2,
	},
};

/** @param {string[]} args */
function splitArgs(args) {
	/** @type {string[]} */
	const select = [];
	/** @type {string[]} */
	const forward = [];
	for (let i = 0; i < args.length; i++) {
		const arg = args[i];
		if (/^--testPath(Pattern|IgnorePatterns)$/.test(arg)) select.push(arg, args[++i]);
		else if (/^--testPath(Pattern|IgnorePatterns)=/.test(arg) || !arg.startsWith('-')) select.push(arg);
		else forward.push(arg);
	}
	return { select, forward };
}

/** The test files jest would run for these selection arguments. @param {string[]} select */
function listFiles(select) {
	const listed = spawnSync('npx', ['jest', '-c', 'jest.e2e.config.js', '--listTests', ...select], {
		cwd: REPO,
		encoding: 'utf8',
	});
	if (listed.status !== 0) throw new Error(`jest --listTests failed:\n${listed.stderr}`);
	return listed.stdout.split('\n').filter((line) => line.endsWith('.e2e.test.ts')).sort();
}

/**
 * Longest first, each to the lane with the least work so far (a TOGETHER group as one).
 * @param {string[]} files @param {number} lanes @param {Record<string, number>} seconds
 */
function planLanes(files, lanes, seconds) {
	const cost = (/** @type {string} */ file) => seconds[path.basename(file)] ?? 60;
	/** @type {string[][]} */
	const units = [];
	for (const file of files) {
		const group = TOGETHER.find((g) => g.includes(path.basename(file)));
		const unit = group && units.find((u) => group.includes(path.basename(u[0])));
		if (unit) unit.push(file);
		else units.push([file]);
	}
	const unitCost = (/** @type {string[]} */ unit) => unit.reduce((n, f) => n + cost(f), 0);
	/** @type {Array<{ files: string[], seconds: number }>} */
	const plan = Array.from({ length: Math.max(1, Math.min(lanes, units.length)) }, () => ({ files: [], seconds: 0 }));
	for (const unit of units.sort((a, b) => unitCost(b) - unitCost(a))) {
		const lane = plan.reduce((least, l) => (l.seconds < least.seconds ? l : least));
		lane.files.push(...unit);
		lane.seconds += unitCost(unit);
	}
	return plan;
}

/** Files that start an n8n of their own without being in OWN, or the reverse. @param {string[]} files */
function checkOwn(files) {
	const problems = [];
	for (const file of files) {
		const name = path.basename(file);
		const own = /n8nWithPackage\(\s*\{\s*own:/.test(fs.readFileSync(file, 'utf8'));
		if (own && !(name in OWN)) problems.push(`${name} starts an n8n of its own: say why in OWN (test/e2e/run.js)`);
		if (!own && name in OWN) problems.push(`${name} is in OWN but uses the shared n8n`);
	}
	if (problems.length > 0) throw new Error(problems.join('\n'));
}

/**
 * One lane: a jest process over its files, its output prefixed with the lane's number.
 * @param {number} index @param {string[]} files @param {string[]} forward @param {Record<string, string>} env @param {string} resultFile
 * @returns {Promise<number>}
 */
function runLane(index, files, forward, env, resultFile) {
	return new Promise((resolve) => {
		const child = spawn(
			'npx',
			// --forceExit: a file whose clean-up failed (and left a stand-in listening) fails the run
			// without holding its lane open.
			['jest', '-c', 'jest.e2e.config.js', '--runTestsByPath', ...files, '--forceExit', '--json', `--outputFile=${resultFile}`, ...forward],
			{ cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		const prefix = (/** @type {NodeJS.WriteStream} */ out) => {
			let rest = '';
			return (/** @type {Buffer} */ chunk) => {
				const lines = (rest + chunk.toString('utf8')).split('\n');
				rest = lines.pop() ?? '';
				for (const line of lines) out.write(`[${index}] ${line}\n`);
			};
		};
		child.stdout.on('data', prefix(process.stdout));
		child.stderr.on('data', prefix(process.stderr));
		child.once('close', (code) => resolve(code ?? 1));
	});
}

/** @param {string} file */
function readResults(file) {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return null;
	}
}

/**
 * @param {Array<{ files: string[] }>} plan @param {string[]} resultFiles @param {string} version @param {number} startupMs @param {number} wallMs
 */
function printTable(plan, resultFiles, version, startupMs, wallMs) {
	/** @type {Array<[string, number, number, string]>} */
	const rows = [];
	let passed = 0;
	let failed = 0;
	let suitesPassed = 0;
	let suitesFailed = 0;
	plan.forEach((lane, i) => {
		const results = readResults(resultFiles[i]);
		for (const file of lane.files) {
			const result = results?.testResults?.find((/** @type {{ name: string }} */ r) => r.name === file);
			const seconds = result && result.endTime > result.startTime ? (result.endTime - result.startTime) / 1000 : 0;
			const tests = result?.assertionResults ?? [];
			const ok = tests.filter((/** @type {{ status: string }} */ t) => t.status === 'passed').length;
			const bad = tests.filter((/** @type {{ status: string }} */ t) => t.status === 'failed').length;
			passed += ok;
			failed += bad;
			const outside = String(result?.message ?? '').match(/● (.*)\n\s*\n\s*(.*)/);
			const status = !result
				? 'not run'
				: result.status === 'passed'
					? `${ok} passed`
					: bad > 0
						? `FAILED (${bad} of ${tests.length})`
						: `FAILED: ${outside ? `${outside[1]}: ${outside[2]}` : 'see its output'}`.slice(0, 160);
			if (result?.status === 'passed') suitesPassed += 1;
			else suitesFailed += 1;
			rows.push([path.basename(file), i + 1, seconds, status]);
		}
	});
	const width = Math.max(...rows.map((r) => r[0].length), 4);
	console.log(`\ne2e on n8n ${version}: ${plan.length} lane(s), set up in ${(startupMs / 1000).toFixed(1)} s`);
	console.log(`${'file'.padEnd(width)}  lane  seconds  result`);
	for (const [name, lane, seconds, status] of rows) {
		const own = name in OWN ? `  (own n8n: ${OWN[/** @type {keyof typeof OWN} */ (name)]})` : '';
		console.log(`${name.padEnd(width)}  ${String(lane).padStart(4)}  ${seconds.toFixed(1).padStart(7)}  ${status}${own}`);
	}
	console.log(`wall time ${(wallMs / 1000).toFixed(1)} s`);
	console.log(`Test Suites: ${suitesFailed} failed, ${suitesPassed} passed, ${rows.length} total`);
	console.log(`${passed} passed, ${failed} failed`);
	return suitesFailed === 0 && failed === 0;
}

async function main() {
	const t0 = Date.now();
	const home = process.env.LEAD_CAPI_N8N_HOME;
	const tgz = process.env.LEAD_CAPI_PACKAGE_TGZ;
	if (!home || !tgz) throw new Error('run through `npm run test:e2e` (run.sh sets LEAD_CAPI_N8N_HOME and LEAD_CAPI_PACKAGE_TGZ)');
	const version = require(path.join(home, 'node_modules', 'n8n', 'package.json')).version;
	const { select, forward } = splitArgs(process.argv.slice(2));
	const files = listFiles(select);
	if (files.length === 0) throw new Error(`no e2e test file matches ${select.join(' ')}`);
	checkOwn(files);
	const lanes = Number(process.env.LEAD_CAPI_E2E_LANES || 2);
	const plan = planLanes(files, lanes, SECONDS[/** @type {'1' | '2'} */ (version.split('.')[0])] ?? {});

	const router = n8n.oauthPinnedFields(home).length > 0 ? await startOAuthRouter() : null;
	const out = path.join(REPO, '.e2e');
	fs.mkdirSync(out, { recursive: true });
	/** @type {Record<string, string>} */
	const env = { ...(/** @type {Record<string, string>} */ (process.env)) };
	if (router) env.LEAD_CAPI_E2E_OAUTH_ROUTER = router.url;
	// The shared n8n, unless every file chosen brings its own.
	const server = files.some((f) => !(path.basename(f) in OWN))
		? await startTestServer({ home, ...(await prepareUserFolder({ home, tgz, oauthRouter: router?.url ?? null, prefix: 'lead-capi-e2e-shared-' })), oauthRouter: router?.url ?? null })
		: null;
	const startupMs = Date.now() - t0;
	const sharedFile = path.join(out, `shared-n8n-${version}-${process.pid}.json`);
	if (server) {
		fs.writeFileSync(sharedFile, JSON.stringify(describeServer(server), null, 2));
		env.LEAD_CAPI_E2E_SHARED = sharedFile;
	}
	console.log(`e2e: n8n ${version}, ${server ? `shared n8n at ${server.baseUrl} (log ${server.logFile})` : 'no shared n8n (every file has its own)'}; lanes:`);
	plan.forEach((lane, i) => console.log(`  ${i + 1}: ${lane.files.map((f) => path.basename(f)).join(', ')}`));

	const resultFiles = plan.map((_, i) => path.join(out, `lane-${i + 1}-${version}.json`));
	let codes;
	try {
		codes = await Promise.all(plan.map((lane, i) => runLane(i + 1, lane.files, forward, env, resultFiles[i])));
	} finally {
		await server?.stop();
		await router?.close();
		fs.rmSync(sharedFile, { force: true });
		if (server && !process.env.LEAD_CAPI_E2E_KEEP) fs.rmSync(server.userFolder, { recursive: true, force: true });
	}
	const ok = printTable(plan, resultFiles, version, startupMs, Date.now() - t0);
	process.exit(ok && codes.every((c) => c === 0) ? 0 : 1);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
