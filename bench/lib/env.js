// @ts-check
/**
 * The benchmark's surroundings, started by bench/core.js: a quiet Redis, the Meta stand-in in its
 * own process, child processes for the measured work, machine facts, and key cleanup.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Redis = require('ioredis').default;
const { ensureRedis, ping, freePort } = require('../../scripts/local/redis.js');

const REPO = path.resolve(__dirname, '..', '..');

/**
 * The Redis the bench uses:
 *  - REDIS_URL when set (then other clients may share it: the server-side command counts are
 *    reported but the client-side count is the one to trust);
 *  - else a private redis-server on a free loopback port when the binary exists: quiet by
 *    construction, so Redis's own counters (INFO) count exactly our commands, and nobody
 *    else's traffic (e.g. a test suite on 6379) shares it;
 *  - else whatever scripts/local/redis.js finds (127.0.0.1:6379).
 * @returns {Promise<{ url: string, quiet: boolean, version: string, where: string, stop: () => void }>}
 */
async function startRedis() {
	/** @type {{ url: string, quiet: boolean, where: string, stop: () => void }} */
	let found;
	const hasServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
	if (!process.env.REDIS_URL && hasServer) {
		const port = await freePort();
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-bench-redis-'));
		const child = spawn(
			'redis-server',
			['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
			{ stdio: 'ignore' },
		);
		let up = false;
		for (let i = 0; i < 100 && !up; i++) {
			up = await ping('127.0.0.1', port, 200);
			if (!up) await new Promise((r) => setTimeout(r, 50));
		}
		if (!up) {
			child.kill('SIGKILL');
			throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
		}
		found = {
			url: `redis://127.0.0.1:${port}`,
			quiet: true,
			where: `private redis-server on 127.0.0.1:${port} (started by the bench)`,
			stop: () => {
				child.kill('SIGTERM');
				fs.rmSync(dir, { recursive: true, force: true });
			},
		};
	} else {
		const r = await ensureRedis();
		found = { url: r.url, quiet: false, where: `${r.url.replace(/\/\/[^@]*@/, '//')} (shared)`, stop: r.stop };
	}
	const admin = new Redis(found.url, { lazyConnect: true });
	await admin.connect();
	const info = await admin.info('server');
	admin.disconnect();
	const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
	return { ...found, version };
}

/**
 * Deletes every key under `prefix` (SCAN + UNLINK); returns how many.
 * @param {string} url @param {string} prefix
 */
async function deleteKeys(url, prefix) {
	const admin = new Redis(url, { lazyConnect: true });
	await admin.connect();
	let cursor = '0';
	let deleted = 0;
	do {
		const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
		cursor = next;
		if (keys.length) deleted += await admin.unlink(...keys);
	} while (cursor !== '0');
	admin.disconnect();
	return deleted;
}

/**
 * The Meta stand-in (test/standins/meta.js) in its own process, via bench/lib/standin.js.
 * @param {string} token
 * @returns {Promise<{ url: string, control: string, stop: () => void }>}
 */
function startStandIn(token) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [path.join(__dirname, 'standin.js'), '--token', token], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let out = '';
		child.stdout.setEncoding('utf8');
		child.stdout.on('data', (chunk) => {
			out += chunk;
			const line = out.split('\n')[0];
			if (out.includes('\n')) {
				child.stdout.removeAllListeners('data');
				child.stdout.resume();
				resolve({ ...JSON.parse(line), stop: () => child.kill('SIGTERM') });
			}
		});
		child.once('exit', (code) => reject(new Error(`the stand-in exited (${code}) before it was ready`)));
	});
}

/**
 * Runs a measuring child (`node --expose-gc <script> '<json options>'`) and returns the JSON on
 * its last stdout line. Its stderr goes to ours.
 * @param {string} script file name under bench/lib
 * @param {object} options
 * @param {string[]} [nodeArgs] extra Node flags (e.g. --cpu-prof)
 * @returns {Promise<any>}
 */
function runChild(script, options, nodeArgs = []) {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			['--expose-gc', ...nodeArgs, path.join(__dirname, script), JSON.stringify(options)],
			{ stdio: ['ignore', 'pipe', 'inherit'], cwd: REPO },
		);
		let out = '';
		child.stdout.setEncoding('utf8');
		child.stdout.on('data', (chunk) => (out += chunk));
		child.on('error', reject);
		child.on('exit', (code) => {
			const last = out.trim().split('\n').pop() ?? '';
			if (code !== 0) return reject(new Error(`${script} exited with ${code}`));
			try {
				resolve(JSON.parse(last));
			} catch {
				reject(new Error(`${script} printed no result: ${last.slice(0, 200)}`));
			}
		});
	});
}

/**
 * The options the Meta node dispatches with when none are set (Keep a Stage Ledger on, dedup
 * TTL, fail mode…): the node's own `dispatchOptions({})` from dist/, so the core runs of the
 * bench dispatch as the node does, whatever it does.
 * @returns {Record<string, unknown>}
 */
function metaNodeDispatchDefaults() {
	const { dispatchOptions } = require(path.join(REPO, 'dist', 'nodes', 'common', 'executeSender.js'));
	return dispatchOptions({});
}

/** CPU model, cores, Node version, OS, memory. */
function machine() {
	const cpus = os.cpus();
	return {
		cpu: cpus[0]?.model?.trim() ?? 'unknown',
		cores: cpus.length,
		node: process.version,
		os: `${os.type()} ${os.release()} (${os.arch()})`,
		memory_gb: Math.round(os.totalmem() / 2 ** 30),
	};
}

module.exports = { startRedis, deleteKeys, startStandIn, runChild, machine, metaNodeDispatchDefaults, REPO };
