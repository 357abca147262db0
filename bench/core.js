// @ts-check
/**
 * The scenarios outside n8n (issues 6 and 20), run by bench/run.js:
 *
 *  a. steady state, 1k / 10k / 100k leads (10k at most with `quick`), ≥ 3 interleaved repeats
 *     (1 with `quick`), each variant in a fresh child process warmed up until its per-run CPU
 *     settles (bench/lib/measure.js steadyRuns):
 *      - ours: `dispatch` + `metaAdapter` + `RedisDedupStore` + `Transport` from dist/, with the
 *        Meta node's default options (its own dispatchOptions({}): stage ledger on), batches of
 *        1,000, 4 in flight (bench/lib/core-child.js); the same leads again (exactly once);
 *      - the official Meta SDK at the same batch size and concurrency (bench/lib/sdk-child.js);
 *      - the two floors (bench/lib/floor-child.js): with I/O, and CPU only;
 *  b. peak RSS growth per event, in runs of their own (core-child `rss`, sdk-child `rss`);
 *  c. the fixed cost of a dispatch: one lead per dispatch, many dispatches (core-child `fixed`);
 *  d. Redis commands per batch at batch sizes 1, 100 and 1,000 (core-child `commands`);
 *  e. the hand-rolled per-event sender, 1k and 10k only (bench/lib/handrolled-child.js);
 *  f. the rule preview over 100k captures (bench/lib/preview-child.js).
 *
 * All against one Meta stand-in (test/standins/meta.js in its own process) and one real Redis
 * (bench/lib/env.js). Every measurement runs in a fresh child process (own peak RSS, own JIT).
 */
const crypto = require('node:crypto');
const path = require('node:path');
const env = require('./lib/env.js');
const { fmt, median } = require('./lib/measure.js');
const { byNameText, commandsPerBatch, constantPerBatch } = require('./lib/redisProxy.js');

const TOKEN = `bench_${crypto.randomBytes(12).toString('hex')}`;
const PIXEL_ID = '1234567890';
const META_BATCH = 1000;
const SDK_CONCURRENCY = 4;

/**
 * @typedef {{ scenario: string, variant: string, n: number, metrics: Record<string, number | string>, details?: unknown }} Row
 * @typedef {{ target: string, value: string, met: boolean | null, gate?: boolean }} Target
 * @typedef {import('./lib/measure.js').SteadyPlan} SteadyPlan
 * @typedef {{ ms: number, cpuUs: number }} Run
 * @typedef {{ warm: Run[], runs: Run[], settled: boolean }} Steady
 */

/**
 * What each mode runs. Warm-up: until two consecutive runs' CPU are within 5 %, between
 * `minWarm` and `maxWarm` runs; then `measured` runs (their median is the child's figure).
 */
const MODES = {
	full: {
		sizes: [1000, 10_000, 100_000],
		repeats: 3,
		/** @type {Record<number, SteadyPlan>} */
		plan: {
			1000: { minWarm: 5, maxWarm: 30, measured: 9 },
			10_000: { minWarm: 3, maxWarm: 10, measured: 5 },
			100_000: { minWarm: 2, maxWarm: 5, measured: 3 },
		},
		rssSizes: [1000, 10_000, 100_000],
		/** Sizes where ours also runs with Keep a Stage Ledger off: what the ledger costs. */
		noLedgerSizes: [10_000],
		fixed: { count: 2000, warm: 500 },
		commandBatches: 20,
		handSizes: [1000, 10_000],
		previewN: 100_000,
	},
	quick: {
		sizes: [1000, 10_000],
		repeats: 1,
		/** @type {Record<number, SteadyPlan>} */
		plan: {
			1000: { minWarm: 3, maxWarm: 8, measured: 3 },
			10_000: { minWarm: 2, maxWarm: 3, measured: 2 },
		},
		/** Peak RSS of ours only (the SDK's is a full run's). */
		rssSizes: [10_000],
		/** @type {number[]} */
		noLedgerSizes: [],
		fixed: { count: 500, warm: 200 },
		commandBatches: 10,
		handSizes: [1000],
		previewN: 20_000,
	},
};
const BATCH_SIZES = [1, 100, 1000];

/** @param {number} n */
const label = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
/** @param {number} n */
const int = (n) => n.toLocaleString('en-US');
/** Ours vs a baseline, as a speed ratio. @param {number} x */
const faster = (x) => (x >= 1 ? `ours ${fmt(x)}× faster` : `ours ${fmt(x)}× its speed (slower)`);

