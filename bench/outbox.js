// @ts-check
/**
 * The outbox (issue 15): 1,000 single-lead "executions" (one dispatch each, as a webhook workflow
 * runs them) to the Meta stand-in (its own process), with Redis dedup — sent now, one request
 * each, vs Deliver → Via Outbox: each execution builds and queues its event (sealed), then one
 * drain sends them all. Counted: requests the stand-in saw, this process's CPU per event (the
 * stand-in's CPU is its own process's), and Redis round trips (client side: writes on the
 * connection; server side: commands Redis processed, scripts' own commands included) of the
 * queueing executions and of the 1,000-event drain. In-process, the functions the nodes call
 * (dist/): dispatch (mode buildForOutbox), the core's outbox run (shared/outbox finishOutbox) and
 * the node's readDrained (nodes/common/outboxes), after outbox.drainDue (the Outbox Trigger's poll). Added latency per lead: at
 * most the trigger's poll interval.
 *
 *   node bench/outbox.js [--quick]    (or as part of npm run bench)
 */
const path = require('node:path');
const env = require('./lib/env.js');
const m = require('./lib/measure.js');

const ROOT = path.join(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shared = require(path.join(ROOT, 'dist/shared'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const outboxes = require(path.join(ROOT, 'dist/nodes/common/outboxes'));
const TOKEN = 'bench-outbox-token-0123456789';
const PIXEL = '800000000000008';
/** The poll interval of the latency phase (ms). */
const LATENCY_POLL_MS = 500;

/** @param {string} url */
async function stats(url) {
	const res = await fetch(`${url}/stats`);
	return /** @type {{ requests: number, distinctEventIds: number, events: number }} */ (
		await res.json()
	);
}

/** @param {number} n @param {string} tag */
const leads = (n, tag) =>
	Array.from({ length: n }, (_, i) => ({
		record: {
			record_id: `${tag}-${i}`,
			state: 'lead',
			occurred_at: new Date(Date.now() - 60_000).toISOString(),
			contact: { email: `bench${i}@example.de`, phone: '030 1234567', country: 'Germany' },
		},
		eventName: 'Lead',
	}));

/** Built events the dispatch hands over, as executeSender keeps them. */
function keeper() {
	/** @type {Map<number, { payload: unknown, facts: unknown }>} */
	const kept = new Map();
	return {
		kept,
		keep: (/** @type {number} */ i, /** @type {unknown} */ payload, /** @type {unknown} */ facts) =>
			kept.set(i, { payload, facts }),
	};
}

/**
 * One webhook execution with Deliver → Via Outbox: built (a dry run) and queued, as the sender
 * does. Returns the event ids it queued.
 * @param {any} ctx @param {any} item
 */
async function queueOne(ctx, item) {
	const { kept, keep } = keeper();
	const runAt = Date.now();
	const results = await shared.dispatch([item], { ...ctx.base, mode: { kind: 'buildForOutbox', onBuilt: keep } });
	await shared.outbox.finishOutbox({
		run: ctx.outbox,
		adapter: ctx.adapter,
		results,
		kept,
		drained: { opened: new Map(), moves: new Map(), gone: new Map() },
		viaOutbox: true,
		store: ctx.store,
		keyPrefix: ctx.prefix,
		runAt,
	});
	return results.map((/** @type {any} */ r) => String(r.event_id));
}

/**
 * One poll of the Outbox Trigger, then the sender it feeds (its outbox steps and dispatch).
 * @param {any} ctx @param {number} limit
 */
async function drainOnce(ctx, limit) {
	const ob = shared.outbox;
	const drained = await ob.drainDue(ctx.box, ctx.outbox.key, { now: Date.now(), limit });
	const items = drained.due.map((/** @type {unknown} */ ref) => ({ json: { outbox: ref } }));
	if (items.length === 0) return [];
	const dispatchItems = items.map(() => ({ record: {}, eventName: '' }));
	const t = Date.now();
	const opened = await outboxes.readDrained(
		ctx.outbox,
		ctx.adapter,
		PIXEL,
		items,
		dispatchItems,
		t,
	);
	const { kept, keep } = keeper();
	const results = await shared.dispatch(dispatchItems, { ...ctx.base, onRetryable: keep });
	await shared.outbox.finishOutbox({
		run: ctx.outbox,
		adapter: ctx.adapter,
		results,
		kept,
		drained: opened,
		viaOutbox: false,
		store: ctx.store,
		keyPrefix: ctx.prefix,
		runAt: t,
	});
	return results;
}

/**
 * Added latency: leads queued one every 20 ms while the trigger polls every `intervalMs` (real
 * time, the same queue and drain code as above). Each event's latency = when its drain finished −
 * when its execution queued it; the target: at most one poll interval plus the longest drain.
 * @param {any} ctx @param {number} n @param {number} intervalMs
 */
async function latencyPhase(ctx, n, intervalMs) {
	/** @type {Map<string, number>} */
	const queuedAt = new Map();
	/** @type {number[]} */
	const latencies = [];
	let longestDrain = 0;
	let queuing = true;
	// Polls on a fixed schedule, as n8n's polling does (a drain that overruns delays the next).
	let nextPoll = Date.now() + intervalMs;
	const drainer = (async () => {
		while (queuing || (await ctx.box.pendingCount(ctx.q)) > 0) {
			await new Promise((r) => setTimeout(r, Math.max(0, nextPoll - Date.now())));
			nextPoll += intervalMs;
			const start = Date.now();
			const results = await drainOnce(ctx, 1000);
			const end = Date.now();
			longestDrain = Math.max(longestDrain, end - start);
			for (const r of results) {
				const at = queuedAt.get(String(r.event_id));
				if (r.status === 'sent' && at !== undefined) latencies.push(end - at);
			}
		}
	})();
	for (const item of leads(n, 'latency')) {
		const ids = await queueOne(ctx, item);
		const at = Date.now();
		for (const id of ids) queuedAt.set(id, at);
		await new Promise((r) => setTimeout(r, 20));
	}
	queuing = false;
	await drainer;
	return { latencies, longestDrain, intervalMs, n };
}

/** @param {{ quick?: boolean, log?: (m: string) => void }} options */
async function run({ quick = false, log = console.log } = {}) {
	const n = quick ? 200 : 1000;
	const redis = await env.startRedis();
	const standIn = await env.startStandIn(TOKEN);
	const client = shared.createRedisClient({ url: redis.url });
	const admin = shared.createRedisClient({ url: redis.url });
	await Promise.all([shared.waitForReady(client, 10_000), shared.waitForReady(admin, 10_000)]);
	const trips = m.countRoundTrips(/** @type {any} */ (client));
	const prefix = `leadcapi-bench-outbox:${Date.now().toString(36)}`;
	const store = new shared.RedisDedupStore(client, { description: 'bench' });
	const adapter = shared.metaAdapter;
	const base = {
		adapter,
		config: {
			pixelId: PIXEL,
			accessToken: TOKEN,
			baseUrl: standIn.url,
			actionSource: 'auto',
			limitedDataUse: 'auto',
		},
		transport: new shared.Transport({}),
		store,
		keyPrefix: prefix,
		ledger: {},
	};
	const ob = shared.outbox;
	const box = new ob.OutboxStore(client, prefix);
	const outbox = { on: true, store: box, key: ob.outboxKey('bench-outbox-key-0123456789') };
	const q = { platform: 'meta', destination: PIXEL };
	const ctx = { base, outbox, box, adapter, store, prefix, q };
	/** Round trips and Redis commands of `work`. @param {() => Promise<void>} work */
	const counted = async (work) => {
		const before = await m.redisCounters(admin);
		trips.count = 0;
		await work();
		const server = m.redisDelta(before, await m.redisCounters(admin));
		return { client: trips.count, server: server.commands };
	};
	try {
		log(`outbox bench: ${n} single-lead executions, now vs via the outbox`);
		let before = await stats(standIn.control);
		let cpu = process.cpuUsage();
		const nowRt = await counted(async () => {
			for (const item of leads(n, 'now')) await shared.dispatch([item], base);
		});
		let used = process.cpuUsage(cpu);
		let after = await stats(standIn.control);
		const now = {
			requests: after.requests - before.requests,
			cpu: used.user + used.system,
			sent: after.distinctEventIds - before.distinctEventIds,
		};

		before = after;
		cpu = process.cpuUsage();
		// Each webhook execution: built (a dry run) and queued, as a sender with Deliver → Via Outbox.
		const queueRt = await counted(async () => {
			for (const item of leads(n, 'outbox')) await queueOne(ctx, item);
		});
		// One poll of the Outbox Trigger, then the sender it feeds: its outbox steps and dispatch.
		/** @type {any[]} */
		let results = [];
		const drainRt = await counted(async () => {
			results = await drainOnce(ctx, n);
		});
		used = process.cpuUsage(cpu);
		after = await stats(standIn.control);
		const via = {
			requests: after.requests - before.requests,
			cpu: used.user + used.system,
			sent: after.distinctEventIds - before.distinctEventIds,
		};
		const left = await box.pendingCount(q);
		const delivered = results.filter((r) => r.status === 'sent').length;
		const lat = await latencyPhase(ctx, quick ? 50 : 200, LATENCY_POLL_MS);
		const maxLatency = Math.max(0, ...lat.latencies);
		const median =
			[...lat.latencies].sort((a, b) => a - b)[Math.floor(lat.latencies.length / 2)] ?? 0;

		/** @param {string} variant @param {typeof now} x @param {string} note */
		const row = (variant, x, note, rt = 0) => ({
			scenario: `outbox: ${n} single-lead executions`,
			variant,
			n,
			metrics: {
				http_requests: x.requests,
				cpu_us_per_event: Math.round(x.cpu / n),
				redis_round_trips: rt,
				note,
			},
		});
		const rtNote = (/** @type {{ client: number, server: number }} */ c) =>
			`${c.client} round trips, ${c.server} Redis commands`;
		return {
			rows: [
				row(
					'now: one request per execution',
					now,
					`sent ${now.sent} of ${n}; ${rtNote(nowRt)}`,
					nowRt.client,
				),
				row(
					'via outbox: queued, one drain',
					via,
					`sent ${via.sent} of ${n}; left in outbox ${left}; queueing ${rtNote(queueRt)}; the drain ${rtNote(drainRt)}`,
					queueRt.client + drainRt.client,
				),
				{
					scenario: `outbox: a ${n}-event drain`,
					variant: 'Outbox Trigger poll → sender (readDrained, dispatch, finishOutbox)',
					n,
					metrics: { redis_round_trips: drainRt.client, note: rtNote(drainRt) },
				},
				{
					scenario: 'outbox: added latency per lead',
					variant: `${lat.n} leads queued one every 20 ms, the trigger polling every ${LATENCY_POLL_MS} ms`,
					n: lat.n,
					metrics: {
						max_latency_ms: maxLatency,
						median_latency_ms: median,
						longest_drain_ms: lat.longestDrain,
						note: `${lat.latencies.length} of ${lat.n} sent; latency = drain finished − queued`,
					},
				},
			],
			targets: [
				{
					target:
						'outbox: via the outbox sends every event with at most one request per 1,000 events',
					value: `${via.requests} requests, ${via.sent}/${n} sent, ${left} left`,
					met:
						via.sent === n && delivered === n && left === 0 && via.requests <= Math.ceil(n / 1000),
					gate: true,
				},
				{
					target: 'outbox: added latency per lead ≤ one poll interval + the longest drain',
					value: `max ${maxLatency} ms, median ${median} ms; poll every ${LATENCY_POLL_MS} ms, longest drain ${lat.longestDrain} ms; ${lat.latencies.length}/${lat.n} sent`,
					met: lat.latencies.length === lat.n && maxLatency <= LATENCY_POLL_MS + lat.longestDrain,
				},
				{
					target:
						'outbox: a drain costs a fixed number of Redis round trips (≤ 20), whatever its size',
					value: `${drainRt.client} round trips for ${n} events (${drainRt.server} commands)`,
					met: drainRt.client <= 20,
					gate: true,
				},
			],
		};
	} finally {
		client.disconnect();
		admin.disconnect();
		standIn.stop();
		redis.stop();
	}
}

module.exports = { run };

if (require.main === module) {
	run({ quick: process.argv.includes('--quick') })
		.then(({ rows, targets }) => {
			for (const r of rows) console.log(JSON.stringify(r));
			for (const t of targets) console.log(JSON.stringify(t));
		})
		.catch((error) => {
			console.error(error);
			process.exit(1);
		});
}
