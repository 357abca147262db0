// @ts-check
/**
 * The two floors (bench/lib/floor.js), in a child process of their own, each measured in steady
 * state (measure.js steadyRuns, fresh leads every run):
 *  - with I/O: event ids, the real claim and settle scripts (dist/ RedisDedupStore) over the
 *    events' dedup keys (dist/ dedupKey) on the same Redis, one POST per batch of 1,000 to the
 *    same stand-in, 4 batches in flight;
 *  - CPU only: hashing, phone parse, JSON.stringify; no I/O.
 * dist/ is loaded for the real claim and settle scripts and dedup keys. The phone parses use
 * libphonenumber-js as it ships, as the core does (it changes nothing in that library); unlike the
 * core, the floors keep no phone results from one lead or run to the next.
 *
 *   node --expose-gc bench/lib/floor-child.js '<json options>'  → last stdout line: JSON result
 */
const http = require('node:http');
const path = require('node:path');
const { generateLeads, META_EVENT_BY_STATE } = require('./leads.js');
const { floorLoop, floorWithIo } = require('./floor.js');
const m = require('./measure.js');

const shared = require(path.join(__dirname, '..', '..', 'dist', 'shared', 'index.js'));

/**
 * @typedef {{ n: number, plan: import('./measure.js').SteadyPlan, redisUrl: string, keyPrefix: string,
 *   idPrefix: string, standInUrl: string, standInControl: string, token: string, pixelId: string }} FloorChildOptions
 */

/** @param {FloorChildOptions} o */
async function main(o) {
	const client = shared.createRedisClient({ url: o.redisUrl });
	await shared.waitForReady(client, 5000);
	const store = new shared.RedisDedupStore(client, { description: 'bench floor' });
	const standIn = m.standInControl(o.standInControl);
	const io = {
		store,
		keyOf: (/** @type {string} */ eventId) => shared.dedupKey(o.keyPrefix, 'meta', o.pixelId, eventId),
		url: `${o.standInUrl}/v26.0/${o.pixelId}/events`,
		token: o.token,
		pixelId: o.pixelId,
		agent: new http.Agent({ keepAlive: true }),
	};
	const nowMs = Date.now();
	const leads = (/** @type {number} */ index) => generateLeads(o.n, { idPrefix: `${o.idPrefix}-r${index}`, nowMs });
	let acked = 0;
	const withIo = await m.steadyRuns(async ({ index, last }) => {
		const set = leads(index);
		await standIn.reset();
		const t = await m.timed(() => floorWithIo(set, META_EVENT_BY_STATE, io));
		if (last) acked = t.result;
		return { ms: t.ms, cpuUs: t.cpuUs };
	}, o.plan);
	const received = await standIn.stats();
	const cpuOnly = await m.steadyRuns(async ({ index }) => {
		const set = leads(index);
		const t = await m.timed(() => floorLoop(set, META_EVENT_BY_STATE));
		return { ms: t.ms, cpuUs: t.cpuUs };
	}, o.plan);
	client.disconnect();
	return { n: o.n, withIo: { ...withIo, acked, standIn: received }, cpuOnly };
}

main(m.childOptions()).then(m.finish, m.fail);
