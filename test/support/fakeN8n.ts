import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A small n8n runtime for the tests of scripts/n8n/install.sh and `npm run dev`: a lockfile
 * (under `<root>/runtimes/<FAKE_N8N_VERSION>/`, what LEAD_CAPI_N8N_RUNTIMES points at) whose
 * "n8n" is a local stand-in package and whose "sqlite3" has a native-build-like install script.
 * The real runtimes take minutes to install; CI proves them with `npm run dev -- --check`.
 *
 * The stand-in n8n: `n8n start` listens on N8N_PORT, logs "Editor is now accessible" and answers
 * /healthz/readiness and the REST calls `npm run dev` makes (owner set-up, login, a workflow's
 * versionId, activation, the list of active workflows; it logs each activation; every other
 * path 404, so the 2.x publication status reads as 1.x), shuts down in 200 ms on SIGINT or SIGTERM as n8n
 * does; every other command prints its arguments and exits 0. Its environment switches:
 * FAKE_N8N_FAIL (start fails), FAKE_N8N_EXIT_AFTER_MS (exits with code 3 that long after it is
 * ready). sqlite3's install script prints 100 compiler-like lines, then fails on FAKE_BUILD_FAIL.
 */
export const FAKE_N8N_VERSION = '9.9.9-test';

const FAKE_N8N_BIN = `#!/usr/bin/env node
const http = require('node:http');
if (process.argv[2] !== 'start') { console.log('fake n8n: ' + process.argv.slice(2).join(' ')); process.exit(0); }
if (process.env.FAKE_N8N_FAIL) { console.error('Error: Command "start" not found'); process.exit(1); }
const active = new Set();
const json = (res, status, body, headers = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
http.createServer((req, res) => {
	const url = req.url || '';
	if (url === '/healthz/readiness') return json(res, 200, {});
	if (req.method === 'POST' && url === '/rest/owner/setup') return json(res, 200, { data: {} });
	if (req.method === 'POST' && url === '/rest/login') return json(res, 200, { data: {} }, { 'set-cookie': 'n8n-auth=fake; Path=/' });
	const parts = url.split('/'); // ['', 'rest', 'workflows', id, 'activate']
	const one = parts.length >= 4 && parts[1] === 'rest' && parts[2] === 'workflows' && (parts.length === 4 || (parts.length === 5 && parts[4] === 'activate')) ? [url, parts[3], parts[4] === 'activate' ? parts[4] : undefined] : null;
	if (one && req.method === 'GET' && !one[2]) return json(res, 200, { data: { id: one[1], versionId: 'v1', active: active.has(one[1]) } });
	if (one && req.method === 'POST' && one[2]) { active.add(one[1]); console.log('fake n8n: activated ' + one[1]); return json(res, 200, { data: {} }); }
	if (req.method === 'GET' && url === '/rest/workflows') return json(res, 200, { data: [...active].map((id) => ({ id, name: id, active: true })) });
	res.writeHead(404).end('{}');
})
	.listen(Number(process.env.N8N_PORT), '127.0.0.1', () => {
		console.log('Editor is now accessible via: http://127.0.0.1');
		const after = Number(process.env.FAKE_N8N_EXIT_AFTER_MS);
		if (after) setTimeout(() => { console.error('fake n8n: out of memory (fake crash)'); process.exit(3); }, after);
	});
for (const signal of ['SIGINT', 'SIGTERM']) {
	process.on(signal, () => { console.log('Received ' + signal + '. Shutting down...'); setTimeout(() => process.exit(0), 200); });
}
`;

const FAKE_NATIVE_BUILD = `for (let i = 1; i <= 100; i++) console.log('  CXX(target) Release/obj.target/node_sqlite3/src/part' + i + '.o');
if (process.env.FAKE_BUILD_FAIL) { console.error('gyp ERR! build error (fake)'); process.exit(1); }
`;

/**
 * Writes the runtime under `root` and returns its runtimes folder. The packages sit at the same
 * depth as the runtime and the install (`<root>/<x>/<y>`), so the lockfile's relative links
 * hold in both.
 */
export function makeFakeN8nRuntime(root: string): string {
	const pkgs = path.join(root, 'pkgs');
	fs.mkdirSync(path.join(pkgs, 'n8n', 'bin'), { recursive: true });
	fs.writeFileSync(
		path.join(pkgs, 'n8n', 'package.json'),
		JSON.stringify({ name: 'n8n', version: FAKE_N8N_VERSION, bin: { n8n: 'bin/n8n' } }),
	);
	fs.writeFileSync(path.join(pkgs, 'n8n', 'bin', 'n8n'), FAKE_N8N_BIN, { mode: 0o755 });
	fs.mkdirSync(path.join(pkgs, 'sqlite3'), { recursive: true });
	fs.writeFileSync(
		path.join(pkgs, 'sqlite3', 'package.json'),
		JSON.stringify({ name: 'sqlite3', version: '5.1.7', scripts: { install: 'node build.js' } }),
	);
	fs.writeFileSync(path.join(pkgs, 'sqlite3', 'build.js'), FAKE_NATIVE_BUILD);
	fs.writeFileSync(path.join(pkgs, 'sqlite3', 'index.js'), 'module.exports = {};');
	const runtimes = path.join(root, 'runtimes');
	const runtime = path.join(runtimes, FAKE_N8N_VERSION);
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
	return runtimes;
}
