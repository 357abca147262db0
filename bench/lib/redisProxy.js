// @ts-check
/**
 * A counting TCP proxy in front of a Redis: every byte goes through unchanged, and the commands
 * the clients send (RESP arrays, as ioredis writes them, pipelines and MULTI included) are
 * counted by name on the way. It counts what a client issues; Redis' own `INFO commandstats`
 * counts that plus every command its scripts run, so the difference is what ran inside scripts.
 *
 * Used where the client cannot be reached from the bench (n8n's own ioredis, bench/n8n.js), and
 * in the core's command count (bench/lib/core-child.js `commands`), so both are counted alike.
 * Never in a timed section: it adds a loopback hop to every round trip. Also here: the counts
 * per batch and the constant-per-batch target both scenarios judge.
 */
const net = require('node:net');
const { fmt } = require('./measure.js');

const LF = 10;

/**
 * Commands Redis counts per subcommand in INFO commandstats (`client|setname`, `config|get`):
 * counted here under the same names.
 */
const CONTAINERS = new Set(['acl', 'client', 'cluster', 'command', 'config', 'function', 'latency', 'memory', 'module', 'object', 'pubsub', 'script', 'slowlog', 'xinfo', 'xgroup']);

/**
 * A streaming counter of RESP commands for one connection: `*<n>\r\n` then n bulk strings
 * `$<len>\r\n<bytes>\r\n`; the first bulk string is the command's name (with the second for
 * the container commands above). Bulk data is skipped by its length, never copied (a 1,000-key
 * EVAL is ~100 KB).
 * @param {(name: string) => void} onCommand
 */
function respCounter(onCommand) {
	/** Bytes of a header line read so far (`*3`, `$5`). */
	let line = '';
	/** Bytes of the current bulk string (with its \r\n) still to skip. */
	let skip = 0;
	/** Bulk strings of the current command still to come; its name parts as read. */
	let args = 0;
	/** @type {string[]} */
	let words = [];
	let word = '';
	/** The current bulk string is a name part: the first, or the second of a container command. */
	const naming = () => words.length === 0 || (words.length === 1 && CONTAINERS.has(words[0]));
	const done = () => onCommand(words.length === 2 && CONTAINERS.has(words[0]) ? `${words[0]}|${words[1]}` : (words[0] ?? ''));
	/** @param {string} header */
	const onLine = (header) => {
		if (header[0] === '*') {
			args = Number(header.slice(1));
			words = [];
			if (args <= 0) done();
		} else if (header[0] === '$') {
			skip = Number(header.slice(1)) + 2;
		} else if (header.trim() !== '') {
			words = [header.trim().split(/\s+/)[0].toLowerCase()]; // an inline command
			done();
		}
	};
	/** @param {Buffer} chunk */
	return (chunk) => {
		let i = 0;
		while (i < chunk.length) {
			if (skip > 0) {
				const take = Math.min(skip, chunk.length - i);
				if (naming()) word += chunk.toString('latin1', i, i + Math.min(take, Math.max(0, skip - 2)));
				skip -= take;
				i += take;
				if (skip === 0) {
					if (naming()) words.push(word.toLowerCase());
					word = '';
					if (--args === 0) done();
				}
				continue;
			}
			const end = chunk.indexOf(LF, i);
			if (end < 0) {
				line += chunk.toString('latin1', i);
				break;
			}
			line += chunk.toString('latin1', i, end);
			if (line.endsWith('\r')) line = line.slice(0, -1);
			i = end + 1;
			onLine(line);
			line = '';
		}
	};
}

/**
 * Starts the proxy on a free loopback port, in front of `targetUrl` (redis://host:port).
 * @param {string} targetUrl
 * @returns {Promise<{ url: string, snapshot: () => { commands: number, byName: Record<string, number> }, stop: () => void }>}
 */