/**
 * A child's steady-state figures: medians of its measured runs, per event.
 * @param {Steady} s @param {number} n
 */
function perEvent(s, n) {
	const ms = median(s.runs.map((r) => r.ms));
	return {
		eventsPerS: (n / ms) * 1000,
		usPerEvent: (ms * 1000) / n,
		cpuUsPerEvent: median(s.runs.map((r) => r.cpuUs)) / n,
		firstCpuUsPerEvent: s.warm[0].cpuUs / n,
		warm: s.warm.length,
		measured: s.runs.length,
		settled: s.settled,
	};
}

/**
 * Median and spread (min–max) of per-repeat values.
 * @param {number[]} values
 */
function spread(values) {
	return { median: median(values), min: Math.min(...values), max: Math.max(...values), count: values.length };
}
/** @param {ReturnType<typeof spread>} s @param {string} [unit] */
const spreadText = (s, unit = '×') =>
	s.count > 1 ? `${fmt(s.median)}${unit} (${fmt(s.min)}–${fmt(s.max)})` : `${fmt(s.median)}${unit}`;

/**
 * @param {{ quick: boolean, log: (line: string) => void, cpuProfileDir?: string }} options
 * @returns {Promise<{ rows: Row[], targets: Target[], info: Record<string, string> }>}
 */
async function run(options) {
	const mode = options.quick ? MODES.quick : MODES.full;
	const runId = `${Date.now().toString(36)}${crypto.randomBytes(3).toString('hex')}`;
	const keyPrefix = `leadcapi-bench:${runId}`;
	options.log('starting a Redis and the Meta stand-in…');
	const redis = await env.startRedis();
	const standIn = await env.startStandIn(TOKEN);
	options.log(`Redis ${redis.version}: ${redis.where}; Meta stand-in ${standIn.url} (own process)`);
	const common = {
		redisUrl: redis.url,
		standInUrl: standIn.url,
		standInControl: standIn.control,
		token: TOKEN,
		pixelId: PIXEL_ID,
		nodeOptions: env.metaNodeDispatchDefaults(),
	};
	/** Runs a child with a key prefix of its own, deleted once it is done (Redis stays small). */
	const child = async (/** @type {string} */ script, /** @type {Record<string, unknown>} */ o, /** @type {string[]} */ nodeArgs = []) => {
		const prefix = `${keyPrefix}:${o.idPrefix}`;
		try {
			return await env.runChild(script, { ...common, ...o, keyPrefix: prefix }, nodeArgs);
		} finally {
			await env.deleteKeys(redis.url, `${prefix}:`);
		}
	};
	try {
		const measured = await measureAll(mode, child, options);
		return {
			rows: coreRows(mode, measured),
			targets: coreTargets(mode, measured, options.quick),
			info: {
				redis_version: redis.version,
				redis: redis.where,
				meta_stand_in: 'test/standins/meta.js on loopback, in its own process',
			},
		};
	} finally {
		standIn.stop();
		try {
			const deleted = await env.deleteKeys(redis.url, keyPrefix);
			options.log(`deleted ${deleted} Redis keys under ${keyPrefix}`);
		} catch (error) {
			options.log(`could not delete the keys under ${keyPrefix}: ${error instanceof Error ? error.message : String(error)}`);
		}
		redis.stop();
	}
}

/**
 * @typedef {(script: string, o: Record<string, unknown>, nodeArgs?: string[]) => Promise<any>} ChildRunner
 * @typedef {Awaited<ReturnType<typeof measureAll>>} Measured
 */

/**
 * Every measurement of this module, in order: the interleaved steady-state repeats, then the
 * runs apart (RSS, fixed cost, Redis commands), the hand-rolled sender and the preview.
 * @param {typeof MODES.full} mode @param {ChildRunner} child
 * @param {{ log: (line: string) => void, cpuProfileDir?: string }} options
 */
async function measureAll(mode, child, options) {
	const repeats = await measureSteady(mode, child, options);
	return { repeats, ...(await measureApart(mode, child, options.log)) };
}

/**
 * The steady-state repeats: for each repeat and size, ours, the SDK and the floors, each in a
 * fresh child, in an order that rotates with the repeat.
 * @param {typeof MODES.full} mode @param {ChildRunner} child
 * @param {{ log: (line: string) => void, cpuProfileDir?: string }} options
 */
