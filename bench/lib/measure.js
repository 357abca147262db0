// @ts-check
/**
 * Measuring helpers shared by the benchmark child processes (bench/lib/*-child.js): wall and CPU
 * time, peak RSS growth, Redis round trips, the stand-in's counters, and the one-JSON-line
 * protocol between a child and bench/core.js.
 */
const http = require('node:http');

/**
 * A figure as the bench prints it: integers from 100 up, one decimal from 10, two below.
 * @param {number} value
 */
const fmt = (value) =>
	!Number.isFinite(value) ? String(value) : value >= 100 ? Math.round(value).toLocaleString('en-US') : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/** @param {number[]} values */
function median(values) {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Runs `work` and returns its result with the wall time (ms) and this process's CPU time (µs,
 * user + system, all threads: the main thread, GC helpers, libuv). The sum is exact (the
 * kernel's runtime of the threads); how it splits into user and system is sampled per tick, so
 * it is not reported.
 * @template T
 * @param {() => Promise<T> | T} work
 * @returns {Promise<{ result: T, ms: number, cpuUs: number }>}
 */
async function timed(work) {
	const cpu0 = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	const result = await work();
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	const cpu = process.cpuUsage(cpu0);
	return { result, ms, cpuUs: cpu.user + cpu.system };
}

/**
 * @typedef {{ ms: number, cpuUs: number }} Run
 * @typedef {{ minWarm: number, maxWarm: number, measured: number, settle?: number }} SteadyPlan
 */

/**
 * Steady state: runs `once` (each call a fresh input, made outside its timed section) as
 * warm-up until the per-run CPU figure settles — two consecutive runs within `settle` (5 %) of
 * each other, after at least `minWarm` runs, at most `maxWarm` — then `measured` more runs.
 * The warm-up runs are dropped (returned, not counted). No forced GC anywhere: V8 keeps the heap
 * sizes it has grown into, as in a long-running process.
 * @param {(run: { index: number, measured: boolean, last: boolean }) => Promise<Run>} once
 *   `last`: the last measured run (the one a child checks, outside its timed section)
 * @param {SteadyPlan} plan
 * @returns {Promise<{ warm: Run[], runs: Run[], settled: boolean }>}
 */
async function steadyRuns(once, plan) {
	const settle = plan.settle ?? 0.05;
	/** @type {Run[]} */
	const warm = [];
	let settled = false;
	while (warm.length < plan.maxWarm && !settled) {
		warm.push(await once({ index: warm.length, measured: false, last: false }));
		const k = warm.length;
		settled = k >= Math.max(2, plan.minWarm) && Math.abs(warm[k - 1].cpuUs - warm[k - 2].cpuUs) <= settle * warm[k - 2].cpuUs;
	}
	/** @type {Run[]} */
	const runs = [];
	for (let i = 0; i < plan.measured; i++) {
		runs.push(await once({ index: warm.length + i, measured: true, last: i === plan.measured - 1 }));
	}
	return { warm, runs, settled };
}

/**
 * The resident set size right before the measured work, after a full GC (the child runs with
 * --expose-gc), in KB. Peak growth = maxRSS afterwards − this.
 */
function rssBaselineKb() {
	const gc = /** @type {(() => void) | undefined} */ (global.gc);
	if (gc) {
		gc();
		gc();
	}
	return process.memoryUsage().rss / 1024;
}

/** Peak RSS of this process so far (KB, from getrusage) minus `baselineKb`. @param {number} baselineKb */
function peakRssGrowthKb(baselineKb) {
	return Math.max(0, process.resourceUsage().maxRSS - baselineKb);
}

/**
 * Counts the request flights an ioredis connection sends: every `stream.write` is one (ioredis
 * writes a single command in one write and a whole pipeline / MULTI in one write), so with the
 * caller awaiting each reply this is the number of round trips. Call after the client is ready.
 * @param {{ stream: { write: Function } }} client
 */
function countRoundTrips(client) {
	const counter = { count: 0 };
	const stream = client.stream;
	const write = stream.write;
	stream.write = function countedWrite(/** @type {any[]} */ ...args) {
		counter.count++;
		return write.apply(this, args);
	};
	return counter;
}

/**
 * @typedef {{ commands: number, eval: number, exec: number, byName: Record<string, number> }} RedisCounters
 */

/**
 * Redis's own counters, for the server-side check: commands processed, EVAL/EVALSHA and EXEC
 * calls, and every command's calls by name (`INFO commandstats`: the commands clients sent and
 * those their scripts ran, both). Each call is itself one command (INFO), which `redisDelta`
 * takes out.
 * @param {{ info: (section: string) => Promise<string> }} admin
 * @returns {Promise<RedisCounters>}
 */
async function redisCounters(admin) {
	const text = await admin.info('all');
	/** @param {RegExp} re */
	const read = (re) => Number(re.exec(text)?.[1] ?? 0);
	/** @type {Record<string, number>} */
	const byName = {};
	for (const [, name, calls] of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) byName[name] = Number(calls);
	return {
		commands: read(/^total_commands_processed:(\d+)/m),
		eval: read(/^cmdstat_eval:calls=(\d+)/m) + read(/^cmdstat_evalsha:calls=(\d+)/m),
		exec: read(/^cmdstat_exec:calls=(\d+)/m),
		byName,
	};
}

/**
 * What Redis processed between two `redisCounters` snapshots, without the first snapshot's own
 * INFO (counted once it has run, so it shows in the second).
 * @param {RedisCounters} before
 * @param {RedisCounters} after
 */
function redisDelta(before, after) {
	/** @type {Record<string, number>} */
	const byName = {};
	for (const [name, calls] of Object.entries(after.byName)) {
		const delta = calls - (before.byName[name] ?? 0) - (name === 'info' ? 1 : 0);
		if (delta > 0) byName[name] = delta;
	}
	return {
		commands: after.commands - before.commands - 1,
		eval: after.eval - before.eval,
		exec: after.exec - before.exec,
		byName,
	};
}

/**
 * The stand-in's control server (bench/lib/standin.js).
 * @param {string} controlUrl
 */
function standInControl(controlUrl) {
	/** @param {'GET' | 'POST'} method @param {string} path @returns {Promise<any>} */
	const call = (method, path) =>
		new Promise((resolve, reject) => {
			const req = http.request(`${controlUrl}${path}`, { method, agent: false }, (res) => {
				let body = '';
				res.setEncoding('utf8');
				res.on('data', (chunk) => (body += chunk));
				res.on('end', () => resolve(JSON.parse(body)));
			});
			req.on('error', reject);
			req.end();
		});
	return {
		/** @returns {Promise<{ requests: number, statuses: Record<string, number>, events: number, distinctEventIds: number }>} */
		stats: () => call('GET', '/stats'),
		reset: () => call('POST', '/reset'),
	};
}

/** Reads a child's options (one JSON argument). */
function childOptions() {
	return JSON.parse(process.argv[2] || '{}');
}

/**
 * Prints the child's result as its last stdout line and exits (open keep-alive sockets and
 * Redis connections must not keep the process alive).
 * @param {unknown} result
 */
function finish(result) {
	process.stdout.write(`\n${JSON.stringify(result)}\n`, () => process.exit(0));
}

/** @param {unknown} error */
function fail(error) {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
}

module.exports = {
	fmt,
	median,
	timed,
	steadyRuns,
	rssBaselineKb,
	peakRssGrowthKb,
	countRoundTrips,
	redisCounters,
	redisDelta,
	standInControl,
	childOptions,
	finish,
	fail,
};
