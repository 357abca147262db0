// @ts-check
/**
 * The scenarios outside n8n (issue 6), run by bench/run.js:
 *
 *  a. core dispatch (`dispatch` + `metaAdapter` + `RedisDedupStore` + `Transport`, dist/ as
 *     built) for 1k / 10k / 100k leads, the same leads re-sent (exactly-once check), and the
 *     floor of unavoidable work (bench/lib/core-child.js, bench/lib/floor.js);
 *  b. the official Meta SDK at its best, batches of 1,000, one request at a time and 4 at once
 *     (bench/lib/sdk-child.js);
 *  c. the hand-rolled per-event sender, 1k and 10k only (bench/lib/handrolled-child.js);
 *  d. the rule preview over 100k captures (bench/lib/preview-child.js).
 *
 * All against one Meta stand-in (test/standins/meta.js in its own process) and one real Redis
 * (bench/lib/env.js). Every measurement runs in a fresh child process (own peak RSS, own JIT).
 */
const crypto = require('node:crypto');
const env = require('./lib/env.js');
const { median } = require('./lib/measure.js');

const TOKEN = `bench_${crypto.randomBytes(12).toString('hex')}`;
const PIXEL_ID = '1234567890';
const META_BATCH = 1000;

/**
 * @typedef {{ scenario: string, variant: string, n: number, metrics: Record<string, number | string>, details?: unknown }} Row
 * @typedef {{ target: string, value: string, met: boolean | null, gate?: boolean }} Target
 */

/** @param {number} value */
const fmt = (value) =>
	value >= 100 ? Math.round(value).toLocaleString('en-US') : value >= 10 ? value.toFixed(1) : value.toFixed(2);
/** Ours vs a baseline, as a speed ratio. @param {number} x */
const faster = (x) => (x >= 1 ? `ours ${fmt(x)}× faster` : `ours ${fmt(x)}× its speed (slower)`);
/** @param {number} n */
const label = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

/**
 * Wall-time and CPU figures of a child's measured runs (median over runs).
 * @param {{ runs: Array<{ ms: number, cpuUs: number }> }} result @param {number} n
 */
function speed(result, n) {
	const ms = median(result.runs.map((r) => r.ms));
	const cpuUs = median(result.runs.map((r) => r.cpuUs));
	return { eventsPerS: (n / ms) * 1000, usPerEvent: (ms * 1000) / n, cpuUsPerEvent: cpuUs / n, runs: result.runs.length };
}

/**
 * @param {{ quick: boolean, log: (line: string) => void, cpuProfileDir?: string }} options
 * @returns {Promise<{ rows: Row[], targets: Target[], info: Record<string, string> }>}
 */