async function measureSteady(mode, child, options) {
	const { log } = options;
	/** @type {Array<Map<number, { ours: any, sdk: any, floor: any }>>} */
	const repeats = [];
	for (let rep = 0; rep < mode.repeats; rep++) {
		/** @type {Map<number, { ours: any, sdk: any, floor: any }>} */
		const bySize = new Map();
		for (const n of mode.sizes) {
			const plan = mode.plan[n];
			const tag = `${label(n)}-r${rep}`;
			const profile = options.cpuProfileDir && rep === 0 ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`, `--cpu-prof-name=core-${label(n)}.cpuprofile`] : [];
			/** @type {Record<string, () => Promise<any>>} */
			const variants = {
				ours: () => child('core-child.js', { mode: 'steady', n, plan, idPrefix: `ours-${tag}` }, profile),
				sdk: () => child('sdk-child.js', { n, plan, concurrency: SDK_CONCURRENCY, idPrefix: `sdk-${tag}` }),
				floor: () => child('floor-child.js', { n, plan, idPrefix: `floor-${tag}` }),
				noLedger: () => child('core-child.js', { mode: 'steady', n, plan, idPrefix: `noledger-${tag}`, nodeOptions: withoutLedger() }),
			};
			const names = ['ours', 'sdk', 'floor', ...(mode.noLedgerSizes.includes(n) ? ['noLedger'] : [])];
			// Interleaved, in a different order each repeat, so no variant always runs first.
			const order = names.map((_, i, all) => all[(i + rep) % all.length]);
			/** @type {Record<string, any>} */
			const got = {};
			for (const name of order) {
				log(`repeat ${rep + 1}/${mode.repeats}, ${label(n)} leads: ${name} (warm-up until settled, then ${plan.measured} runs)…`);
				got[name] = await variants[name]();
			}
			if (profile.length > 0) {
				// Every run of the child is in its profile: the warm-up, the measured runs, the re-run.
				const events = (got.ours.warm.length + got.ours.runs.length + 1) * n;
				log(`profile: node bench/lib/profile-summary.js ${path.relative(process.cwd(), path.join(/** @type {string} */ (options.cpuProfileDir), `core-${label(n)}.cpuprofile`))} --events ${events}`);
			}
			bySize.set(n, /** @type {{ ours: any, sdk: any, floor: any }} */ (got));
		}
		repeats.push(bySize);
	}
	return repeats;
}

/** The Meta node's default dispatch options with Keep a Stage Ledger off. */
function withoutLedger() {
	const { ledger: _ledger, ...rest } = env.metaNodeDispatchDefaults();
	return rest;
}

/**
 * The runs apart from the steady-state repeats: peak RSS, the fixed cost of a dispatch, Redis
 * commands per batch, the hand-rolled sender, the rule preview.
 * @param {typeof MODES.full} mode @param {ChildRunner} child @param {(line: string) => void} log
 */
async function measureApart(mode, child, log) {
	/** @type {Map<number, { ours: any, sdk?: any }>} */
	const rss = new Map();
	for (const n of mode.rssSizes) {
		const withSdk = mode === MODES.full;
		log(`peak RSS of one dispatch of ${label(n)} (ours${withSdk ? ', then the SDK' : ''}), in runs of their own…`);
		const ours = await child('core-child.js', { mode: 'rss', n, idPrefix: `rss-ours-${label(n)}` });
		const sdk = withSdk ? await child('sdk-child.js', { mode: 'rss', n, concurrency: SDK_CONCURRENCY, idPrefix: `rss-sdk-${label(n)}` }) : undefined;
		rss.set(n, { ours, sdk });
	}
	log(`fixed cost: ${int(mode.fixed.count)} dispatches of one lead each, after ${mode.fixed.warm}…`);
	const fixed = await child('core-child.js', { mode: 'fixed', n: 1, ...mode.fixed, idPrefix: 'fixed' });
	log(`Redis commands per batch at batch sizes ${BATCH_SIZES.join(', ')} (${mode.commandBatches} batches each)…`);
	const commands = await child('core-child.js', { mode: 'commands', n: 0, batchSizes: BATCH_SIZES, batches: mode.commandBatches, idPrefix: 'commands' });
	/** @type {Map<number, any>} */
	const hand = new Map();
	for (const n of mode.handSizes) {
		log(`hand-rolled per-event sender, ${label(n)} leads…`);
		const reps = mode === MODES.quick ? 1 : n <= 1000 ? 3 : 1;
		hand.set(n, await child('handrolled-child.js', { n, reps, warmupN: 200, idPrefix: `hand-${label(n)}` }));
	}
	log(`rule preview over ${label(mode.previewN)} captures (seeding the capture log first)…`);
	const preview = await child('preview-child.js', { n: mode.previewN, reps: mode === MODES.quick ? 3 : 5, idPrefix: 'preview' });
	return { rss, fixed, commands, hand, preview };
}

/**
 * One size's figures over the repeats: per variant the per-repeat steady-state figures, and the
 * CPU ratios of ours to each baseline, repeat by repeat (median and spread).
 * @param {Measured} measured @param {number} n
 */
function summarize(measured, n) {
	const reps = measured.repeats.map((r) => /** @type {{ ours: any, sdk: any, floor: any, noLedger?: any }} */ (r.get(n)));
	const ours = reps.map((r) => perEvent(r.ours, n));
	const sdk = reps.map((r) => perEvent(r.sdk, n));
	const io = reps.map((r) => perEvent(r.floor.withIo, n));
	const cpu = reps.map((r) => perEvent(r.floor.cpuOnly, n));
	const noLedger = reps.every((r) => r.noLedger) ? reps.map((r) => perEvent(r.noLedger, n)) : undefined;
	/** @param {Array<ReturnType<typeof perEvent>>} base @param {Array<ReturnType<typeof perEvent>>} [of] */
	const cpuRatio = (base, of = ours) => spread(of.map((o, i) => o.cpuUsPerEvent / base[i].cpuUsPerEvent));
	return {
		reps,
		ours,
		sdk,
		io,
		cpu,
		noLedger,
		vsSdk: cpuRatio(sdk),
		vsIo: cpuRatio(io),
		vsCpu: cpuRatio(cpu),
		speedVsSdk: spread(ours.map((o, i) => o.eventsPerS / sdk[i].eventsPerS)),
		/** Ledger on ÷ off; ledger off ÷ the SDK and ÷ the floor with I/O. */
		noLedgerRatios: noLedger && { ledger: cpuRatio(noLedger), vsSdk: cpuRatio(sdk, noLedger), vsIo: cpuRatio(io, noLedger) },
		/** The last repeat's ours child: its checked run and re-run. */
		checked: reps[reps.length - 1].ours,
	};
}

/**
 * Medians over the repeats of a variant's figures, as table metrics.
 * @param {Array<ReturnType<typeof perEvent>>} list
 */
function speedMetrics(list) {
	return {
		events_per_s: median(list.map((x) => x.eventsPerS)),
		us_per_event: median(list.map((x) => x.usPerEvent)),
		cpu_us_per_event: median(list.map((x) => x.cpuUsPerEvent)),
	};
}

/**
 * How the steady-state figure was taken, for the notes.
 * @param {Array<ReturnType<typeof perEvent>>} list
 */
function steadyNote(list) {
	const unsettled = list.filter((x) => !x.settled).length;
	const first = median(list.map((x) => x.firstCpuUsPerEvent / x.cpuUsPerEvent));
	return (
		`${list.length} interleaved repeat${list.length > 1 ? 's' : ''}, each the median of ${list[0].measured} runs after ` +
		`${list.map((x) => x.warm).join('/')} warm-up runs (dropped${unsettled ? `; ${unsettled} not settled within the cap` : ''}; ` +
		`the first run took ${fmt(first)}× the steady CPU)`
	);
}

/**
 * @param {typeof MODES.full} mode @param {Measured} measured
 * @returns {Row[]}
 */
function coreRows(mode, measured) {
	/** @type {Row[]} */
	const rows = [];
	const ten = summarize(measured, 10_000);
	for (const n of mode.sizes) rows.push(...steadyRows(n, summarize(measured, n), measured.rss.get(n)));
	rows.push(fixedRow(measured.fixed, median(ten.ours.map((x) => x.cpuUsPerEvent))));
	for (const size of measured.commands.sizes) {
		const c = commandsPerBatch(size);
		rows.push({
			scenario: 'Redis commands per batch',
			variant: `ours, batches of ${int(size.batchSize)} (the Meta node's defaults: stage ledger on)`,
			n: size.leads,
			metrics: {
				redis_round_trips: size.roundTrips,
				http_requests: size.requests,
				'sent per batch': c.client,
				'in scripts per batch': c.scripts,
				ratio: `${fmt(c.client)} commands sent + ${fmt(c.scripts)} in scripts per batch; ${fmt(c.roundTrips)} round trips`,
				note: `${size.batches} batches; sent per batch: ${byNameText(c.clientByName)}; in scripts per batch: ${byNameText(c.scriptsByName)}; client counted on the wire, scripts = INFO commandstats − client`,
			},
			details: size,
		});
	}
	rows.push(...handRows(measured, mode));
	rows.push(previewRow(measured.preview));
	return rows;
}