async function startCountingProxy(targetUrl) {
	const target = new URL(targetUrl);
	/** @type {Record<string, number>} */
	const byName = {};
	let commands = 0;
	const count = (/** @type {string} */ name) => {
		commands++;
		byName[name] = (byName[name] ?? 0) + 1;
	};
	/** @type {Set<net.Socket>} */
	const sockets = new Set();
	const server = net.createServer((client) => {
		const upstream = net.connect(Number(target.port || 6379), target.hostname);
		for (const s of [client, upstream]) {
			s.setNoDelay(true);
			sockets.add(s);
			s.on('close', () => sockets.delete(s));
			s.on('error', () => {
				client.destroy();
				upstream.destroy();
			});
		}
		const counter = respCounter(count);
		client.on('data', (chunk) => counter(chunk));
		client.pipe(upstream);
		upstream.pipe(client);
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	const auth = target.username || target.password ? `${target.username}:${target.password}@` : '';
	return {
		url: `redis://${auth}127.0.0.1:${port}${target.pathname}`,
		snapshot: () => ({ commands, byName: { ...byName } }),
		stop: () => {
			for (const s of sockets) s.destroy();
			server.close();
		},
	};
}

/**
 * Commands between two snapshots (of the proxy, or of `redisCounters`' `byName`), by name.
 * @param {Record<string, number>} before @param {Record<string, number>} after
 */
function countsBetween(before, after) {
	/** @type {Record<string, number>} */
	const out = {};
	for (const [name, calls] of Object.entries(after)) {
		const delta = calls - (before[name] ?? 0);
		if (delta > 0) out[name] = delta;
	}
	return out;
}

/** @param {Record<string, number>} counts */
const byNameText = (counts) =>
	Object.entries(counts)
		.sort((a, b) => b[1] - a[1])
		.map(([name, count]) => `${name.toUpperCase()} ${fmt(count)}`)
		.join(', ');

/**
 * Redis commands of one batch size: sent by the client, run inside scripts (what Redis executed
 * minus what the client sent), per batch.
 * @param {{ batches: number, roundTrips?: number, client: { commands: number, byName: Record<string, number> },
 *   server: { commands: number, byName: Record<string, number> } }} size
 */
function commandsPerBatch(size) {
	/** @type {Record<string, number>} */
	const client = {};
	/** @type {Record<string, number>} */
	const scripts = {};
	for (const [name, count] of Object.entries(/** @type {Record<string, number>} */ (size.client.byName))) client[name] = count / size.batches;
	// A command Redis refused (unknown to this version) is sent but not counted as executed: a
	// name's count in scripts is never below 0.
	let inAllScripts = 0;
	for (const [name, count] of Object.entries(/** @type {Record<string, number>} */ (size.server.byName))) {
		const inScripts = count - (size.client.byName[name] ?? 0);
		if (inScripts > 0) scripts[name] = inScripts / size.batches;
		inAllScripts += Math.max(0, inScripts);
	}
	return {
		client: size.client.commands / size.batches,
		scripts: inAllScripts / size.batches,
		clientByName: client,
		scriptsByName: scripts,
		roundTrips: (size.roundTrips ?? NaN) / size.batches,
	};
}

/**
 * The target "commands sent per batch are a constant, whatever the batch size": at every batch
 * size (each run with the same number of batches, so what a run issues once weighs the same),
 * the client's commands per batch within 0.5 of each other.
 * @param {Array<Parameters<typeof commandsPerBatch>[0] & { batchSize: number }>} sizes
 * @returns {{ value: string, met: boolean }}
 */
function constantPerBatch(sizes) {
	const per = sizes.map((size) => ({ size: size.batchSize.toLocaleString('en-US'), ...commandsPerBatch(size) }));
	const sent = per.map((p) => p.client);
	return {
		value: `sent per batch ${per.map((p) => `${fmt(p.client)} at ${p.size}/batch`).join(', ')}; run inside scripts per batch ${per.map((p) => `${fmt(p.scripts)} at ${p.size}`).join(', ')}`,
		met: Math.max(...sent) - Math.min(...sent) <= 0.5,
	};
}

module.exports = { startCountingProxy, respCounter, countsBetween, commandsPerBatch, byNameText, constantPerBatch };
