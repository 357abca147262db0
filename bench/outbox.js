// @ts-check
/**
 * The outbox's batching across executions (issue 15 point 4): 1,000 single-lead "executions"
 * (one dispatch each, as a webhook workflow runs them) to the Meta stand-in (its own process),
 * with Redis dedup — sent now, one request each, vs Deliver → Via Outbox: each execution builds
 * and queues its event (sealed), then one drain sends them all. Counted: requests the stand-in
 * saw and this process's CPU per event (the stand-in's CPU is its own process's). In-process,
 * the same core calls the nodes make (dist/): dispatch, outbox.queueEvent / drainDue /
 * openEntry / settleDrained. Added latency per lead: at most the trigger's poll interval.
 *
 *   node bench/outbox.js    (or as part of npm run bench)
 */
const path = require('node:path');
const env = require('./lib/env.js');

const ROOT = path.join(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shared = require(path.join(ROOT, 'dist/shared'));
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

/** @param {{ quick?: boolean, log?: (m: string) => void }} options */
async function run({ quick = false, log = console.log } = {}) {
	const n = quick ? 200 : 1000;
	const redis = await env.startRedis();
	const standIn = await env.startStandIn(TOKEN);
	const client = shared.createRedisClient({ url: redis.url });
	await shared.waitForReady(client, 10_000);
	const prefix = `leadcapi-bench-outbox:${Date.now().toString(36)}`;
	const store = new shared.RedisDedupStore(client, { description: 'bench' });
	const base = {
		adapter: shared.metaAdapter,
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
	};
	const ob = shared.outbox;
	const box = new ob.OutboxStore(client, prefix);
	const key = ob.outboxKey('bench-outbox-key-0123456789');
	const q = { platform: 'meta', destination: PIXEL };
	try {
		log(`outbox bench: ${n} single-lead executions, now vs via the outbox`);
		let before = await stats(standIn.control);
		let cpu = process.cpuUsage();
		for (const item of leads(n, 'now')) await shared.dispatch([item], base);
		let used = process.cpuUsage(cpu);
		let after = await stats(standIn.control);
		const now = {
			requests: after.requests - before.requests,
			cpu: used.user + used.system,
			sent: after.distinctEventIds - before.distinctEventIds,
		};

		before = after;
		cpu = process.cpuUsage();
		for (const item of leads(n, 'outbox')) {
			const [r] = await shared.dispatch([item], { ...base, dryRun: true, includePayload: true });
			const t = Date.now();
			await ob.queueEvent(
				box,
				key,
				q,
				{
					event_id: r.event_id,
					event_name: r.event_name,
					event_time: r.event_time,
					payload: r.payload,
					attempts: 0,
					deadline: ob.deadlineOf(r.event_time, shared.metaAdapter.eventTimeWindow.seconds),
					queued_at: t,
				},
				{ now: t, dueAt: t },
			);
		}
		const drained = await ob.drainDue(box, key, { now: Date.now(), limit: n });
		const sealed = await box.load(
			q,
			drained.due.map((/** @type {{ event_id: string }} */ d) => d.event_id),
		);
		const entries = drained.due.map(
			(/** @type {{ event_id: string }} */ d, /** @type {number} */ i) => {
				const opened = ob.openEntry(key, q, d.event_id, sealed[i]);
				if (!opened.ok) throw new Error(opened.message);
				return opened.entry;
			},
		);
		const results = await shared.dispatch(
			entries.map((/** @type {any} */ e) => ({
				record: {},
				eventName: e.event_name,
				prebuilt: { eventId: e.event_id, eventTime: e.event_time, payload: e.payload },
			})),
			base,
		);
		for (let i = 0; i < entries.length; i++)
			await ob.settleDrained(box, key, q, entries[i], results[i], { now: Date.now() });
		used = process.cpuUsage(cpu);
		after = await stats(standIn.control);
		const via = {
			requests: after.requests - before.requests,
			cpu: used.user + used.system,
			sent: after.distinctEventIds - before.distinctEventIds,
		};
		const left = await box.pendingCount(q);

		const row = (/** @type {string} */ variant, /** @type {typeof now} */ m) => ({
			scenario: `outbox: ${n} single-lead executions`,
			variant,
			n,
			metrics: {
				http_requests: m.requests,
				cpu_us_per_event: Math.round(m.cpu / n),
				note: `sent ${m.sent} of ${n}${variant.startsWith('via') ? `; left in outbox ${left}` : ''}`,
			},
		});
		return {
			rows: [row('now: one request per execution', now), row('via outbox: queued, one drain', via)],
			targets: [
				{
					target:
						'outbox: via the outbox sends every event with at most one request per 1,000 events',
					value: `${via.requests} requests, ${via.sent}/${n} sent, ${left} left`,
					met: via.sent === n && left === 0 && via.requests <= Math.ceil(n / 1000),
					gate: true,
				},
			],
		};
	} finally {
		client.disconnect();
		standIn.stop();
		redis.stop();
	}
}

module.exports = { run };

if (require.main === module) {
	run()
		.then(({ rows, targets }) => {
			for (const r of rows) console.log(JSON.stringify(r));
			for (const t of targets) console.log(JSON.stringify(t));
		})
		.catch((error) => {
			console.error(error);
			process.exit(1);
		});
}