/**
 * The rows of one size: ours, the re-run, the two floors, the SDK.
 * @param {number} n @param {ReturnType<typeof summarize>} s @param {{ ours: any, sdk?: any } | undefined} rss
 * @returns {Row[]}
 */
function steadyRows(n, s, rss) {
	const c = s.checked;
	const standInNote = (/** @type {any} */ r) => `${int(r.standIn.distinctEventIds)} distinct ids received`;
	return [
		{
			scenario: 'core dispatch, steady state',
			variant: "ours: dispatch with the Meta node's defaults (stage ledger on), 1,000/request, 4 in flight",
			n,
			metrics: {
				...speedMetrics(s.ours),
				redis_round_trips: c.redis.client,
				http_requests: c.standIn.requests,
				...(rss ? { rss_kb_per_event: rss.ours.rssGrowthKb / n } : {}),
				ratio: `CPU ${spreadText(s.vsIo)} floor with I/O, ${spreadText(s.vsSdk)} SDK, ${spreadText(s.vsCpu)} CPU-only floor`,
				note: `${steadyNote(s.ours)}; sent ${int(c.sent)}${c.sent < n ? ` (${notSentText(c)})` : ''}; exactly once ${c.exactlyOnce ? '✔' : '✘'}; Redis saw ${c.redis.server.eval} EVAL + ${c.redis.server.exec} EXEC (checked run); RSS: a run of its own`,
			},
			details: { repeats: s.reps.map((r) => ({ warm: r.ours.warm, runs: r.ours.runs, settled: r.ours.settled })), checked: { statuses: c.statuses, redis: c.redis, stand_in: c.standIn }, rss: rss?.ours },
		},
		...(s.noLedger && s.noLedgerRatios
			? [
					{
						scenario: 'core dispatch, steady state',
						variant: "ours with Keep a Stage Ledger off (the node's other defaults)",
						n,
						metrics: {
							...speedMetrics(s.noLedger),
							ratio: `ledger on uses ${spreadText(s.noLedgerRatios.ledger)} this CPU; this: ${spreadText(s.noLedgerRatios.vsIo)} floor with I/O, ${spreadText(s.noLedgerRatios.vsSdk)} SDK`,
							note: steadyNote(s.noLedger),
						},
						details: s.reps.map((r) => ({ warm: r.noLedger.warm, runs: r.noLedger.runs })),
					},
				]
			: []),
		{
			scenario: 'core dispatch, steady state',
			variant: 'ours: the same leads again (all already sent)',
			n,
			metrics: {
				events_per_s: (n / c.rerun.ms) * 1000,
				us_per_event: (c.rerun.ms * 1000) / n,
				cpu_us_per_event: c.rerun.cpuUs / n,
				redis_round_trips: c.rerun.redis.client,
				http_requests: c.rerun.newRequests,
				ratio: '—',
				note: `1 run, after the steady runs; ${c.rerun.newEvents} sent, ${int(c.rerun.statuses.duplicate ?? 0)} duplicates; Redis saw ${c.rerun.redis.server.eval} EVAL + ${c.rerun.redis.server.exec} MULTI/EXEC`,
			},
			details: c.rerun,
		},
		{
			scenario: 'core dispatch, steady state',
			variant: 'floor with I/O: + event-id SHA-256, claim & settle scripts, 1 POST per 1,000, 4 in flight',
			n,
			metrics: {
				...speedMetrics(s.io),
				http_requests: s.reps[s.reps.length - 1].floor.withIo.standIn.requests,
				ratio: `ours uses ${spreadText(s.vsIo)} this CPU`,
				note: `${steadyNote(s.io)}; ${standInNote(s.reps[s.reps.length - 1].floor.withIo)}`,
			},
			details: s.reps.map((r) => r.floor.withIo),
		},
		{
			scenario: 'core dispatch, steady state',
			variant: 'floor, CPU only: SHA-256 + phone parse + JSON.stringify, no I/O',
			n,
			metrics: { ...speedMetrics(s.cpu), ratio: `ours uses ${spreadText(s.vsCpu)} this CPU`, note: steadyNote(s.cpu) },
			details: s.reps.map((r) => r.floor.cpuOnly),
		},
		{
			scenario: 'official Meta SDK, steady state',
			variant: `EventRequest of 1,000, ${SDK_CONCURRENCY} in flight (as ours), no dedup`,
			n,
			metrics: {
				...speedMetrics(s.sdk),
				redis_round_trips: 0,
				http_requests: s.reps[s.reps.length - 1].sdk.standIn.requests,
				...(rss?.sdk ? { rss_kb_per_event: rss.sdk.rssGrowthKb / n } : {}),
				ratio: `ours: CPU ${spreadText(s.vsSdk)} this, speed ${spreadText(s.speedVsSdk)}`,
				note: `${steadyNote(s.sdk)}; ${int(s.reps[s.reps.length - 1].sdk.acked)} acknowledged; RSS: a run of its own`,
			},
			details: s.reps.map((r) => ({ warm: r.sdk.warm, runs: r.sdk.runs, stand_in: r.sdk.standIn })),
		},
	];
}

