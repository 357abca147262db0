import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAKE_N8N_VERSION, makeFakeN8nRuntime } from '../support/fakeN8n';

/**
 * scripts/n8n/install.sh, the way every n8n runtime of the project is installed (npm run dev,
 * the e2e suites, the bench), run for real on a small runtime of its own (test/support/fakeN8n):
 * its "n8n" starts like n8n or fails to, its sqlite3 build prints a page of compiler output or
 * fails. The real n8n runtimes take minutes to install; CI proves them with
 * `npm run dev -- --check` on an empty cache.
 */
const INSTALL = path.join(__dirname, '..', '..', 'scripts', 'n8n', 'install.sh');
const VERSION = FAKE_N8N_VERSION;

let root: string;
let home: string;
let npmEnvLog: string;

/** A `npm` first on PATH that writes down the npm settings it was given, then runs the real one. */
function makeNpmSpy(): string {
	const dir = path.join(root, 'spy-bin');
	fs.mkdirSync(dir, { recursive: true });
	const realNpm = spawnSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
	fs.writeFileSync(
		path.join(dir, 'npm'),
		`#!/usr/bin/env bash\n{ echo "npm $*"; env | grep -i '^npm_config_' | sort; } >> ${JSON.stringify(npmEnvLog)}\n` +
			`if [ "$1" = ci ] && [ -n "\${FAKE_NPM_CI_FAIL:-}" ]; then echo 'npm error 404 Not Found - GET https://registry.npmjs.org/fake' >&2; exit 1; fi\n` +
			`exec ${JSON.stringify(realNpm)} "$@"\n`,
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
	makeFakeN8nRuntime(root);
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

	it('keeps what npm and the native build print in install.log: the terminal gets a line per step with its time and the log path', () => {
		fs.rmSync(path.join(home, '.installed'));
		const fresh = install();
		expect(fresh.code).toBe(0);
		expect(fresh.stdout.split('\n').pop()).toBe(home);
		const log = path.join(home, 'install.log');
		expect(fs.readFileSync(log, 'utf8')).toContain(
			'CXX(target) Release/obj.target/node_sqlite3/src/part100.o',
		);
		expect(fresh.stderr).not.toContain('CXX(target)');
		expect(fresh.stderr).toContain(log);
		const lines = fresh.stderr.trim().split('\n');
		expect(lines.every((line) => line.startsWith('n8n-install: '))).toBe(true);
		expect(lines.length).toBeLessThanOrEqual(12);
		expect(fresh.stderr).toMatch(/npm ci \(\d+ packages in the lockfile\): done in \d+ s/);
		expect(fresh.stderr).toMatch(/building sqlite3 \(native module\): done in \d+ s/);
	});

	it('a failed native build fails the install and shows the last 40 lines of the log and its path', () => {
		fs.rmSync(path.join(home, '.installed'));
		const failed = install({ FAKE_BUILD_FAIL: '1' });
		expect(failed.code).not.toBe(0);
		expect(failed.stdout).toBe('');
		expect(fs.existsSync(path.join(home, '.installed'))).toBe(false);
		expect(failed.stderr).toContain('building sqlite3 (native module) failed');
		expect(failed.stderr).toContain('gyp ERR! build error (fake)');
		expect(failed.stderr).toContain('src/part100.o');
		expect(failed.stderr).not.toContain('src/part50.o');
		expect(failed.stderr).toContain(`full log: ${path.join(home, 'install.log')}`);
		expect(fs.readFileSync(path.join(home, 'install.log'), 'utf8')).toContain('src/part1.o');
	});

	it("a failed npm ci fails the install before any build, with npm's error on the terminal", () => {
		fs.writeFileSync(npmEnvLog, '');
		const failed = install({ FAKE_NPM_CI_FAIL: '1' });
		expect(failed.code).not.toBe(0);
		expect(failed.stdout).toBe('');
		expect(failed.stderr).toContain('npm error 404 Not Found');
		expect(failed.stderr).toMatch(/npm ci \(\d+ packages in the lockfile\) failed \(exit 1\)/);
		expect(fs.readFileSync(npmEnvLog, 'utf8')).not.toContain('npm rebuild');
		expect(fs.existsSync(path.join(home, '.installed'))).toBe(false);
		expect(install().code).toBe(0);
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
