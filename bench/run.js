#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench` (builds first, then runs this): every scenario module of bench/, one table,
 * the targets, and the figures as JSON in bench/results/ (latest.json + a timestamped copy).
 *
 *   node bench/run.js [--quick] [--skip-n8n] [--check] [--cpu-prof] [--baseline <git ref> | none]
 *
 *   --quick      smaller N, one repeat (a smoke run)
 *   --skip-n8n   leave out bench/n8n.js (real n8n)
 *   --check      exit non-zero when a correctness target fails (exactly once, Redis round
 *                trips, Redis commands per batch, request counts: `gate: true`); speed targets
 *                are reported, never gated
 *                (they depend on the machine) — except the rule budget's worst case in `--quick`,
 *                as a ratio to V8's regex engine alone on the same work, measured in the same run
 *                (bench/rules.js, issue 12). CI runs `--quick --check`.
 *   --cpu-prof   also write V8 CPU profiles of the core dispatch children and of one extra
 *                `n8n execute` of our Meta node to bench/results/profiles-<timestamp>/
 *                (summarize with `node bench/lib/profile-summary.js <file.cpuprofile>`)
 *   --baseline   full runs measure a baseline build of this package side by side with ours in
 *                the same n8n (bench/n8n/baseline.js: default the last main before n8n's request
 *                helper; `none` to skip; needs the git history, not a shallow clone)
 *
 * A scenario module exports `run({ quick, log })` → `{ rows, targets, info? }`: rows are
 * `{ scenario, variant, n, metrics }`, targets `{ target, value, met: true | false | null }`
 * (null = not measurable here, `value` says why), `info` adds facts to the header (e.g.
 * `n8n_version`, `redis_version`). Metrics the table knows by name: events_per_s,
 * us_per_event, cpu_us_per_event, redis_round_trips, http_requests, rss_kb_per_event, ratio,
 * note (plus the aliases in ALIASES); any other metric is shown as `name=value` in the notes
 * column. The JSON keeps every row as the module returned it.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { machine } = require('./lib/env.js');

const args = new Set(process.argv.slice(2));
const { baselineRef } = require('./n8n/baseline.js');
const quick = args.has('--quick');
const skipN8n = args.has('--skip-n8n');
const cpuProf = args.has('--cpu-prof');
const check = args.has('--check');
const RESULTS = path.join(__dirname, 'results');

/** Scenario modules, in the order they run. */
const MODULES = [
	{ name: 'core', file: path.join(__dirname, 'core.js') },
	{ name: 'google', file: path.join(__dirname, 'google.js') },
	{ name: 'rules', file: path.join(__dirname, 'rules.js') },
	{ name: 'outbox', file: path.join(__dirname, 'outbox.js') },
	{ name: 'n8n', file: path.join(__dirname, 'n8n.js') },
	{ name: 'captureFlood', file: path.join(__dirname, 'captureFlood.js') },
];

/**
 * @typedef {{ scenario: string, variant: string, n: number, metrics: Record<string, number | string> }} Row
 * @typedef {{ target: string, value: string, met: boolean | null, gate?: boolean }} Target
 */

/** Known metrics: column title and how to print the number. */
const COLUMNS = /** @type {const} */ ([
	['events_per_s', 'events/s', 0],
	['us_per_event', 'µs/event', 1],
	['cpu_us_per_event', 'CPU µs/event', 1],
	['redis_round_trips', 'Redis RT', 0],
	['http_requests', 'HTTP req', 0],
	['rss_kb_per_event', 'RSS KB/event', 2],
]);
const KNOWN = new Set([...COLUMNS.map(([key]) => key), 'ratio', 'note']);
/**
 * Other spellings of the known metrics (e.g. per item in n8n), shown in the same columns.
 * A metric named `×<baseline>` (e.g. `×NoOp floor`) goes to the ratio column.
 */
const ALIASES = /** @type {Record<string, string>} */ ({
	'µs/item': 'us_per_event',
	'CPU µs/item': 'cpu_us_per_event',
	'HTTP requests': 'http_requests',
	'Redis round trips': 'redis_round_trips',
	how: 'note',
});

/**
 * The metrics under the table's names; the JSON keeps them as the module gave them.
 * @param {Record<string, number | string>} metrics
 */
function canonical(metrics) {
	/** @type {Record<string, number | string>} */
	const out = {};
	for (const [key, value] of Object.entries(metrics ?? {})) {
		const name = ALIASES[key] ?? key;
		if (key.startsWith('×') && out.ratio === undefined) out.ratio = `${cell(value, 1)}× ${key.slice(1)}`;
		else if (out[name] === undefined) out[name] = value;
		else out[key] = value;
	}
	return out;
}

