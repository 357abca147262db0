// @ts-check
/**
 * Core dispatch, in a child process of its own (its JIT state and peak RSS are its own):
 * `dispatch` + `metaAdapter` + `RedisDedupStore` + `Transport` from dist/ as built, with the
 * options the Meta node dispatches with by default (`nodeOptions`: the node's own
 * dispatchOptions({}), stage ledger on, read by bench/core.js from dist/), sending synthetic
 * leads (bench/lib/leads.js) to the loopback Meta stand-in with real Redis dedup.
 *
 *   node --expose-gc bench/lib/core-child.js '<json options>'  → last stdout line: JSON result
 *
 * Modes:
 *  - `steady`: dispatches of N fresh leads until the per-run CPU settles (the first runs are
 *    dropped: measure.js steadyRuns), then the measured runs. The last measured run is the
 *    checked one (Redis round trips on the store's connection and Redis' counters, the stand-in's
 *    counters: exactly once); then the same leads again (must send nothing). The first warm-up
 *    run is the cold one (a fresh process, as a fresh `n8n execute`).
 *  - `rss`: peak RSS growth of one dispatch of N, apart from any timed run: a warm-up dispatch,
 *    a full GC, the RSS, the dispatch, `maxRSS` afterwards.
 *  - `fixed`: one lead per dispatch (a webhook's execution), `count` times after `warm` of them:
 *    CPU per dispatch, median and spread.
 *  - `commands`: what one dispatch issues to Redis per batch, at several batch sizes with the same
 *    number of batches each: commands the client sent (counted on the wire by the counting proxy,
 *    bench/lib/redisProxy.js), commands Redis executed (INFO commandstats: the client's and its
 *    scripts'), round trips on the store's connection.
 */
const path = require('node:path');
const { generateLeads, META_EVENT_BY_STATE } = require('./leads.js');
const { startCountingProxy, countsBetween } = require('./redisProxy.js');
const m = require('./measure.js');

const shared = require(path.join(__dirname, '..', '..', 'dist', 'shared', 'index.js'));

/**
 * @typedef {{ mode: 'steady' | 'rss' | 'fixed' | 'commands', n: number, plan?: import('./measure.js').SteadyPlan,
 *   warmupN?: number, count?: number, warm?: number, batchSizes?: number[], batches?: number,
 *   nodeOptions: Record<string, unknown>, redisUrl: string, keyPrefix: string, idPrefix: string,
 *   standInUrl: string, standInControl: string, token: string, pixelId: string }} CoreChildOptions
 */

/** Status counts of a dispatch's results. @param {Array<{ status: string }>} results */
function statusCounts(results) {
	/** @type {Record<string, number>} */
	const counts = {};
	for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
	return counts;
}

/**
 * The dispatch as the Meta node makes it by default, over one Redis connection (`redisUrl`,
 * or the counting proxy in front of it).
 * @param {CoreChildOptions} o @param {string} [redisUrl]
 */
async function setUp(o, redisUrl = o.redisUrl) {
	const client = shared.createRedisClient({ url: redisUrl });
	const admin = shared.createRedisClient({ url: o.redisUrl });
	const store = new shared.RedisDedupStore(client, { description: 'bench' });
	await Promise.all([shared.waitForReady(client, 5000), shared.waitForReady(admin, 5000)]);
	const roundTrips = m.countRoundTrips(/** @type {any} */ (client));
	const transport = new shared.Transport();
	const config = {
		pixelId: o.pixelId,
		accessToken: o.token,
		baseUrl: o.standInUrl,
		actionSource: /** @type {const} */ ('auto'),
		limitedDataUse: /** @type {const} */ ('auto'),
	};
	const nowMs = Date.now();
	/** @param {any[]} leads @param {Record<string, unknown>} [extra] @returns {Promise<any[]>} */
	const send = (leads, extra = {}) =>
		shared.dispatch(
			leads.map((record) => ({ record, eventName: META_EVENT_BY_STATE[record.state] })),
			{ ...o.nodeOptions, adapter: shared.metaAdapter, config, transport, store, keyPrefix: o.keyPrefix, ...extra },
		);
	/** @param {number} n @param {string} tag */
	const leads = (n, tag) => generateLeads(n, { idPrefix: `${o.idPrefix}-${tag}`, nowMs });
	const close = () => {
		client.disconnect();
		admin.disconnect();
	};
	return { admin, roundTrips, standIn: m.standInControl(o.standInControl), send, leads, close };
}