async function run(options) {
	const { quick, log } = options;
	const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];
	const reps = (/** @type {number} */ n) => (quick ? 1 : n <= 1000 ? 5 : n <= 10_000 ? 3 : 1);
	const handSizes = quick ? [1000] : [1000, 10_000];
	const previewN = quick ? 20_000 : 100_000;
	const runId = `${Date.now().toString(36)}${crypto.randomBytes(3).toString('hex')}`;
	const keyPrefix = `leadcapi-bench:${runId}`;

	log('starting a Redis and the Meta stand-in…');
	const redis = await env.startRedis();
	const standIn = await env.startStandIn(TOKEN);
	log(`Redis ${redis.version}: ${redis.where}; Meta stand-in ${standIn.url} (own process)`);
	const common = {
		redisUrl: redis.url,
		keyPrefix,
		standInUrl: standIn.url,
		standInControl: standIn.control,
		token: TOKEN,
		pixelId: PIXEL_ID,
	};
	/** @type {Row[]} */
	const rows = [];
	/** @type {Target[]} */
	const targets = [];
	try {
		// a. core dispatch + floor
		/** @type {Map<number, any>} */
		const core = new Map();
		for (const n of sizes) {
			log(`core dispatch, ${label(n)} leads (${reps(n)} run${reps(n) > 1 ? 's' : ''} + re-run + floor)…`);
			const nodeArgs = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`, `--cpu-prof-name=core-${label(n)}.cpuprofile`] : [];
			const result = await env.runChild(
				'core-child.js',
				{ ...common, n, reps: reps(n), warmupN: 5000, floorReps: reps(n), idPrefix: `core-${label(n)}` },
				nodeArgs,
			);
			core.set(n, result);
		}
		// b. SDK, one request at a time and 4 at once
		/** @type {Map<number, { seq: any, par: any }>} */
		const sdk = new Map();
		for (const n of sizes) {
			log(`official SDK, ${label(n)} leads, 1 and 4 requests at once…`);
			const base = { ...common, n, reps: reps(n), warmupN: 5000, idPrefix: `sdk-${label(n)}` };
			const seq = await env.runChild('sdk-child.js', { ...base, concurrency: 1 });
			const par = await env.runChild('sdk-child.js', { ...base, concurrency: 4 });
			sdk.set(n, { seq, par });
		}
		// c. hand-rolled
		/** @type {Map<number, any>} */
		const hand = new Map();
		for (const n of handSizes) {
			log(`hand-rolled per-event sender, ${label(n)} leads…`);
			const r = quick ? 1 : n <= 1000 ? 3 : 1;
			hand.set(n, await env.runChild('handrolled-child.js', { ...common, n, reps: r, warmupN: 200, idPrefix: `hand-${label(n)}` }));
		}
		// d. preview
		log(`rule preview over ${label(previewN)} captures (seeding the capture log first)…`);
		const preview = await env.runChild('preview-child.js', {
			n: previewN,
			reps: quick ? 3 : 5,
			redisUrl: redis.url,
			key: `${keyPrefix}:capturelog:bench`,
		});

		// ---- rows
		/** @type {Map<number, ReturnType<typeof speed>>} */
		const ours = new Map();
		/** @type {Map<number, { best: ReturnType<typeof speed>, which: string }>} */
		const sdkBest = new Map();
		/** @type {Map<number, ReturnType<typeof speed>>} */
		const handSpeed = new Map();
		for (const n of sizes) {
			ours.set(n, speed(core.get(n), n));
			const s = /** @type {{ seq: any, par: any }} */ (sdk.get(n));
			const seq = speed(s.seq, n);
			const par = speed(s.par, n);
			sdkBest.set(n, seq.eventsPerS >= par.eventsPerS ? { best: seq, which: '1 at a time' } : { best: par, which: '4 at once' });
		}
		for (const n of handSizes) handSpeed.set(n, speed(hand.get(n), n));

		for (const n of sizes) {
			const c = core.get(n);
			const o = /** @type {ReturnType<typeof speed>} */ (ours.get(n));
			const best = /** @type {{ best: ReturnType<typeof speed>, which: string }} */ (sdkBest.get(n));
			const h = handSpeed.get(n);
			const floor = median(c.floor.map((/** @type {{ cpuUs: number }} */ f) => f.cpuUs)) / n;
			const floorMs = median(c.floor.map((/** @type {{ ms: number }} */ f) => f.ms));
			rows.push({
				scenario: 'core dispatch',
				variant: 'ours: dispatch + Redis dedup, 1,000/request, 4 in flight',
				n,
				metrics: {
					events_per_s: o.eventsPerS,
					us_per_event: o.usPerEvent,
					cpu_us_per_event: o.cpuUsPerEvent,
					redis_round_trips: c.redis.client,
					http_requests: c.standIn.requests,
					rss_kb_per_event: c.rssGrowthKb / n,
					ratio: `speed ${fmt(o.eventsPerS / best.best.eventsPerS)}× SDK${h ? `, ${fmt(o.eventsPerS / h.eventsPerS)}× hand-rolled` : ''}; CPU ${fmt(o.cpuUsPerEvent / floor)}× floor`,
					note: `median of ${o.runs}; sent ${c.sent.toLocaleString('en-US')}; exactly once ${c.exactlyOnce ? '✔' : '✘'}; Redis saw ${c.redis.server.eval} EVAL + ${c.redis.server.exec} EXEC`,
				},
				details: { runs: c.runs, statuses: c.statuses, rss_growth_kb: c.rssGrowthKb, redis: c.redis, stand_in: c.standIn },
			});
			rows.push({
				scenario: 'core dispatch',
				variant: 'ours: the same leads again (all already sent)',
				n,
				metrics: {
					events_per_s: (n / c.rerun.ms) * 1000,
					us_per_event: (c.rerun.ms * 1000) / n,
					cpu_us_per_event: c.rerun.cpuUs / n,
					redis_round_trips: c.rerun.redis.client,
					http_requests: c.rerun.newRequests,
					ratio: '—',
					note: `1 run; ${c.rerun.newEvents} sent, ${(c.rerun.statuses.duplicate ?? 0).toLocaleString('en-US')} duplicates; Redis saw ${c.rerun.redis.server.eval} EVAL + ${c.rerun.redis.server.exec} MULTI/EXEC`,
				},
				details: c.rerun,
			});
			rows.push({
				scenario: 'core dispatch',
				variant: 'floor: SHA-256 + phone parse + JSON.stringify, minimal loop',
				n,
				metrics: {
					events_per_s: (n / floorMs) * 1000,
					us_per_event: (floorMs * 1000) / n,
					cpu_us_per_event: floor,
					ratio: `ours uses ${fmt(o.cpuUsPerEvent / floor)}× this CPU`,
					note: `median of ${c.floor.length}`,
				},
				details: { runs: c.floor },
			});
		}
		for (const n of sizes) {
			const s = /** @type {{ seq: any, par: any }} */ (sdk.get(n));
			const o = /** @type {ReturnType<typeof speed>} */ (ours.get(n));
			for (const [which, r] of /** @type {Array<[string, any]>} */ ([['1 request at a time', s.seq], ['4 requests at once', s.par]])) {
				const sp = speed(r, n);
				rows.push({
					scenario: 'official Meta SDK',
					variant: `EventRequest of 1,000, ${which}, no dedup`,
					n,
					metrics: {
						events_per_s: sp.eventsPerS,
						us_per_event: sp.usPerEvent,
						cpu_us_per_event: sp.cpuUsPerEvent,
						redis_round_trips: 0,
						http_requests: r.standIn.requests,
						rss_kb_per_event: r.rssGrowthKb / n,
						ratio: faster(o.eventsPerS / sp.eventsPerS),
						note: `median of ${sp.runs}; ${r.acked.toLocaleString('en-US')} acknowledged`,
					},
					details: { runs: r.runs, rss_growth_kb: r.rssGrowthKb, stand_in: r.standIn },
				});
			}
		}
		for (const n of handSizes) {
			const r = hand.get(n);
			const sp = /** @type {ReturnType<typeof speed>} */ (handSpeed.get(n));
			const o = /** @type {ReturnType<typeof speed>} */ (ours.get(n));
			rows.push({
				scenario: 'hand-rolled',
				variant: 'per event: GET, SHA-256, 1 POST, SET; one after another',
				n,
				metrics: {
					events_per_s: sp.eventsPerS,
					us_per_event: sp.usPerEvent,
					cpu_us_per_event: sp.cpuUsPerEvent,
					redis_round_trips: r.redisRoundTrips,
					http_requests: r.standIn.requests,
					rss_kb_per_event: r.rssGrowthKb / n,
					ratio: faster(o.eventsPerS / sp.eventsPerS),
					note: `median of ${sp.runs}; ${r.sent.toLocaleString('en-US')} sent (the rest had no usable email/phone/fbp)`,
				},
				details: { runs: r.runs, rss_growth_kb: r.rssGrowthKb, stand_in: r.standIn },
			});
		}
		const previewTotal = median(preview.runs.map((/** @type {{ totalMs: number }} */ r) => r.totalMs));
		const previewRead = median(preview.runs.map((/** @type {{ readMs: number }} */ r) => r.readMs));
		const previewEval = median(preview.runs.map((/** @type {{ evaluateMs: number }} */ r) => r.evaluateMs));
		rows.push({
			scenario: 'rule preview',
			variant: 'readWindow() + buildPreview(), 3 conditions on every capture',
			n: previewN,
			metrics: {
				events_per_s: (previewN / previewTotal) * 1000,
				us_per_event: (previewTotal * 1000) / previewN,
				ratio: '—',
				note: `median of ${preview.runs.length}: read ${fmt(previewRead)} ms + evaluate ${fmt(previewEval)} ms = ${fmt(previewTotal)} ms; ${preview.considered.toLocaleString('en-US')} considered, ${preview.matched.toLocaleString('en-US')} matched`,
			},
			details: { runs: preview.runs, total_ms: previewTotal, read_ms: previewRead, evaluate_ms: previewEval, conditions: preview.conditions, truncated: preview.truncated },
		});

		// ---- targets
		const largest = sizes[sizes.length - 1];
		const perN = (/** @type {(n: number) => string} */ f, /** @type {number[]} */ list = sizes) =>
			list.map((n) => `${label(n)}: ${f(n)}`).join(', ');
		const oursL = /** @type {ReturnType<typeof speed>} */ (ours.get(largest));
		targets.push({
			target: 'Core ≥ 40,000 events/s end to end',
			value: `${fmt(oursL.eventsPerS)} events/s at ${label(largest)} (${perN((n) => fmt(/** @type {any} */ (ours.get(n)).eventsPerS))})`,
			met: oursL.eventsPerS >= 40_000,
		});
		const floorRatio = (/** @type {number} */ n) => {
			const c = core.get(n);
			return /** @type {any} */ (ours.get(n)).cpuUsPerEvent / (median(c.floor.map((/** @type {{ cpuUs: number }} */ f) => f.cpuUs)) / n);
		};
		targets.push({
			target: 'Per-event CPU ≤ 2× the floor',
			value: `${fmt(floorRatio(largest))}× at ${label(largest)} (${perN((n) => `${fmt(floorRatio(n))}×`)})`,
			met: floorRatio(largest) <= 2,
		});
		const sdkRatio = (/** @type {number} */ n) =>
			/** @type {any} */ (ours.get(n)).eventsPerS / /** @type {any} */ (sdkBest.get(n)).best.eventsPerS;
		targets.push({
			target: '≥ 2× the official SDK at equal batch size (1,000)',
			value: `${perN((n) => `${fmt(sdkRatio(n))}× (SDK best: ${/** @type {any} */ (sdkBest.get(n)).which})`)}`,
			met: sizes.every((n) => sdkRatio(n) >= 2),
		});
		const handRatio = (/** @type {number} */ n) =>
			/** @type {any} */ (ours.get(n)).eventsPerS / /** @type {any} */ (handSpeed.get(n)).eventsPerS;
		targets.push({
			target: '≥ 50× the hand-rolled per-event sender',
			value: `${perN((n) => `${fmt(handRatio(n))}×`, handSizes)}${quick ? '' : ' (not run at 100k: ~2 min at ~1 ms/event)'}`,
			met: handSizes.every((n) => handRatio(n) >= 50),
		});
		// A batch is what one platform request carries (1,000 Meta events): the dispatch claims,
		// sends and settles batch by batch, so round trips are counted per 1,000 events.
		// A claim is a lease its run renews every 10 s, one round trip for all its in-flight keys
		// (shared/dispatch/lease.ts): a dispatch that takes longer than that adds one per 10 s.
		const renewals = (/** @type {{ ms: number }} */ measured) => Math.floor(measured.ms / 10_000);
		const perBatch = (/** @type {{ client: number, ms: number }} */ rt, /** @type {number} */ n) =>
			(rt.client - renewals(rt)) / Math.ceil(n / META_BATCH);
		const rtMax = Math.max(
			...sizes.map((n) => Math.max(perBatch(core.get(n).redis, n), perBatch(core.get(n).rerun.redis, n))),
		);
		targets.push({
			target: 'Redis round trips ≤ 2 per batch, whatever N (+ 1 lease renewal per 10 s)',
			value: `per batch of 1,000: ${perN((n) => `${fmt(perBatch(core.get(n).redis, n))} (re-run ${fmt(perBatch(core.get(n).rerun.redis, n))})`)}; in all: ${perN((n) => `${core.get(n).redis.client} (${renewals(core.get(n).redis)} renewals), Redis saw ${core.get(n).redis.server.eval} EVAL + ${core.get(n).redis.server.exec} EXEC`)}`,
			met: rtMax <= 2,
			gate: true,
		});
		const httpOk = (/** @type {number} */ n) => {
			const c = core.get(n);
			return c.standIn.requests === Math.ceil(c.sent / META_BATCH) && c.standIn.requests <= Math.ceil(n / META_BATCH);
		};
		targets.push({
			target: 'HTTP requests = ceil(N / 1,000)',
			value: perN((n) => `${core.get(n).standIn.requests} for ${core.get(n).sent.toLocaleString('en-US')} sent${httpOk(n) ? '' : ' ✘'}`),
			met: sizes.every(httpOk),
			gate: true,
		});
		const rssAt = (/** @type {number} */ n) => core.get(n).rssGrowthKb / n;
		targets.push({
			target: 'Peak RSS growth ≤ 2 KB/event at 100k',
			value: `${perN((n) => `${fmt(rssAt(n))} KB/event`)}${quick ? ' (quick run: 100k not measured)' : ''}`,
			met: quick ? null : rssAt(100_000) <= 2,
		});
		targets.push({
			target: 'Preview of 100k captures < 1 s',
			value: `${fmt(previewTotal)} ms for ${label(previewN)} (read ${fmt(previewRead)} ms + evaluate ${fmt(previewEval)} ms)${quick ? ' (quick run: not 100k)' : ''}`,
			met: quick ? null : previewTotal < 1000,
		});
		const onceOk = sizes.every((n) => core.get(n).exactlyOnce && core.get(n).rerun.newRequests === 0 && core.get(n).rerun.newEvents === 0);
		targets.push({
			target: 'Exactly once (checked while benchmarking)',
			value: perN(
				(n) =>
					`${core.get(n).standIn.distinctEventIds.toLocaleString('en-US')} distinct ids for ${core.get(n).sent.toLocaleString('en-US')} sent, re-run sent ${core.get(n).rerun.newEvents}`,
			),
			met: onceOk,
			gate: true,
		});
	} finally {
		standIn.stop();
		try {
			const deleted = await env.deleteKeys(redis.url, keyPrefix);
			log(`deleted ${deleted} Redis keys under ${keyPrefix}`);
		} catch (error) {
			log(`could not delete the keys under ${keyPrefix}: ${error instanceof Error ? error.message : String(error)}`);
		}
		redis.stop();
	}
	return {
		rows,
		targets,
		info: {
			redis_version: redis.version,
			redis: redis.where,
			meta_stand_in: 'test/standins/meta.js on loopback, in its own process',
		},
	};
}

module.exports = { run };
