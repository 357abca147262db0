// @ts-check
/**
 * Runs a real n8n headless with this package loaded: used by `npm run dev` and by the
 * end-to-end suite. Stands on its own (no files outside the repository). What it takes on a
 * machine like ours, learned the hard way:
 *  - n8n is installed once into a cache folder outside the repo (scripts/n8n/install.sh);
 *  - on Node 20, isolated-vm (n8n's default expression engine) cannot load: use the legacy one;
 *  - every n8n process opens a task-broker port (5679 by default): give each its own;
 *  - `n8n execute` prints its run JSON through the logger at info level;
 *  - activation from the CLI only takes effect at the next start;
 *  - /healthz/readiness answers before active workflows' webhooks are registered: also wait
 *    for "Editor is now accessible".
 *
 * n8n 1.123.x and 2.x (tested: 2.41.1) both run through here. LEAD_CAPI_NODE picks the Node
 * binary (2.36+ needs Node 24), LEAD_CAPI_N8N_VERSION the n8n (scripts/n8n/install.sh). What
 * differs in 2.x is handled by looking at the installed n8n, not at its version number:
 *  - Node: n8n's `engines` are checked up front (2.36+: >= 24), and the JS task runner, which
 *    n8n starts as `node` from PATH, gets the chosen Node first on PATH (nodeBinary, n8nEnv);
 *  - expressions: on Node 24 isolated-vm loads, so 2.x keeps its default `vm` engine (legacy
 *    only where isolated-vm does not load: Node 20);
 *  - task runners are always on in 2.x and N8N_RUNNERS_ENABLED is deprecated: set only where
 *    n8n still reads it (1.x);
 *  - activation: `publish:workflow --id` (2.x) instead of `update:workflow --active=true`;
 *  - start-up: 2.x still logs "Editor is now accessible", but publishes active workflows
 *    afterwards, asynchronously (publication outbox): their webhooks answer 404 for a moment.
 *    waitForActiveWorkflows polls /rest/workflows/:id/publication-status until all are live;
 *  - OAuth2: 2.x ignores stored values of the OAuth2 endpoint fields a credential type
 *    declares hidden (authUrl, accessTokenUrl, …) and uses the type's defaults, so a local
 *    stand-in's token URL goes in as a credential overwrite (importCredentials). `n8n execute`
 *    does not load overwrites in 2.x: a workflow using such a credential runs on a short-lived
 *    `n8n start` through the REST API instead (executeWorkflow);
 *  - 2.x checks the package's n8nNodesApiVersion at load time and skips an incompatible
 *    package with only a warning: checked up front here (assertCompatible).
 * The same in both (checked in 2.41.1): import:workflow and import:credentials (credentials in
 * clear), the `execute --id --rawOutput` run JSON, /rest/owner/setup, /rest/login,
 * /rest/credentials/test, /rest/executions, the `options.binaryData` raw-body switch of a
 * version-1 webhook trigger.
 */
const crypto = require('node:crypto');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { freePort } = require('../local/redis.js');
const rest = require('./rest.js');

const REPO = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = require(path.join(REPO, 'package.json')).name;

/**
 * The Node.js binary every n8n process runs with: LEAD_CAPI_NODE (n8n 2.36+ needs Node 24,
 * which scripts/n8n/install-node.sh provides without touching the system Node), else this
 * process's own.
 */
function nodeBinary() {
	return process.env.LEAD_CAPI_NODE ? path.resolve(process.env.LEAD_CAPI_NODE) : process.execPath;
}

/** @param {string} home */
function n8nBin(home) {
	return path.join(home, 'node_modules', 'n8n', 'bin', 'n8n');
}