/**
 * What the checked run did not send, and why (the first reasons).
 * @param {{ statuses: Record<string, number>, problems?: string[] }} c
 */
function notSentText(c) {
	const counts = Object.entries(c.statuses).filter(([status]) => status !== 'sent').map(([status, count]) => `${int(count)} ${status}`);
	return [...counts, ...(c.problems ?? [])].join('; ');
}

/**
 * One lead per dispatch: CPU per dispatch, and what is fixed in it (the dispatch minus one event's
 * steady-state CPU).
 * @param {any} f the fixed child's result @param {number} perEventUs steady CPU per event at 10k
 * @returns {Row}
 */
function fixedRow(f, perEventUs) {
	return {
		scenario: 'core dispatch, steady state',
		variant: 'ours: one lead per dispatch (a webhook execution), many dispatches',
		n: f.count,
		metrics: {
			us_per_event: f.wallUs.median,
			cpu_us_per_event: f.cpuUs.median,
			redis_round_trips: f.roundTrips,
			http_requests: f.requests,
			ratio: `fixed ≈ ${fmt(f.cpuUs.median - perEventUs)} µs CPU per dispatch (dispatch − 1 event at 10k)`,
			note: `median of ${int(f.count)} dispatches after ${f.warm} (CPU p10–p90 ${fmt(f.cpuUs.p10)}–${fmt(f.cpuUs.p90)}, mean ${fmt(f.cpuUs.mean)} µs); ${fmt(f.roundTrips / f.count)} Redis round trips and ${fmt(f.requests / f.count)} requests per dispatch; ${Object.entries(f.statuses).map(([k, v]) => `${int(/** @type {number} */ (v))} ${k}`).join(', ')}`,
		},
		details: f,
	};
}

