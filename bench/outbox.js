// @ts-check
/**
 * The outbox (issue 15): 1,000 single-lead "executions" (one dispatch each, as a webhook workflow
 * runs them) to the Meta stand-in (its own process), with Redis dedup — sent now, one request
 * each, vs Deliver → Via Outbox: each execution builds and queues its event (sealed), then one
 * drain sends them all. Counted: requests the stand-in saw, this process's CPU per event (the
 * stand-in's CPU is its own process's), and Redis round trips (client side: writes on the
 * connection; server side: commands Redis processed, scripts' own commands included) of the
 * queueing executions and of the 1,000-event drain. In-process, the functions the nodes call
 * (dist/): dispatch, and the senders' outbox steps of nodes/common/outboxes (readDrained,
 * finishOutbox), after outbox.drainDue (the Outbox Trigger's poll). Added latency per lead: at
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
			for (const item of leads(n, 'outbox')) {
				const { kept, keep } = keeper();
				const runAt = Date.now();
				const results = await shared.dispatch([item], {
					...base,
					dryRun: true,
					onDryRunBuilt: keep,
				});
				await outboxes.finishOutbox({
					run: outbox,
					adapter,
					results,
					kept,
					drained: { opened: new Map(), moves: new Map() },
					viaOutbox: true,
					store,
					keyPrefix: prefix,
					runAt,
				});
			}
		});
		// One poll of the Outbox Trigger, then the sender it feeds: its outbox steps and dispatch.
		/** @type {any[]} */
		let results = [];
		const drainRt = await counted(async () => {
			const drained = await ob.drainDue(box, outbox.key, { now: Date.now(), limit: n });
			const items = drained.due.map((/** @type {unknown} */ ref) => ({ json: { outbox: ref } }));
			const dispatchItems = items.map(() => ({ record: {}, eventName: '' }));
			const t = Date.now();
			const opened = await outboxes.readDrained(outbox, adapter, PIXEL, items, dispatchItems, t);
			const { kept, keep } = keeper();
			results = await shared.dispatch(dispatchItems, { ...base, onRetryable: keep });
			await outboxes.finishOutbox({
				run: outbox,
				adapter,
				results,
				kept,
				drained: opened,
				viaOutbox: false,
				store,
				keyPrefix: prefix,
				runAt: t,
			});
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
				row('now: one request per execution', now, `sent ${now.sent} of ${n}; ${rtNote(nowRt)}`, nowRt.client),
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
			],
			targets: [
				{
					target:
						'outbox: via the outbox sends every event with at most one request per 1,000 events',
					value: `${via.requests} requests, ${via.sent}/${n} sent, ${left} left`,
					met:
						via.sent === n &&
						delivered === n &&
						left === 0 &&
						via.requests <= Math.ceil(n / 1000),
					gate: true,
				},
				{
					target: 'outbox: a drain costs a fixed number of Redis round trips (≤ 20), whatever its size',
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
