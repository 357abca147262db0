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
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { freePort } = require('../local/redis.js');

const REPO = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = require(path.join(REPO, 'package.json')).name;

/** Installs n8n into the cache folder when needed and returns that folder. */
function ensureN8n() {
	const result = spawnSync('bash', [path.join(__dirname, 'install.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	if (result.status !== 0) throw new Error('n8n install failed (see the lines above)');
	const home = result.stdout.trim().split('\n').pop() || '';
	if (!fs.existsSync(path.join(home, 'node_modules', 'n8n', 'bin', 'n8n'))) {
		throw new Error(`n8n not found in ${home}`);
	}
	return home;
}

/**
 * Environment for every n8n process of one user folder.
 * @param {string} home n8n install folder
 * @param {string} userFolder
 * @param {number} brokerPort
 * @param {Record<string, string>} [extra]
 */
function n8nEnv(home, userFolder, brokerPort, extra = {}) {
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
		N8N_RUNNERS_ENABLED: 'true',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_ENCRYPTION_KEY: process.env.N8N_ENCRYPTION_KEY || 'lead-capi-local-only-key',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		...extra,
	};
	// Test runners set NODE_ENV=test (and JEST_*), which makes n8n's CLI skip its work silently.
	for (const name of Object.keys(env)) {
		if (name === 'NODE_ENV' || name.startsWith('JEST_')) delete env[name];
	}
	const ivm = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(path.join(home, 'node_modules', 'isolated-vm'))})`], {
		stdio: 'ignore',
	});
	if (!env.N8N_EXPRESSION_ENGINE && ivm.status !== 0) env.N8N_EXPRESSION_ENGINE = 'legacy';
	return env;
}

/**
 * Puts the package where n8n loads community packages from.
 *  - `link`: a symlink to the repository (dev: rebuilds are seen on the next start);
 *  - a `.tgz` path: extracted and given its runtime dependencies exactly as n8n's own
 *    community-package installer does (dev and peer dependencies stripped, no scripts).
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
	fs.mkdirSync(dest, { recursive: true });
	const tar = spawnSync('tar', ['-xzf', source, '-C', dest, '--strip-components=1'], { stdio: 'inherit' });
	if (tar.status !== 0) throw new Error(`could not extract ${source}`);
	const pkgFile = path.join(dest, 'package.json');
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
		{ cwd: dest, stdio: 'inherit' },
	);
	if (npm.status !== 0) throw new Error('npm install of the package runtime dependencies failed');
	return dest;
}

/**
 * Runs an n8n CLI command to completion.
 * @param {string} home
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
function cli(home, args, env) {
	const result = spawnSync(process.execPath, [path.join(home, 'node_modules', 'n8n', 'bin', 'n8n'), ...args], {
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
	if (options.activate) {
		const id = JSON.parse(fs.readFileSync(file, 'utf8')).id;
		const publish = fs.existsSync(path.join(home, 'node_modules', 'n8n', 'dist', 'commands', 'publish'));
		const args = publish ? ['publish:workflow', `--id=${id}`] : ['update:workflow', `--id=${id}`, '--active=true'];
		const activated = cli(home, args, env);
		if (activated.code !== 0) throw new Error(`activating ${id} failed:\n${activated.stderr}`);
	}
}

/**
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {string} file JSON array of { id, name, type, data: {...} } (data in clear)
 */
function importCredentials(home, env, file) {
	const result = cli(home, ['import:credentials', `--input=${file}`], env);
	if (result.code !== 0) throw new Error(`import:credentials failed:\n${result.stdout}\n${result.stderr}`);
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
		const child = spawn(process.execPath, [path.join(home, 'node_modules', 'n8n', 'bin', 'n8n'), ...args], {
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

/**
 * Runs a Manual-Trigger workflow once; returns the run JSON (status, data.resultData.runData).
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {string} workflowId
 */
async function executeWorkflow(home, env, workflowId) {
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
 * Starts `n8n start` and resolves once webhooks of active workflows answer.
 * @param {string} home
 * @param {Record<string, string>} env
 * @param {{ port: number, logFile: string, timeoutMs?: number }} options
 */
async function startServer(home, env, options) {
	const log = fs.openSync(options.logFile, 'a');
	const child = spawn(process.execPath, [path.join(home, 'node_modules', 'n8n', 'bin', 'n8n'), 'start'], {
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
		const text = fs.readFileSync(options.logFile, 'utf8');
		if (text.includes('Editor is now accessible')) {
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
	importCredentials,
	executeWorkflow,
	startServer,
	ownerSession,
};