/** @param {CoreChildOptions} o */
async function steady(o) {
	const s = await setUp(o);
	/** @type {any[]} */
	let lastLeads = [];
	/** @type {any} */
	let checked;
	const { warm, runs, settled } = await m.steadyRuns(async ({ index, last }) => {
		const leads = s.leads(o.n, `r${index}`);
		await s.standIn.reset();
		const before = last ? await m.redisCounters(s.admin) : undefined;
		s.roundTrips.count = 0;
		const t = await m.timed(() => s.send(leads));
		if (before) {
			const client = s.roundTrips.count;
			const server = m.redisDelta(before, await m.redisCounters(s.admin));
			const received = await s.standIn.stats();
			const sent = new Set(t.result.filter((r) => r.status === 'sent').map((r) => r.event_id)).size;
			const notSent = t.result.filter((r) => r.status !== 'sent');
			checked = {
				statuses: statusCounts(t.result),
				/** Why items were not sent: the first 3 distinct reasons. */
				problems: [...new Set(notSent.map((r) => `${r.status}: ${String(r.error ?? r.warnings?.[0] ?? '').slice(0, 160)}`))].slice(0, 3),
				sent,
				standIn: received,
				exactlyOnce: received.distinctEventIds === sent && received.events === sent,
				redis: { client, server, ms: t.ms },
			};
			lastLeads = leads;
		}
		return { ms: t.ms, cpuUs: t.cpuUs };
	}, /** @type {import('./measure.js').SteadyPlan} */ (o.plan));
	// The same leads again: exactly-once means nothing reaches the stand-in.
	const received = await s.standIn.stats();
	const before = await m.redisCounters(s.admin);
	s.roundTrips.count = 0;
	const again = await m.timed(() => s.send(lastLeads));
	const rerunClient = s.roundTrips.count;
	const rerunServer = m.redisDelta(before, await m.redisCounters(s.admin));
	const afterRerun = await s.standIn.stats();
	s.close();
	return {
		n: o.n,
		warm,
		runs,
		settled,
		...checked,
		rerun: {
			ms: again.ms,
			cpuUs: again.cpuUs,
			statuses: statusCounts(again.result),
			redis: { client: rerunClient, server: rerunServer, ms: again.ms },
			newRequests: afterRerun.requests - received.requests,
			newEvents: afterRerun.events - received.events,
		},
	};
}

/**
 * Peak RSS growth of one dispatch of N leads, in a process that runs nothing else timed: the
 * input leads are made before the baseline, the results array the dispatch returns is in it.
 * @param {CoreChildOptions} o
 */
async function rss(o) {
	const s = await setUp(o);
	await s.send(s.leads(o.warmupN ?? 5000, 'warm'));
	const leads = s.leads(o.n, 'rss');
	const baselineKb = m.rssBaselineKb();
	const results = await s.send(leads);
	const rssGrowthKb = m.peakRssGrowthKb(baselineKb);
	s.close();
	return { n: o.n, rssGrowthKb, statuses: statusCounts(results) };
}

/** @param {number[]} values @param {number} p 0..1 */
function quantile(values, p) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/**
 * One lead per dispatch, `count` dispatches after `warm` of them (each a different lead, fresh
 * record id): CPU and wall time per dispatch, Redis round trips and HTTP requests per dispatch.
 * @param {CoreChildOptions} o
 */
async function fixed(o) {
	const s = await setUp(o);
	const count = o.count ?? 2000;
	const warm = o.warm ?? 500;
	const leads = s.leads(count + warm, 'one');
	for (let i = 0; i < warm; i++) await s.send([leads[i]]);
	await s.standIn.reset();
	/** @type {number[]} */
	const cpu = [];
	/** @type {number[]} */
	const wall = [];
	/** @type {Record<string, number>} */
	const statuses = {};
	s.roundTrips.count = 0;
	for (let i = warm; i < warm + count; i++) {
		const t = await m.timed(() => s.send([leads[i]]));
		cpu.push(t.cpuUs);
		wall.push(t.ms * 1000);
		const status = t.result[0].status;
		statuses[status] = (statuses[status] ?? 0) + 1;
	}
	const roundTrips = s.roundTrips.count;
	const received = await s.standIn.stats();
	s.close();
	return {
		count,
		warm,
		cpuUs: { median: m.median(cpu), p10: quantile(cpu, 0.1), p90: quantile(cpu, 0.9), mean: cpu.reduce((a, b) => a + b, 0) / count },
		wallUs: { median: m.median(wall), p10: quantile(wall, 0.1), p90: quantile(wall, 0.9) },
		roundTrips,
		requests: received.requests,
		statuses,
	};
}

/**
 * What one dispatch issues to Redis per batch, at each batch size (the same number of batches
 * each, so what a dispatch issues once weighs the same at every size): commands the client sent
 * (the counting proxy), commands Redis executed (INFO commandstats), round trips.
 * @param {CoreChildOptions} o
 */
async function commands(o) {
	const proxy = await startCountingProxy(o.redisUrl);
	const s = await setUp(o, proxy.url);
	const batches = o.batches ?? 20;
	const sizes = [];
	for (const size of o.batchSizes ?? [1, 100, 1000]) {
		const leads = s.leads(size * batches, `b${size}`);
		await s.standIn.reset();
		const client0 = proxy.snapshot();
		const server0 = await m.redisCounters(s.admin);
		s.roundTrips.count = 0;
		const t = await m.timed(() => s.send(leads, { batchSize: size }));
		const roundTrips = s.roundTrips.count;
		const server = m.redisDelta(server0, await m.redisCounters(s.admin));
		const client1 = proxy.snapshot();
		const received = await s.standIn.stats();
		sizes.push({
			batchSize: size,
			leads: leads.length,
			batches: Math.ceil(leads.length / size),
			ms: t.ms,
			client: { commands: client1.commands - client0.commands, byName: countsBetween(client0.byName, client1.byName) },
			server: { commands: server.commands, byName: server.byName },
			roundTrips,
			requests: received.requests,
			statuses: statusCounts(t.result),
		});
	}
	s.close();
	proxy.stop();
	return { sizes };
}

const MODES = { steady, rss, fixed, commands };

/** @param {CoreChildOptions} o */
function main(o) {
	const mode = MODES[o.mode ?? 'steady'];
	if (!mode) throw new Error(`core-child: unknown mode ${o.mode}`);
	return mode(o);
}

main(m.childOptions()).then(m.finish, m.fail);
