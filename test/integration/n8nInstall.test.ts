import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * scripts/n8n/install.sh, the way every n8n runtime of the project is installed (npm run dev,
 * the e2e suites, the bench), run for real on a small runtime of its own: a lockfile whose "n8n"
 * is a local stand-in package that starts like n8n (logs "Editor is now accessible", answers
 * /healthz/readiness) or fails to, per FAKE_N8N_FAIL. The real n8n runtimes take minutes to
 * install; CI proves them with `npm run dev -- --check` on an empty cache.
 */
const INSTALL = path.join(__dirname, '..', '..', 'scripts', 'n8n', 'install.sh');
const VERSION = '9.9.9-test';

const FAKE_N8N_BIN = `#!/usr/bin/env node
const http = require('node:http');
if (process.argv[2] !== 'start') { console.log('fake n8n: ' + process.argv.slice(2).join(' ')); process.exit(0); }
if (process.env.FAKE_N8N_FAIL) { console.error('Error: Command "start" not found'); process.exit(1); }
http.createServer((req, res) => res.writeHead(req.url === '/healthz/readiness' ? 200 : 404).end('{}'))
	.listen(Number(process.env.N8N_PORT), '127.0.0.1', () => console.log('Editor is now accessible via: http://127.0.0.1'));
process.on('SIGTERM', () => process.exit(0));
`;

let root: string;
let home: string;
let npmEnvLog: string;

/** Package folders at the same depth as the runtime and the install, so the lockfile's relative links hold in both. */
function makeRuntime(): void {
	const pkgs = path.join(root, 'pkgs');
	fs.mkdirSync(path.join(pkgs, 'n8n', 'bin'), { recursive: true });
	fs.writeFileSync(
		path.join(pkgs, 'n8n', 'package.json'),
		JSON.stringify({ name: 'n8n', version: VERSION, bin: { n8n: 'bin/n8n' } }),
	);
	fs.writeFileSync(path.join(pkgs, 'n8n', 'bin', 'n8n'), FAKE_N8N_BIN, { mode: 0o755 });
	fs.mkdirSync(path.join(pkgs, 'sqlite3'), { recursive: true });
	fs.writeFileSync(
		path.join(pkgs, 'sqlite3', 'package.json'),
		JSON.stringify({ name: 'sqlite3', version: '5.1.7' }),
	);
	fs.writeFileSync(path.join(pkgs, 'sqlite3', 'index.js'), 'module.exports = {};');
	const runtime = path.join(root, 'runtimes', VERSION);
	fs.mkdirSync(runtime, { recursive: true });
	fs.writeFileSync(
		path.join(runtime, 'package.json'),
		JSON.stringify({
			name: 'lead-capi-n8n-runtime',
			private: true,
			dependencies: { n8n: 'file:../../pkgs/n8n', sqlite3: 'file:../../pkgs/sqlite3' },
		}),
	);
	const lock = spawnSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], {
		cwd: runtime,
		encoding: 'utf8',
	});
	if (lock.status !== 0) throw new Error(`npm lock: ${lock.stderr}`);
}

/** A `npm` first on PATH that writes down the npm settings it was given, then runs the real one. */
function makeNpmSpy(): string {
	const dir = path.join(root, 'spy-bin');
	fs.mkdirSync(dir, { recursive: true });
	const realNpm = spawnSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
	fs.writeFileSync(
		path.join(dir, 'npm'),
		`#!/usr/bin/env bash\n{ echo "npm $*"; env | grep -i '^npm_config_' | sort; } >> ${JSON.stringify(npmEnvLog)}\nexec ${JSON.stringify(realNpm)} "$@"\n`,
		{ mode: 0o755 },
	);
	return dir;
}