/**
 * The hand-rolled sender's rows (its speed ÷ ours at the same N).
 * @param {Measured} measured @param {typeof MODES.full} mode
 * @returns {Row[]}
 */
function handRows(measured, mode) {
	return mode.handSizes.map((n) => {
		const r = measured.hand.get(n);
		const ms = median(r.runs.map((/** @type {Run} */ x) => x.ms));
		const cpu = median(r.runs.map((/** @type {Run} */ x) => x.cpuUs));
		const ours = median(summarize(measured, n).ours.map((x) => x.eventsPerS));
		return {
			scenario: 'hand-rolled',
			variant: 'per event: GET, SHA-256, 1 POST, SET; one after another',
			n,
			metrics: {
				events_per_s: (n / ms) * 1000,
				us_per_event: (ms * 1000) / n,
				cpu_us_per_event: cpu / n,
				redis_round_trips: r.redisRoundTrips,
				http_requests: r.standIn.requests,
				rss_kb_per_event: r.rssGrowthKb / n,
				ratio: faster(ours / ((n / ms) * 1000)),
				note: `median of ${r.runs.length}; ${int(r.sent)} sent (the rest had no usable email/phone/fbp)`,
			},
			details: { runs: r.runs, rss_growth_kb: r.rssGrowthKb, stand_in: r.standIn },
		};
	});
}