/** Installs n8n into the cache folder when needed and returns that folder. */
function ensureN8n() {
	// install.sh honours LEAD_CAPI_N8N_VERSION and LEAD_CAPI_NODE (installs with that Node).
	const result = spawnSync('bash', [path.join(__dirname, 'install.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	if (result.status !== 0) throw new Error('n8n install failed (see the lines above)');
	const home = result.stdout.trim().split('\n').pop() || '';
	if (!fs.existsSync(n8nBin(home))) throw new Error(`n8n not found in ${home}`);
	return home;
}

/**
 * A file of the n8n install, resolved the way n8n itself would (null when it does not exist:
 * that is how the helpers below tell n8n versions apart).
 * @param {string} home
 * @param {string} request e.g. '@n8n/config/dist/configs/runners.config.js'
 */
function n8nFile(home, request) {
	try {
		return require.resolve(request, { paths: [path.join(home, 'node_modules', 'n8n')] });
	} catch {
		return null;
	}
}

/**
 * Whether n8n still reads an environment variable: its config classes name each one.
 * @param {string} home
 * @param {string} configFile e.g. 'runners.config.js'
 * @param {string} name
 */
function n8nReadsEnv(home, configFile, name) {
	const file = n8nFile(home, `@n8n/config/dist/configs/${configFile}`);
	return !!file && fs.readFileSync(file, 'utf8').includes(`'${name}'`);
}

/**
 * The OAuth2 fields n8n 2.x pins to the credential type's defaults when the type declares them
 * hidden (stored values are ignored); empty for n8n 1.x, which uses stored values.
 * @param {string} home
 * @returns {string[]}
 */
function oauthPinnedFields(home) {
	const file = n8nFile(home, 'n8n/dist/oauth/dcr-managed-fields.js');
	if (!file) return [];
	const pinned = require(file).OAUTH_PINNED_FIELDS;
	return Array.isArray(pinned) ? pinned : [];
}

/**
 * The Node version of `node` and whether isolated-vm loads on it, in one process.
 * @param {string} home
 */
function probeNode(home) {
	const ivm = JSON.stringify(path.join(home, 'node_modules', 'isolated-vm'));
	const probe = spawnSync(
		nodeBinary(),
		['-p', `let ivm = true; try { require(${ivm}); } catch { ivm = false; } process.versions.node + ' ' + ivm`],
		{ encoding: 'utf8' },
	);
	if (probe.status !== 0) throw new Error(`cannot run ${nodeBinary()}: ${probe.stderr || probe.error}`);
	const [version, ivmLoads] = probe.stdout.trim().split(' ');
	return { version, isolatedVm: ivmLoads === 'true' };
}

/**
 * Fails early, with the fix, where n8n would fail late or quietly: n8n's bin exits on a Node
 * outside its `engines` (2.36+ needs Node 24), and n8n 2.x skips a package whose
 * n8nNodesApiVersion it does not support with only a warning in its log.
 * @param {string} home
 * @param {string} nodeVersion
 */
function assertCompatible(home, nodeVersion) {
	const n8nPkg = require(path.join(home, 'node_modules', 'n8n', 'package.json'));
	const semverFile = n8nFile(home, 'semver');
	const range = n8nPkg.engines && n8nPkg.engines.node;
	if (range && semverFile && !require(semverFile).satisfies(nodeVersion, range)) {
		throw new Error(
			`n8n ${n8nPkg.version} needs Node ${range}, ${nodeBinary()} is ${nodeVersion}: run with ` +
				'LEAD_CAPI_NODE="$(bash scripts/n8n/install-node.sh)" (Node 24 from npm, the system Node stays)',
		);
	}
	const constants = n8nFile(home, '@n8n/constants/dist/community-nodes.js');
	const supported = constants ? require(constants).N8N_NODES_API_VERSION : undefined;
	const declared = require(path.join(REPO, 'package.json')).n8n.n8nNodesApiVersion;
	if (typeof supported === 'number' && declared > supported) {
		throw new Error(
			`n8n ${n8nPkg.version} supports n8nNodesApiVersion <= ${supported}, the package declares ${declared}`,
		);
	}
}

/**
 * Environment for every n8n process of one user folder.
 * @param {string} home n8n install folder
 * @param {string} userFolder
 * @param {number} brokerPort
 * @param {Record<string, string>} [extra]
 */
function n8nEnv(home, userFolder, brokerPort, extra = {}) {
	const node = probeNode(home);
	assertCompatible(home, node.version);
	/** @type {Record<string, string>} */
	const env = {
		...(/** @type {Record<string, string>} */ (process.env)),
		N8N_USER_FOLDER: userFolder,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_LEVEL: 'info',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_ENCRYPTION_KEY: process.env.N8N_ENCRYPTION_KEY || 'lead-capi-local-only-key',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
	};
	// 1.x runs Code nodes in-process unless told otherwise; 2.x always uses task runners and
	// warns that N8N_RUNNERS_ENABLED is deprecated.
	if (n8nReadsEnv(home, 'runners.config.js', 'N8N_RUNNERS_ENABLED')) env.N8N_RUNNERS_ENABLED = 'true';
	// 2.x: OAuth2 endpoints of local stand-ins go in as credential overwrites (importCredentials
	// fills this file; n8n reads it at every process start).
	if (oauthPinnedFields(home).length > 0) {
		const overwrites = path.join(userFolder, 'credential-overwrites.json');
		fs.mkdirSync(userFolder, { recursive: true });
		if (!fs.existsSync(overwrites)) fs.writeFileSync(overwrites, '{}');
		env.CREDENTIALS_OVERWRITE_DATA_FILE = overwrites;
	}
	Object.assign(env, extra);
	// n8n starts its JavaScript task runner with `node` from PATH, not with its own binary:
	// the chosen Node's directory goes first, or the runner would run on the system Node.
	const nodeDir = path.dirname(nodeBinary());
	env.PATH = [nodeDir, ...(env.PATH || '').split(path.delimiter).filter((d) => d && d !== nodeDir)].join(
		path.delimiter,
	);
	// Test runners set NODE_ENV=test (and JEST_*), which makes n8n's CLI skip its work silently.
	for (const name of Object.keys(env)) {
		if (name === 'NODE_ENV' || name.startsWith('JEST_')) delete env[name];
	}
	// isolated-vm has no build for Node 20 (install.sh skips its compile); on Node 22/24 n8n's
	// default `vm` engine loads and stays.
	if (!env.N8N_EXPRESSION_ENGINE && !node.isolatedVm) env.N8N_EXPRESSION_ENGINE = 'legacy';
	return env;
}

/**
 * Puts the package where n8n loads community packages from.
 *  - `link`: a symlink to the repository (dev: rebuilds are seen on the next start);
 *  - a `.tgz` path: extracted and given its runtime dependencies exactly as n8n's own
 *    community-package installer does (dev and peer dependencies stripped, no scripts). The
 *    result is kept beside the tarball (`.installed/<content hash>`) and copied for the next
 *    user folder of the same tarball: the e2e suite installs it once, not once per test file.
 * @param {string} userFolder
 * @param {'link' | string} source
 */
function installPackage(userFolder, source) {
	const dest = path.join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
	fs.mkdirSync(path.dirname(dest), { recursive: true });
	fs.rmSync(dest, { recursive: true, force: true });
	if (source === 'link') {
		fs.symlinkSync(REPO, dest, 'dir');
		return dest;
	}
	fs.cpSync(installedTarball(source), dest, { recursive: true, verbatimSymlinks: true });
	return dest;
}

/**
 * The tarball extracted with its runtime dependencies, once per tarball content.
 * @param {string} source
 */
function installedTarball(source) {
	const hash = crypto.createHash('sha256').update(fs.readFileSync(source)).digest('hex').slice(0, 16);
	const cache = path.join(path.dirname(source), '.installed');
	const done = path.join(cache, hash);
	if (fs.existsSync(path.join(done, 'package.json'))) return done;
	fs.mkdirSync(cache, { recursive: true });
	// Older tarballs' installs go (another process's install in progress, `tmp-*`, stays).
	for (const old of fs.readdirSync(cache).filter((name) => !name.startsWith('tmp-'))) {
		fs.rmSync(path.join(cache, old), { recursive: true, force: true });
	}
	const work = path.join(cache, `tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
	fs.mkdirSync(work, { recursive: true });
	const tar = spawnSync('tar', ['-xzf', source, '-C', work, '--strip-components=1'], { stdio: 'inherit' });
	if (tar.status !== 0) throw new Error(`could not extract ${source}`);
	const pkgFile = path.join(work, 'package.json');
	const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.optionalDependencies;
	fs.writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
	const npm = spawnSync(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
			'--loglevel=error',
		],
		{ cwd: work, stdio: 'inherit' },
	);
	if (npm.status !== 0) throw new Error('npm install of the package runtime dependencies failed');
	try {
		fs.renameSync(work, done);
	} catch {
		// Another process installed the same tarball meanwhile: use its copy.
		fs.rmSync(work, { recursive: true, force: true });
	}
	return done;
}

/**
 * Runs an n8n CLI command to completion.
 * @param {string} home
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
function cli(home, args, env) {
	const result = spawnSync(nodeBinary(), [n8nBin(home), ...args], {
		env,
		encoding: 'utf8',
		maxBuffer: 512 * 1024 * 1024,
	});
	return { code: result.status ?? 1, stdout: result.stdout || '', stderr: result.stderr || '' };
}

/**
 * Finds the run JSON that `n8n execute --rawOutput` pretty-prints: a line "{" through a line "}".
 * @param {string} text
 */
function findRunJson(text) {
	const lines = text.split('\n');
	for (let a = 0; a < lines.length; a++) {
		if (lines[a] !== '{') continue;
		for (let b = lines.length - 1; b > a; b--) {
			if (lines[b] !== '}') continue;
			try {
				const run = JSON.parse(lines.slice(a, b + 1).join('\n'));
				if (run && run.data && 'status' in run) return run;
			} catch {
				// not this span
			}
		}
	}
	return null;
}

/**
 * Imports a workflow (and optionally activates it for the next start).
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {string} file
 * @param {{ activate?: boolean }} [options]
 */
function importWorkflow(home, env, file, options = {}) {
	const imported = cli(home, ['import:workflow', `--input=${file}`], env);
	if (imported.code !== 0) throw new Error(`import:workflow ${file} failed:\n${imported.stdout}\n${imported.stderr}`);
	const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
	for (const workflow of Array.isArray(parsed) ? parsed : [parsed]) {
		const credentialTypes = (workflow.nodes ?? []).flatMap(
			(/** @type {{ credentials?: object }} */ n) => Object.keys(n.credentials ?? {}),
		);
		workflowCredentialTypes.set(`${env.N8N_USER_FOLDER}\0${workflow.id}`, credentialTypes);
	}
	if (options.activate) activateWorkflow(home, env, parsed.id);
}

/**
 * Activates an imported workflow.
 * @param {string} home @param {Record<string, string>} env @param {string} id
 */
function activateWorkflow(home, env, id) {
	// 2.x: `publish:workflow` (`update:workflow --active` is deprecated there); 1.x has no
	// publish command.
	const publish = fs.existsSync(path.join(home, 'node_modules', 'n8n', 'dist', 'commands', 'publish'));
	const args = publish ? ['publish:workflow', `--id=${id}`] : ['update:workflow', `--id=${id}`, '--active=true'];
	const activated = cli(home, args, env);
	if (activated.code !== 0) throw new Error(`activating ${id} failed:\n${activated.stderr}`);
}

/**
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {string} file JSON array of { id, name, type, data: {...} } (data in clear)
 */
function importCredentials(home, env, file) {
	addOAuthOverwrites(home, env, file);
	const result = cli(home, ['import:credentials', `--input=${file}`], env);
	if (result.code !== 0) throw new Error(`import:credentials failed:\n${result.stdout}\n${result.stderr}`);
}

/**
 * n8n 2.x ignores stored values of the OAuth2 fields a credential type declares hidden (the
 * token URL among them) and uses the type's defaults: Google's real endpoints. So that n8n
 * still refreshes tokens through a local stand-in, the values the credentials file gives for
 * those fields are added to the instance's credential overwrites (per credential type), which
 * 2.x applies to exactly those fields. 1.x reads the stored values: nothing to do.
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {string} file
 */
function addOAuthOverwrites(home, env, file) {
	const pinned = oauthPinnedFields(home);
	const overwritesFile = env.CREDENTIALS_OVERWRITE_DATA_FILE;
	if (pinned.length === 0 || !overwritesFile || env.CREDENTIALS_OVERWRITE_DATA) return;
	const credentials = JSON.parse(fs.readFileSync(file, 'utf8'));
	/** @type {Record<string, Record<string, unknown>>} */
	const overwrites = JSON.parse(fs.readFileSync(overwritesFile, 'utf8'));
	let changed = false;
	for (const { type, data } of Array.isArray(credentials) ? credentials : [credentials]) {
		// Pinning concerns OAuth credential types only (n8n names them …OAuth2Api / …OAuth1Api).
		if (!/OAuth/.test(String(type)) || !data || typeof data !== 'object') continue;
		for (const field of pinned) {
			const value = data[field];
			if (value === undefined || value === null || value === '') continue;
			const current = overwrites[type]?.[field];
			if (current !== undefined && current !== value) {
				throw new Error(
					`n8n 2.x takes ${type}.${field} from one instance-wide overwrite; two credentials give ` +
						`different values (${JSON.stringify(current)}, ${JSON.stringify(value)})`,
				);
			}
			if (current === undefined) {
				overwrites[type] = { ...overwrites[type], [field]: value };
				changed = true;
			}
		}
	}
	if (changed) fs.writeFileSync(overwritesFile, JSON.stringify(overwrites, null, 2));
}

/**
 * Runs an n8n CLI command without blocking this process's event loop (loopback stand-ins
 * living in this process must keep answering while n8n runs).
 * @param {string} home
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
function cliAsync(home, args, env) {
	return new Promise((resolve, reject) => {
		const child = spawn(nodeBinary(), [n8nBin(home), ...args], {
			env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		child.once('error', reject);
		child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
	});
}

/** A local-only owner account for the REST calls the helpers make (n8n.ts uses the same). */
const LOCAL_OWNER = { email: 'e2e@example.com', password: 'E2e-Passw0rd-not-secret' };

/**
 * Credential types each imported workflow uses, per user folder (see importWorkflow): tells
 * executeWorkflow whether a credential overwrite matters for a run.
 * @type {Map<string, string[]>}
 */
const workflowCredentialTypes = new Map();

/**
 * The credential types with overwrites that `n8n execute` would not apply: n8n 2.x loads
 * credential overwrites in `start`, `worker` and `webhook` only, not in `execute`.
 * @param {string} home
 * @param {Record<string, string>} env
 * @returns {string[]}
 */
function overwritesMissedByExecute(home, env) {
	const file = env.CREDENTIALS_OVERWRITE_DATA_FILE;
	if (!file || !fs.existsSync(file)) return [];
	const types = Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')));
	if (types.length === 0) return [];
	const execute = n8nFile(home, 'n8n/dist/commands/execute.js');
	if (execute && fs.readFileSync(execute, 'utf8').includes('CredentialsOverwrites')) return [];
	return types;
}

/**
 * Runs a Manual-Trigger workflow once; returns the run JSON (status, data.resultData.runData).
 * With `n8n execute`, except when the workflow uses a credential that only works through an
 * overwrite `execute` does not load (n8n 2.x, OAuth2 against a local stand-in): then on a
 * short-lived `n8n start`, as a manual run through the REST API, with the same run JSON.
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {string} workflowId
 * @param {{ owner?: { email: string, password: string } }} [options]
 */
async function executeWorkflow(home, env, workflowId, options = {}) {
	const missed = overwritesMissedByExecute(home, env);
	if (missed.length > 0) {
		const uses = workflowCredentialTypes.get(`${env.N8N_USER_FOLDER}\0${workflowId}`);
		if (!uses || uses.some((type) => missed.includes(type))) {
			return await executeWorkflowOnServer(home, env, workflowId, options.owner ?? LOCAL_OWNER);
		}
	}
	const result = await cliAsync(home, ['execute', `--id=${workflowId}`, '--rawOutput'], { ...env, N8N_LOG_LEVEL: 'info' });
	const run = findRunJson(result.stdout) || findRunJson(result.stderr);
	if (!run) {
		throw new Error(
			`n8n execute printed no run JSON (exit ${result.code}):\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
		);
	}
	return { run, exitCode: result.code, stderr: result.stderr, stdout: result.stdout };
}

/**
 * executeWorkflow on a running n8n: POST /rest/workflows/:id/run from the Manual Trigger,
 * then the finished execution from /rest/executions/:id (its data is `flatted`-encoded).
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {string} workflowId
 * @param {{ email: string, password: string }} owner
 */
async function executeWorkflowOnServer(home, env, workflowId, owner) {
	const logFile = path.join(env.N8N_USER_FOLDER, 'n8n-execute.log');
	const server = await startServer(home, env, { port: await freePort(), logFile });
	try {
		const client = rest.restClient(server.baseUrl, await ownerSession(server.baseUrl, owner));
		const run = await rest.runManually(client, home, workflowId);
		return { run, exitCode: run.status === 'success' ? 0 : 1, stderr: '', stdout: '' };
	} finally {
		await server.stop();
	}
}

/**
 * Starts `n8n start` and resolves once n8n logs "Editor is now accessible" and is ready. In 1.x
 * webhooks of active workflows answer by then; in 2.x they are published a moment later: call
 * waitForActiveWorkflows (needs the owner's session) before calling them.
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {{ port: number, logFile: string, timeoutMs?: number }} options
 */
async function startServer(home, env, options) {
	// A restart appends to the same log: only what this start writes counts.
	const offset = fs.existsSync(options.logFile) ? fs.statSync(options.logFile).size : 0;
	const log = fs.openSync(options.logFile, 'a');
	const child = spawn(nodeBinary(), [n8nBin(home), 'start'], {
		env: { ...env, N8N_PORT: String(options.port), WEBHOOK_URL: `http://127.0.0.1:${options.port}/` },
		stdio: ['ignore', log, log],
	});
	const baseUrl = `http://127.0.0.1:${options.port}`;
	const deadline = Date.now() + (options.timeoutMs ?? 180_000);
	let exited = false;
	child.once('exit', () => (exited = true));
	for (;;) {
		if (exited) throw new Error(`n8n exited during start-up; see ${options.logFile}`);
		if (Date.now() > deadline) {
			child.kill('SIGTERM');
			throw new Error(`n8n not ready after ${options.timeoutMs ?? 180_000} ms; see ${options.logFile}`);
		}
		if (logSince(options.logFile, offset).includes('Editor is now accessible')) {
			try {
				const res = await fetch(`${baseUrl}/healthz/readiness`);
				if (res.ok) break;
			} catch {
				// not yet
			}
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	return {
		baseUrl,
		child,
		stop: () =>
			new Promise((resolve) => {
				if (exited) return resolve(undefined);
				child.once('exit', () => resolve(undefined));
				child.kill('SIGTERM');
				setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
			}),
	};
}

/**
 * What a log file holds from byte `offset` on.
 * @param {string} file @param {number} offset
 */
function logSince(file, offset) {
	const size = fs.statSync(file).size;
	if (size <= offset) return '';
	const fd = fs.openSync(file, 'r');
	try {
		const buffer = Buffer.alloc(size - offset);
		fs.readSync(fd, buffer, 0, buffer.length, offset);
		return buffer.toString('utf8');
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * Creates the owner account (first start) and logs in; returns the session cookie for the
 * editor's REST API.
 * @param {string} baseUrl
 * @param {{ email: string, password: string }} owner
 */
async function ownerSession(baseUrl, owner) {
	await fetch(`${baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ ...owner, firstName: 'Lead', lastName: 'Capi' }),
	});
	const login = await fetch(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password }),
	});
	if (!login.ok) throw new Error(`login failed: HTTP ${login.status}`);
	const cookie = (login.headers.get('set-cookie') || '').split(';')[0];
	return cookie;
}

/**
 * Resolves once every active workflow's triggers are live. n8n 1.x activates them before it
 * logs "Editor is now accessible" (startServer waits for that). n8n 2.x publishes them
 * afterwards, asynchronously (its publication outbox), so a webhook called right after start
 * answers 404 "not registered" for a moment; it reports progress per workflow at
 * /rest/workflows/:id/publication-status (absent in 1.x: nothing to wait for).
 * @param {string} baseUrl
 * @param {string} cookie the owner's session (ownerSession)
 * @param {{ timeoutMs?: number, ids?: string[] }} [options] `ids`: only these workflows (a shared
 *   n8n where other test files activate and delete theirs meanwhile)
 */
async function waitForActiveWorkflows(baseUrl, cookie, options = {}) {
	const timeoutMs = options.timeoutMs ?? 60_000;
	const deadline = Date.now() + timeoutMs;
	/**
	 * @param {string} restPath
	 * @returns {Promise<{ status: number, body: any }>}
	 */
	const get = async (restPath) => {
		const res = await fetch(`${baseUrl}/rest${restPath}`, { headers: { cookie } });
		return { status: res.status, body: res.ok ? await res.json() : await res.text() };
	};
	const list = await get('/workflows');
	if (list.status !== 200) throw new Error(`GET /rest/workflows: HTTP ${list.status} ${list.body}`);
	/** @type {Array<{ id: string, name: string, active?: boolean, activeVersionId?: string | null }>} */
	const workflows = Array.isArray(list.body.data) ? list.body.data : list.body.data.data;
	const active = workflows.filter(
		(w) => (w.active || w.activeVersionId) && (!options.ids || options.ids.includes(w.id)),
	);
	for (const workflow of active) {
		for (;;) {
			const status = await get(`/workflows/${workflow.id}/publication-status`);
			if (status.status === 404) return; // n8n 1.x (or publication service off): synchronous
			if (status.status !== 200) {
				throw new Error(`publication status of ${workflow.id}: HTTP ${status.status} ${status.body}`);
			}
			/** @type {{ status: string, triggers: Array<{ status: string, errorMessage?: string }> }} */
			const publication = status.body.data ?? status.body;
			if (publication.status === 'published') break;
			if (publication.status === 'failed' || publication.status === 'partial') {
				const errors = publication.triggers.filter((t) => t.errorMessage).map((t) => t.errorMessage);
				throw new Error(`workflow ${workflow.id} (${workflow.name}) was not published: ${errors.join('; ')}`);
			}
			if (Date.now() > deadline) {
				throw new Error(`workflow ${workflow.id} still "${publication.status}" after ${timeoutMs} ms`);
			}
			await new Promise((r) => setTimeout(r, 200));
		}
	}
}

module.exports = {
	REPO,
	PACKAGE_NAME,
	ensureN8n,
	freePort,
	n8nEnv,
	installPackage,
	cli,
	cliAsync,
	findRunJson,
	importWorkflow,
	activateWorkflow,
	importCredentials,
	executeWorkflow,
	startServer,
	ownerSession,
	waitForActiveWorkflows,
	nodeBinary,
	oauthPinnedFields,
	logSince,
	LOCAL_OWNER,
};
