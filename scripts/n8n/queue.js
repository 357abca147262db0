// @ts-check
/**
 * Runs a real n8n in queue mode with this package loaded: one `n8n start` main (editor, REST API
 * and production webhooks) and N `n8n worker` processes, PostgreSQL as n8n's database and Redis
 * for Bull's queue. Used by the end-to-end suite's queue-mode file (test/e2e/queue.e2e.test.ts).
 * Stands on scripts/n8n/n8n.js. What queue mode takes, on top of what n8n.js knows:
 *  - main and workers must share the database (SQLite is not supported in queue mode), the
 *    encryption key and the user folder (community packages are loaded from it on every
 *    process, credentials are decrypted with the key on the workers);
 *  - every process opens a task-broker port: each worker gets its own;
 *  - a worker only serves /healthz when QUEUE_HEALTH_CHECK_ACTIVE is on, on port 5678 unless
 *    told otherwise: off, so workers never collide with main or with each other;
 *  - a worker is ready when it logs "n8n worker is now ready";
 *  - each run gets its own database and its own Bull prefix (QUEUE_BULL_PREFIX): two runs, or a
 *    run and `npm run dev`, on the same Redis never take each other's jobs.
 *
 * Usage:
 *   const queue = await prepareQueueMode({ home, userFolder, redisUrl, workers: 2 });
 *   installPackage(userFolder, tgz);
 *   const running = await queue.start();   // { baseUrl, mainLog, workers: [{ logFile, ... }] }
 *   // credentials and workflows through the REST API of running.baseUrl (scripts/n8n/rest.js)
 *   ...
 *   await queue.stop();                    // workers, main, database, Bull keys
 *
 * PostgreSQL: PGHOST / PGPORT / PGUSER / PGPASSWORD (defaults 127.0.0.1, 5432, postgres, none);
 * the user must be allowed to create databases.
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const n8n = require('./n8n.js');
const { freePort, n8nEnv, startServer } = n8n;

/**
 * @typedef {{ host: string, port: number, user: string, password: string }} PgServer
 * @typedef {{ index: number, pid: number, logFile: string, brokerPort: number,
 *   child: import('node:child_process').ChildProcess }} WorkerHandle
 * @typedef {{ baseUrl: string, port: number, mainLog: string, workers: WorkerHandle[],
 *   startupMs: number }} Running
 */

/** @returns {PgServer} */
function pgServerFromEnv() {
	return {
		host: process.env.PGHOST || '127.0.0.1',
		port: Number(process.env.PGPORT || 5432),
		user: process.env.PGUSER || 'postgres',
		password: process.env.PGPASSWORD || '',
	};
}

/**
 * The `pg` client n8n itself connects with, from the n8n install: the repository does not need
 * a PostgreSQL driver of its own, and the database is created the way n8n will reach it.
 * @param {string} home
 */
function pgModule(home) {
	try {
		return require(path.join(home, 'node_modules', 'pg'));
	} catch (error) {
		throw new Error(
			`no "pg" module in ${home}/node_modules (n8n's PostgreSQL driver): ${String(error)}`,
		);
	}
}

/**
 * Runs SQL statements on the server's maintenance database `postgres`.
 * @param {string} home
 * @param {PgServer} server
 * @param {string[]} statements
 */
async function adminSql(home, server, statements) {
	const { Client } = pgModule(home);
	const client = new Client({ ...server, database: 'postgres', connectionTimeoutMillis: 5_000 });
	try {
		await client.connect();
	} catch (error) {
		throw new Error(
			`PostgreSQL does not answer on ${server.host}:${server.port} as ${server.user} (${String(error)}). ` +
				'Queue mode needs it: start it (Debian: `pg_ctlcluster --skip-systemctl-redirect 15 main start`, ' +
				'or see .ci/run) or point PGHOST/PGPORT/PGUSER/PGPASSWORD at one.',
		);
	}
	try {
		for (const sql of statements) await client.query(sql);
	} finally {
		await client.end().catch(() => undefined);
	}
}

/**
 * Bull's settings for n8n from a redis:// URL (host, port, db, user, password, TLS).
 * @param {string} redisUrl
 * @returns {Record<string, string>}
 */