/** @param {any} preview @returns {Row} */
function previewRow(preview) {
	const total = median(preview.runs.map((/** @type {{ totalMs: number }} */ r) => r.totalMs));
	const read = median(preview.runs.map((/** @type {{ readMs: number }} */ r) => r.readMs));
	const evaluate = median(preview.runs.map((/** @type {{ evaluateMs: number }} */ r) => r.evaluateMs));
	return {
		scenario: 'rule preview',
		variant: 'readWindow() + buildPreview(), 3 conditions on every capture',
		n: preview.n,
		metrics: {
			events_per_s: (preview.n / total) * 1000,
			us_per_event: (total * 1000) / preview.n,
			ratio: '—',
			note: `median of ${preview.runs.length}: read ${fmt(read)} ms + evaluate ${fmt(evaluate)} ms = ${fmt(total)} ms; ${int(preview.considered)} considered, ${int(preview.matched)} matched`,
		},
		details: { runs: preview.runs, total_ms: total, read_ms: read, evaluate_ms: evaluate, conditions: preview.conditions, truncated: preview.truncated },
	};
}

/**
 * The targets of issues 6 and 20 judged on this module's figures (`gate`: correctness and
 * constants, failing `--check`; speed is reported).
 * @param {typeof MODES.full} mode @param {Measured} measured @param {boolean} quick
 * @returns {Target[]}
 */
function coreTargets(mode, measured, quick) {
	const sizes = mode.sizes;
	const largest = sizes[sizes.length - 1];
	/** @type {Map<number, ReturnType<typeof summarize>>} */
	const sum = new Map(sizes.map((n) => [n, summarize(measured, n)]));
	const at = (/** @type {number} */ n) => /** @type {ReturnType<typeof summarize>} */ (sum.get(n));
	const perN = (/** @type {(n: number) => string} */ f, /** @type {number[]} */ list = sizes) => list.map((n) => `${label(n)}: ${f(n)}`).join(', ');
	const eventsPerS = (/** @type {number} */ n) => median(at(n).ours.map((x) => x.eventsPerS));
	const repeats = `${mode.repeats} interleaved repeat${mode.repeats > 1 ? 's' : ''}, median (min–max)`;
	const handRatio = (/** @type {number} */ n) => {
		const r = measured.hand.get(n);
		return eventsPerS(n) / ((n / median(r.runs.map((/** @type {Run} */ x) => x.ms))) * 1000);
	};
	const tenCpu = median(at(10_000).ours.map((x) => x.cpuUsPerEvent));
	const fixedUs = measured.fixed.cpuUs.median - tenCpu;
	const rssAt = (/** @type {number} */ n) => /** @type {{ ours: any }} */ (measured.rss.get(n)).ours.rssGrowthKb / n;
	return [
		{
			target: 'Core ≥ 40,000 events/s end to end (steady state)',
			value: `${fmt(eventsPerS(largest))} events/s at ${label(largest)} (${perN((n) => fmt(eventsPerS(n)))})`,
			met: eventsPerS(largest) >= 40_000,
		},
		{
			target: 'Steady-state CPU ≤ 1.3× the floor with I/O',
			value: `${spreadText(at(largest).vsIo)} at ${label(largest)} (${perN((n) => spreadText(at(n).vsIo))}; ${repeats})`,
			met: at(largest).vsIo.median <= 1.3,
		},
		{
			target: 'Per-event CPU ≤ 2× the CPU-only floor',
			value: `${spreadText(at(largest).vsCpu)} at ${label(largest)} (${perN((n) => spreadText(at(n).vsCpu))})`,
			met: at(largest).vsCpu.median <= 2,
		},
		{
			target: `≥ 2× the official SDK at equal batch size (1,000) and concurrency (${SDK_CONCURRENCY})`,
			value: `speed ${perN((n) => spreadText(at(n).speedVsSdk))}; CPU ours ÷ SDK ${perN((n) => spreadText(at(n).vsSdk))} (${repeats})`,
			met: sizes.every((n) => at(n).speedVsSdk.median >= 2),
		},
		{
			target: 'Fixed cost per dispatch ≤ 0.3 ms CPU (one lead per dispatch, steady state)',
			value: `${fmt(fixedUs)} µs: ${fmt(measured.fixed.cpuUs.median)} µs CPU per one-lead dispatch (median of ${int(measured.fixed.count)}) − ${fmt(tenCpu)} µs per event at 10k`,
			met: fixedUs <= 300,
		},
		{
			target: '≥ 50× the hand-rolled per-event sender',
			value: `${perN((n) => `${fmt(handRatio(n))}×`, mode.handSizes)}${quick ? '' : ' (not run at 100k: ~2 min at ~1 ms/event)'}`,
			met: mode.handSizes.every((n) => handRatio(n) >= 50),
		},
		roundTripTarget(sizes, measured),
		commandsTarget(measured.commands.sizes),
		{
			target: 'HTTP requests = ceil(N / 1,000)',
			value: perN((n) => `${at(n).reps.map((r) => `${r.ours.standIn.requests} for ${int(r.ours.sent)} sent${r.ours.standIn.requests === Math.ceil(r.ours.sent / META_BATCH) ? '' : ' ✘'}`).join(', ')}`),
			met: sizes.every((n) => at(n).reps.every((r) => r.ours.standIn.requests === Math.ceil(r.ours.sent / META_BATCH) && r.ours.standIn.requests <= Math.ceil(n / META_BATCH))),
			gate: true,
		},
		{
			target: 'Peak RSS growth ≤ 2 KB/event at 100k',
			value: `${perN((n) => `${fmt(rssAt(n))} KB/event`, mode.rssSizes)} (runs of their own, after a full GC)${quick ? ' (quick run: 100k not measured)' : ''}`,
			met: quick ? null : rssAt(100_000) <= 2,
		},
		previewTarget(measured.preview, quick),
		{
			target: 'Exactly once (checked while benchmarking)',
			value: perN((n) => at(n).reps.map((r) => `${int(r.ours.standIn.distinctEventIds)} distinct ids for ${int(r.ours.sent)} sent, re-run sent ${r.ours.rerun.newEvents}`).join('; ')),
			met: sizes.every((n) => at(n).reps.every((r) => r.ours.exactlyOnce && r.ours.rerun.newRequests === 0 && r.ours.rerun.newEvents === 0)),
			gate: true,
		},
	];
}