function install(extraEnv: Record<string, string> = {}) {
	const result = spawnSync('bash', [INSTALL], {
		encoding: 'utf8',
		env: {
			...process.env,
			PATH: `${path.join(root, 'spy-bin')}:${process.env.PATH}`,
			LEAD_CAPI_N8N_RUNTIMES: path.join(root, 'runtimes'),
			LEAD_CAPI_N8N_VERSION: VERSION,
			LEAD_CAPI_N8N_HOME: home,
			// What `npm run` in this repository hands down (its .npmrc): none of it may reach the install.
			npm_config_legacy_peer_deps: 'true',
			npm_config_ignore_scripts: 'true',
			npm_config_audit: 'false',
			...extraEnv,
		},
	});
	return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

beforeAll(() => {
	root = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-install-'));
	home = path.join(root, 'cache', `n8n-${VERSION}`);
	npmEnvLog = path.join(root, 'npm-env.log');
	makeRuntime();
	makeNpmSpy();
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('scripts/n8n/install.sh', () => {
	it('installs from the lockfile with npm ci, without the repository npm settings, and marks it only after n8n started', () => {
		const first = install();
		expect(first.stderr).toContain('readiness probe');
		expect(first.code).toBe(0);
		expect(first.stdout).toBe(home);
		expect(fs.readFileSync(path.join(home, '.installed'), 'utf8')).toMatch(
			new RegExp(`^n8n@${VERSION} abi=\\d+ lock=[0-9a-f]{16}`),
		);
		const npmCalls = fs.readFileSync(npmEnvLog, 'utf8');
		expect(npmCalls).toContain('npm ci ');
		expect(npmCalls).not.toMatch(/npm install/);
		expect(npmCalls).not.toMatch(/npm_config_legacy_peer_deps/i);
		expect(npmCalls).not.toMatch(/npm_config_audit=/i);
	});

	it('returns at once when the runtime is installed', () => {
		fs.writeFileSync(npmEnvLog, '');
		const again = install();
		expect(again.code).toBe(0);
		expect(again.stdout).toBe(home);
		expect(again.stderr).toBe('');
		expect(fs.readFileSync(npmEnvLog, 'utf8')).toBe('');
	});

	it('does not mark a runtime that does not start, and installs it again on the next call', () => {
		fs.rmSync(path.join(home, '.installed'));
		const broken = install({ FAKE_N8N_FAIL: '1' });
		expect(broken.code).toBe(1);
		expect(broken.stderr).toContain('Command "start" not found');
		expect(broken.stderr).toContain('not marked installed');
		expect(fs.existsSync(path.join(home, '.installed'))).toBe(false);

		const repaired = install();
		expect(repaired.stderr).toContain('repairing');
		expect(repaired.code).toBe(0);
		expect(fs.existsSync(path.join(home, '.installed'))).toBe(true);
	});

	it('repairs a partial install (a package folder gone) and an install from another lockfile', () => {
		fs.rmSync(path.join(home, 'node_modules', 'n8n'), { recursive: true, force: true });
		const partial = install();
		expect(partial.stderr).toContain('repairing');
		expect(partial.code).toBe(0);
		expect(fs.existsSync(path.join(home, 'node_modules', 'n8n', 'bin', 'n8n'))).toBe(true);

		fs.writeFileSync(path.join(home, '.installed'), `n8n@${VERSION} abi=1 lock=0000000000000000\n`);
		const relocked = install();
		expect(relocked.stderr).toContain('repairing');
		expect(relocked.code).toBe(0);
	});

	it('refuses an n8n version without a committed lockfile and says how to add one', () => {
		const unknown = install({ LEAD_CAPI_N8N_VERSION: '0.0.1' });
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain('npm run n8n:lock -- 0.0.1');
	});
});

describe('the committed n8n runtimes', () => {
	const runtimes = path.join(__dirname, '..', '..', 'scripts', 'n8n', 'runtimes');
	const installScript = fs.readFileSync(INSTALL, 'utf8');

	it.each([['N8N1_VERSION'], ['N8N2_VERSION']])(
		'%s of install.sh has a lockfile that pins that n8n',
		(name) => {
			const version = new RegExp(`^${name}=(\\S+)$`, 'm').exec(installScript)?.[1] ?? '';
			const lock = JSON.parse(
				fs.readFileSync(path.join(runtimes, version, 'package-lock.json'), 'utf8'),
			);
			expect(lock.packages['node_modules/n8n'].version).toBe(version);
			expect(lock.packages[''].dependencies.n8n).toBe(version);
		},
	);

	it('pins the @langchain packages n8n 1.123.81 was released with (a later one broke `n8n start`)', () => {
		const lock = JSON.parse(
			fs.readFileSync(path.join(runtimes, '1.123.81', 'package-lock.json'), 'utf8'),
		);
		expect(lock.packages['node_modules/@langchain/langgraph-checkpoint'].version).not.toBe('1.2.2');
	});
});