function bullRedisEnv(redisUrl) {
	const url = new URL(redisUrl);
	/** @type {Record<string, string>} */
	const env = {
		QUEUE_BULL_REDIS_HOST: url.hostname,
		QUEUE_BULL_REDIS_PORT: url.port || '6379',
	};
	const db = url.pathname.replace(/^\//, '');
	if (db) env.QUEUE_BULL_REDIS_DB = db;
	if (url.username) env.QUEUE_BULL_REDIS_USERNAME = decodeURIComponent(url.username);
	if (url.password) env.QUEUE_BULL_REDIS_PASSWORD = decodeURIComponent(url.password);
	if (url.protocol === 'rediss:') env.QUEUE_BULL_REDIS_TLS = 'true';
	return env;
}

/**
 * Deletes this run's Redis keys (`<prefix>:*`: Bull's jobs, n8n's cache): the test Redis is
 * shared and a run's completed jobs would otherwise stay there. Uses the repository's own ioredis.
 * @param {string} redisUrl
 * @param {string} prefix
 */
async function dropBullKeys(redisUrl, prefix) {
	const { Redis } = require('ioredis');
	const client = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
	client.on('error', () => undefined);
	try {
		await client.connect();
		let cursor = '0';
		do {
			const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
			cursor = next;
			if (keys.length) await client.del(...keys);
		} while (cursor !== '0');
	} finally {
		client.disconnect();
	}
}

/**
 * Resolves once `text` is in `file`, or rejects at the deadline or when the process exits.
 * @param {string} file
 * @param {string} text
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} deadline epoch ms
 */
async function waitForLine(file, text, child, deadline) {
	for (;;) {
		if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(text)) return;
		if (child.exitCode !== null || child.signalCode !== null) {
			throw new Error(`process ${child.pid} exited before logging "${text}"; see ${file}`);
		}
		if (Date.now() > deadline) throw new Error(`no "${text}" in ${file} in time`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

/**
 * Stops a child with SIGTERM (n8n finishes running jobs and shuts its task runner down), then
 * SIGKILL after `graceMs`.
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} graceMs
 * @returns {Promise<void>}
 */
function stopChild(child, graceMs) {
	return new Promise((resolve) => {
		if (child.exitCode !== null || child.signalCode !== null) return resolve();
		const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
		child.once('exit', () => {
			clearTimeout(kill);
			resolve();
		});
		child.kill('SIGTERM');
	});
}

/**
 * Creates the run's database and the environment every process of the run shares. Nothing is
 * started yet: start() starts main (which migrates the database), then the workers; credentials
 * and workflows go in through main's REST API (test/e2e/n8n.ts).
 * @param {{ home: string, userFolder: string, redisUrl: string, workers?: number,
 *   workerConcurrency?: number, pg?: Partial<PgServer>, extraEnv?: Record<string, string> }} options
 */
async function prepareQueueMode(options) {
	const { home, userFolder, redisUrl } = options;
	const workerCount = options.workers ?? 2;
	const server = { ...pgServerFromEnv(), ...options.pg };
	const runId = crypto.randomBytes(5).toString('hex');
	const database = `lead_capi_queue_${runId}`;
	const bullPrefix = `lead-capi-queue-${runId}`;
	await adminSql(home, server, [`CREATE DATABASE "${database}"`]);

	const env = n8nEnv(home, userFolder, await freePort(), {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: server.host,
		DB_POSTGRESDB_PORT: String(server.port),
		DB_POSTGRESDB_DATABASE: database,
		DB_POSTGRESDB_USER: server.user,
		DB_POSTGRESDB_PASSWORD: server.password,
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_PREFIX: bullPrefix,
		// n8n's own Redis keys (its cache — the webhook registry among them —, pub/sub) under the
		// run's prefix too: a registry cached by an earlier run on the same Redis outlives its
		// database and makes n8n 2.x refuse to activate a workflow on the same path ("There is a
		// conflict with one of the webhooks"). stop() deletes them with the Bull keys.
		N8N_REDIS_KEY_PREFIX: bullPrefix,
		...bullRedisEnv(redisUrl),
		// Runs started from the editor go to the workers too, like production executions.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		QUEUE_HEALTH_CHECK_ACTIVE: 'false',
		...options.extraEnv,
	});

	/** @type {import('node:child_process').ChildProcess[]} */
	const workerChildren = [];
	/** @type {(() => Promise<unknown>) | undefined} */
	let stopMain;
	let stopped = false;

	/**
	 * Starts the workers and main and resolves when all are ready: main when webhooks of
	 * active workflows answer ("Editor is now accessible" + /healthz/readiness), each worker
	 * when it logs "n8n worker is now ready". Fails (and stops what it started) at the deadline.
	 * @param {{ timeoutMs?: number }} [startOptions]
	 * @returns {Promise<Running>}
	 */
	async function start(startOptions = {}) {
		const timeoutMs = startOptions.timeoutMs ?? 240_000;
		const started = Date.now();
		const deadline = started + timeoutMs;
		const bin = path.join(home, 'node_modules', 'n8n', 'bin', 'n8n');
		// Workers run on the Node main runs on: n8n.js's choice when it offers one (LEAD_CAPI_NODE
		// for n8n 2.x on Node 24), else the same rule.
		const offered = /** @type {{ nodeBinary?: () => string }} */ (/** @type {unknown} */ (n8n));
		const nodeBin = offered.nodeBinary
			? offered.nodeBinary()
			: path.resolve(process.env.LEAD_CAPI_NODE || process.execPath);
		// n8n starts its task runner with `node` from PATH: that Node must come first there.
		const nodeDir = path.dirname(nodeBin);
		const workerPath = (env.PATH || '').startsWith(`${nodeDir}${path.delimiter}`)
			? env.PATH
			: `${nodeDir}${path.delimiter}${env.PATH || ''}`;
		/** @type {WorkerHandle[]} */
		const workers = [];
		try {
			// Main first: it migrates the run's fresh database (credentials and workflows go in
			// through its REST API afterwards); then the workers, side by side.
			const port = await freePort();
			const mainLog = path.join(userFolder, 'main.log');
			const main = await startServer(home, env, {
				port,
				logFile: mainLog,
				timeoutMs: Math.max(1, deadline - Date.now()),
			});
			stopMain = main.stop;
			for (let index = 1; index <= workerCount; index++) {
				const brokerPort = await freePort();
				const logFile = path.join(userFolder, `worker-${index}.log`);
				const log = fs.openSync(logFile, 'a');
				const args = [bin, 'worker'];
				if (options.workerConcurrency) args.push(`--concurrency=${options.workerConcurrency}`);
				const child = spawn(nodeBin, args, {
					env: {
						...env,
						N8N_RUNNERS_BROKER_PORT: String(brokerPort),
						PATH: workerPath,
					},
					stdio: ['ignore', log, log],
				});
				fs.closeSync(log);
				workerChildren.push(child);
				workers.push({ index, pid: child.pid ?? 0, logFile, brokerPort, child });
			}
			for (const worker of workers) {
				await waitForLine(worker.logFile, 'worker is now ready', worker.child, deadline);
			}
			return { baseUrl: main.baseUrl, port, mainLog, workers, startupMs: Date.now() - started };
		} catch (error) {
			await stop();
			throw error;
		}
	}

	/**
	 * Stops workers (each finishes its running jobs first), then main, then drops the database
	 * and the run's Bull keys. Safe to call more than once, and before or after a failed start.
	 */
	async function stop() {
		if (stopped) return;
		stopped = true;
		/** @type {unknown[]} */
		const problems = [];
		await Promise.all(workerChildren.map((child) => stopChild(child, 20_000)));
		if (stopMain) await stopMain();
		// FORCE: a process killed mid-query may leave a backend behind for a moment.
		await adminSql(home, server, [`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`]).catch(
			(e) => problems.push(e),
		);
		await dropBullKeys(redisUrl, bullPrefix).catch((e) => problems.push(e));
		if (problems.length) throw new Error(`queue-mode clean-up: ${problems.map(String).join('; ')}`);
	}

	return { env, database, bullPrefix, userFolder, start, stop };
}

/**
 * Which worker ran which execution, from the workers' logs: n8n 1.x logs
 * "Worker started execution <id> (job <job>)" when a worker picks a job up. An execution that
 * shows up more than once was re-run (e.g. a stalled job taken again).
 * @param {WorkerHandle[]} workers
 * @returns {Map<string, number[]>} execution id → worker indexes, in the order logged
 */
function executionsByWorker(workers) {
	/** @type {Map<string, number[]>} */
	const map = new Map();
	for (const worker of workers) {
		const text = fs.existsSync(worker.logFile) ? fs.readFileSync(worker.logFile, 'utf8') : '';
		for (const match of text.matchAll(/Worker started execution (\d+) \(job [^)]*\)/g)) {
			map.set(match[1], [...(map.get(match[1]) ?? []), worker.index]);
		}
	}
	return map;
}

module.exports = { prepareQueueMode, executionsByWorker, bullRedisEnv, pgServerFromEnv };