/**
 * Round trips per 1,000-event batch, on every checked run and re-run. A claim is a lease its
 * run renews every 10 s, one round trip for all its in-flight keys (shared/dispatch/lease.ts):
 * a dispatch that takes longer than that adds one per 10 s (subtracted).
 * @param {number[]} sizes @param {Measured} measured
 * @returns {Target}
 */
function roundTripTarget(sizes, measured) {
	const renewals = (/** @type {{ ms: number }} */ rt) => Math.floor(rt.ms / 10_000);
	const perBatch = (/** @type {{ client: number, ms: number }} */ rt, /** @type {number} */ n) => (rt.client - renewals(rt)) / Math.ceil(n / META_BATCH);
	const checked = sizes.flatMap((n) => measured.repeats.map((r) => ({ n, c: /** @type {any} */ (r.get(n)).ours })));
	const worst = Math.max(...checked.map(({ n, c }) => Math.max(perBatch(c.redis, n), perBatch(c.rerun.redis, n))));
	const last = (/** @type {number} */ n) => /** @type {any} */ (measured.repeats[measured.repeats.length - 1].get(n)).ours;
	return {
		target: 'Redis round trips ≤ 2 per batch, whatever N (+ 1 lease renewal per 10 s)',
		value: `per batch of 1,000 (stage ledger on): ${sizes.map((n) => `${label(n)}: ${fmt(perBatch(last(n).redis, n))} (re-run ${fmt(perBatch(last(n).rerun.redis, n))})`).join(', ')}; worst of every checked run ${fmt(worst)}`,
		met: worst <= 2,
		gate: true,
	};
}

/**
 * The commands a sender issues per batch are a constant, whatever the batch size (redisProxy.js
 * constantPerBatch); what its scripts run is reported beside.
 * @param {any[]} sizes the commands child's `sizes`
 * @returns {Target}
 */
function commandsTarget(sizes) {
	return { target: 'Redis commands sent per batch are a constant, whatever the batch size (stage ledger on)', ...constantPerBatch(sizes), gate: true };
}

/** @param {any} preview @param {boolean} quick @returns {Target} */
function previewTarget(preview, quick) {
	const total = median(preview.runs.map((/** @type {{ totalMs: number }} */ r) => r.totalMs));
	return {
		target: 'Preview of 100k captures < 1 s',
		value: `${fmt(total)} ms for ${label(preview.n)}${quick ? ' (quick run: not 100k)' : ''}`,
		met: quick ? null : total < 1000,
	};
}

module.exports = { run };
