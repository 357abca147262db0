// @ts-check
/**
 * Core dispatch, in a child process of its own (so its peak RSS is its own):
 * `dispatch` + `metaAdapter` + `RedisDedupStore` + `Transport` from dist/ as built, sending N
 * synthetic leads (bench/lib/leads.js) to the loopback Meta stand-in with real Redis dedup.
 *
 *   node --expose-gc bench/lib/core-child.js '<json options>'  → last stdout line: JSON result
 *
 * Sequence: warm-up dispatch of other leads (JIT, connections) → stand-in counters reset → GC →
 * measured dispatch #1 (wall, CPU, peak RSS growth, Redis round trips both client- and
 * server-side, stand-in counters: exactly-once check) → the same leads again (must send
 * nothing) → `reps − 1` more measured dispatches of fresh leads (timing only) → the floor
 * (bench/lib/floor.js) over the same leads, `floorReps` times.
 */
const path = require('node:path');
const { generateLeads, META_EVENT_BY_STATE } = require('./leads.js');
const { floorLoop } = require('./floor.js');
const m = require('./measure.js');

const shared = require(path.join(__dirname, '..', '..', 'dist', 'shared', 'index.js'));

/**
 * @typedef {{ n: number, reps: number, warmupN: number, floorReps: number, redisUrl: string,
 *   keyPrefix: string, idPrefix: string, standInUrl: string, standInControl: string,
 *   token: string, pixelId: string }} CoreChildOptions
 */

/** @param {CoreChildOptions} o */
async function main(o) {
	const client = shared.createRedisClient({ url: o.redisUrl });
	const admin = shared.createRedisClient({ url: o.redisUrl });
	const store = new shared.RedisDedupStore(client, { description: 'bench' });
	await Promise.all([shared.waitForReady(client, 5000), shared.waitForReady(admin, 5000)]);
	const roundTrips = m.countRoundTrips(/** @type {any} */ (client));
	const standIn = m.standInControl(o.standInControl);
	const transport = new shared.Transport();
	const config = {
		pixelId: o.pixelId,
		accessToken: o.token,
		baseUrl: o.standInUrl,
		actionSource: /** @type {const} */ ('auto'),
		limitedDataUse: /** @type {const} */ ('auto'),
	};
	const nowMs = Date.now();
	/** @param {any[]} leads */
	const send = (leads) =>
		shared.dispatch(
			leads.map((record) => ({ record, eventName: META_EVENT_BY_STATE[record.state] })),
			{ adapter: shared.metaAdapter, config, transport, store, keyPrefix: o.keyPrefix },
		);

	const warm = generateLeads(o.warmupN, { idPrefix: `${o.idPrefix}-warm`, nowMs });
	const sets = Array.from({ length: o.reps }, (_, r) => generateLeads(o.n, { idPrefix: `${o.idPrefix}-r${r}`, nowMs }));
	await send(warm);
	await standIn.reset();

	// Measured dispatch #1: everything is checked on this one.
	const baselineKb = m.rssBaselineKb();
	const before = await m.redisCounters(admin);
	roundTrips.count = 0;
	const first = await m.timed(() => send(sets[0]));
	const rssGrowthKb = m.peakRssGrowthKb(baselineKb);
	const redisServer = m.redisDelta(before, await m.redisCounters(admin));
	const redisClient = roundTrips.count;
	const received = await standIn.stats();
	/** @type {Record<string, number>} */
	const statuses = {};
	for (const r of first.result) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
	const sentIds = new Set(first.result.filter((/** @type {any} */ r) => r.status === 'sent').map((/** @type {any} */ r) => r.event_id));

	// The same leads again: exactly-once means nothing reaches the stand-in.
	const before2 = await m.redisCounters(admin);
	roundTrips.count = 0;
	const again = await m.timed(() => send(sets[0]));
	const rerunRedisServer = m.redisDelta(before2, await m.redisCounters(admin));
	const rerunRedisClient = roundTrips.count;
	const afterRerun = await standIn.stats();
	/** @type {Record<string, number>} */
	const rerunStatuses = {};
	for (const r of again.result) rerunStatuses[r.status] = (rerunStatuses[r.status] ?? 0) + 1;

	const runs = [{ ms: first.ms, cpuUs: first.cpuUs }];
	for (let r = 1; r < o.reps; r++) {
		const t = await m.timed(() => send(sets[r]));
		runs.push({ ms: t.ms, cpuUs: t.cpuUs });
	}

	// The floor over the same leads (after a warm-up of its own).
	floorLoop(warm, META_EVENT_BY_STATE);
	const floor = [];
	for (let r = 0; r < o.floorReps; r++) {
		const t = await m.timed(() => floorLoop(sets[0], META_EVENT_BY_STATE));
		floor.push({ ms: t.ms, cpuUs: t.cpuUs });
	}

	client.disconnect();
	admin.disconnect();
	return {
		n: o.n,
		runs,
		statuses,
		sent: sentIds.size,
		rssGrowthKb,
		redis: { client: redisClient, server: redisServer, ms: first.ms },
		standIn: received,
		exactlyOnce:
			received.distinctEventIds === sentIds.size && received.events === sentIds.size,
		rerun: {
			ms: again.ms,
			cpuUs: again.cpuUs,
			statuses: rerunStatuses,
			redis: { client: rerunRedisClient, server: rerunRedisServer, ms: again.ms },
			newRequests: afterRerun.requests - received.requests,
			newEvents: afterRerun.events - received.events,
		},
		floor,
	};
}

main(m.childOptions()).then(m.finish, m.fail);