/** @param {number | string | undefined} value @param {number} digits */
function cell(value, digits) {
	if (value === undefined || value === null) return '';
	if (typeof value !== 'number') return String(value);
	if (!Number.isFinite(value)) return String(value);
	return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** @param {number} n */
function count(n) {
	return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

/**
 * The one table: scenario, variant, N, the known metrics, ratio vs baseline, notes.
 * @param {Row[]} rows
 */
function table(rows) {
	const header = ['scenario', 'variant', 'N', ...COLUMNS.map(([, title]) => title), 'ratio vs baseline', 'notes'];
	const body = rows.map((row) => {
		const m = canonical(row.metrics);
		const notes = [
			m.note,
			...Object.entries(m)
				.filter(([key]) => !KNOWN.has(key) && !key.startsWith('×'))
				.map(([key, value]) => `${key}=${typeof value === 'number' ? cell(value, Number.isInteger(value) ? 0 : 1) : value}`),
		]
			.filter(Boolean)
			.join('; ');
		return [row.scenario, row.variant, count(row.n), ...COLUMNS.map(([key, , digits]) => cell(m[key], digits)), cell(m.ratio, 0), notes];
	});
	const numeric = new Set([2, 3, 4, 5, 6, 7, 8]);
	const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
	const line = (/** @type {string[]} */ r) =>
		r.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' │ ').trimEnd();
	return [line(header), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...body.map(line)].join('\n');
}

/** @param {Target[]} targets */
function targetList(targets) {
	const width = Math.max(6, ...targets.map((t) => t.target.length));
	const mark = (/** @type {boolean | null} */ met) => (met === true ? '✔' : met === false ? '✘' : 'n.a.');
	return [
		`${'target'.padEnd(width)} │ met  │ measured`,
		`${'─'.repeat(width)}─┼──────┼─${'─'.repeat(40)}`,
		...targets.map((t) => `${t.target.padEnd(width)} │ ${mark(t.met).padEnd(4)} │ ${t.value}`),
	].join('\n');
}

async function main() {
	const startedAt = new Date();
	const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
	const profileDir = cpuProf ? path.join(RESULTS, `profiles-${stamp}`) : undefined;
	const facts = { ...machine(), load_average_at_start: os.loadavg().map((l) => Number(l.toFixed(2))) };
	/** @type {Record<string, string>} */
	const info = {};
	/** @type {Row[]} */
	const rows = [];
	/** @type {Target[]} */
	const targets = [];
	/** @type {Record<string, { ran: boolean, seconds?: number, error?: string, skipped?: string }>} */
	const modules = {};
	/** @type {string[]} */
	const logged = [];

	for (const mod of MODULES) {
		if (!fs.existsSync(mod.file)) {
			modules[mod.name] = { ran: false, skipped: 'no such file' };
			continue;
		}
		if (mod.name === 'n8n' && skipN8n) {
			modules[mod.name] = { ran: false, skipped: '--skip-n8n' };
			continue;
		}
		const log = (/** @type {string} */ line) => {
			logged.push(line);
			process.stderr.write(`${line.startsWith(`[${mod.name}]`) ? '' : `[${mod.name}] `}${line}\n`);
		};
		const t0 = Date.now();
		try {
			const result = await require(mod.file).run({ quick, log, cpuProfileDir: profileDir, baseline: baselineRef(process.argv.slice(2)) });
			rows.push(...(result.rows ?? []));
			targets.push(...(result.targets ?? []));
			Object.assign(info, result.info ?? {});
			// The n8n version, when the module does not report it, from its log ("… n8n 1.123.81 …").
			if (mod.name === 'n8n' && !info.n8n_version && !info.n8nVersion) {
				const version = logged.map((l) => /\bn8n (\d+\.\d+\.\d+)/.exec(l)?.[1]).find(Boolean);
				if (version) info.n8n_version = version;
			}
			modules[mod.name] = { ran: true, seconds: (Date.now() - t0) / 1000 };
		} catch (error) {
			const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
			log(`FAILED: ${message}`);
			modules[mod.name] = { ran: true, seconds: (Date.now() - t0) / 1000, error: message.split('\n')[0] };
		}
	}

	const finishedAt = new Date();
	const ran = Object.entries(modules)
		.map(([name, m]) => `${name}: ${m.skipped ? `skipped (${m.skipped})` : m.error ? `FAILED (${m.error})` : `${m.seconds?.toFixed(0)} s`}`)
		.join(', ');
	const n8nVersion = info.n8n_version ?? info.n8nVersion;
	const header = [
		`n8n-nodes-lead-capi benchmark — ${finishedAt.toISOString()} — ${quick ? 'quick run (smaller N)' : 'full run'}`,
		`Machine: ${facts.cpu}, ${facts.cores} cores, ${facts.memory_gb} GB; ${facts.os}; Node ${facts.node}; load average at start ${facts.load_average_at_start.join(' ')}`,
		`Redis ${info.redis_version ?? '?'}${info.redis ? ` (${info.redis})` : ''}${n8nVersion ? `; n8n ${n8nVersion}` : ''}; modules: ${ran}`,
		`The measured process, the Meta stand-in, Redis${modules.n8n?.ran ? ' and n8n' : ''} share these ${facts.cores} cores; everything is on loopback (no network latency).`,
		'Times are medians of the runs noted; CPU = the measured process only (user + system). Ratios come from this run.',
	].join('\n');
	const output = [header, '', table(rows), '', 'Targets', targetList(targets)].join('\n');
	process.stdout.write(`\n${output}\n`);

	fs.mkdirSync(RESULTS, { recursive: true });
	const json = {
		started_at: startedAt.toISOString(),
		finished_at: finishedAt.toISOString(),
		mode: quick ? 'quick' : 'full',
		arguments: process.argv.slice(2),
		machine: { ...facts, ...info },
		modules,
		rows,
		targets,
		...(profileDir ? { cpu_profiles: path.relative(path.join(__dirname, '..'), profileDir) } : {}),
	};
	const text = `${JSON.stringify(json, null, 2)}\n`;
	const stamped = path.join(RESULTS, `${stamp}${quick ? '-quick' : ''}.json`);
	fs.writeFileSync(stamped, text);
	fs.writeFileSync(path.join(RESULTS, 'latest.json'), text);
	process.stdout.write(`\nFigures: ${path.relative(process.cwd(), stamped)} (and bench/results/latest.json)\n`);
	if (Object.values(modules).some((m) => m.error)) process.exitCode = 1;
	const broken = targets.filter((t) => t.gate && t.met === false);
	if (check && broken.length > 0) {
		process.stdout.write(`\nCorrectness targets not met: ${broken.map((t) => t.target).join('; ')}\n`);
		process.exitCode = 1;
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
