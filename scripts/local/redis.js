// @ts-check
/**
 * Finds a real Redis for the tests and `npm run dev`: REDIS_URL, else 127.0.0.1:6379, else a
 * redis-server started on a free loopback port when the binary exists. Plain JavaScript so
 * that jest's globalSetup and the dev/e2e tooling can use it without a compile step.
 */
const { spawn, spawnSync } = require('node:child_process');
const net = require('node:net');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/**
 * Sends PING over a raw socket; resolves true on +PONG (or NOAUTH: something answers).
 * @param {string} host
 * @param {number} port
 * @param {number} [timeoutMs]
 * @returns {Promise<boolean>}
 */
function ping(host, port, timeoutMs = 1000) {
	return new Promise((resolve) => {
		const socket = net.connect({ host, port });
		/** @param {boolean} ok */
		const done = (ok) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(timeoutMs, () => done(false));
		socket.once('error', () => done(false));
		socket.once('connect', () => socket.write('PING\r\n'));
		socket.once('data', (buf) => done(/^\+PONG|^-NOAUTH/.test(buf.toString())));
	});
}

/** @returns {Promise<number>} */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

function hasRedisServer() {
	return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * @returns {Promise<{ url: string, stop: () => void, started: boolean }>}
 */
async function ensureRedis() {
	if (process.env.REDIS_URL) {
		const u = new URL(process.env.REDIS_URL);
		if (await ping(u.hostname, Number(u.port || 6379))) {
			return { url: process.env.REDIS_URL, stop: () => {}, started: false };
		}
		throw new Error(`REDIS_URL=${process.env.REDIS_URL} does not answer PING.`);
	}
	if (await ping('127.0.0.1', 6379)) {
		return { url: 'redis://127.0.0.1:6379', stop: () => {}, started: false };
	}
	if (!hasRedisServer()) {
		throw new Error(
			'The tests need a real Redis and none answers on 127.0.0.1:6379 (or REDIS_URL). ' +
				'Install one (Debian/Ubuntu: `apt-get install -y redis-server`, macOS: `brew install redis`) ' +
				'or point REDIS_URL at a running server, e.g. REDIS_URL=redis://127.0.0.1:6379.',
		);
	}
	return await startRedisServer();
}

/**
 * A redis-server of its own on a free loopback port: no persistence, its own temporary folder.
 * @returns {Promise<{ url: string, stop: () => void, started: boolean }>}
 */
async function startRedisServer() {
	const port = await freePort();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-redis-'));
	const child = spawn(
		'redis-server',
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
		{ stdio: 'ignore', detached: true },
	);
	child.unref();
	for (let i = 0; i < 100; i++) {
		if (await ping('127.0.0.1', port, 200)) {
			return {
				url: `redis://127.0.0.1:${port}`,
				started: true,
				stop: () => {
					try {
						process.kill(child.pid ?? 0, 'SIGTERM');
					} catch {
						// already gone
					}
					fs.rmSync(dir, { recursive: true, force: true });
				},
			};
		}
		await new Promise((r) => setTimeout(r, 50));
	}
	child.kill('SIGKILL');
	throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
}

module.exports = { ensureRedis, startRedisServer, hasRedisServer, ping, freePort };
