#!/usr/bin/env node
// @ts-check
/**
 * Summarizes a V8 CPU profile (from `npm run bench -- --cpu-prof`, or any `node --cpu-prof`):
 * self time by function and by file / package, and inclusive time of the functions named with
 * --focus, optionally per event.
 *
 *   node bench/lib/profile-summary.js <file.cpuprofile> [--events <n>] [--top <n>] [--focus a,b,c]
 *     [--within a,b,c]
 *
 * `--events` divides every time by n (µs per event): pass the number of leads the child
 * dispatched (the core child dispatches warm-up + runs + the re-run; see bench/README.md).
 * `--within a,b,c` keeps only the samples from the first one with a frame of `a` to the last one
 * with a frame of any of them (a frame of `x`: of the function named x, or — when x has a / or a
 * dot — of a file whose path contains x): e.g. `--within executeSender,shared/dispatch/` cuts a whole `n8n execute` profile
 * down to the time our sender node ran — from its execute() to the end of its dispatch, its
 * async waits, GC and whatever n8n did in between included (module loading at n8n's start-up,
 * which also runs those files, comes before the first executeSender call).
 */
const fs = require('node:fs');
const path = require('node:path');

const argv = process.argv.slice(2);
const file = argv[0];
/** @param {string} name @param {string} fallback */
const flag = (name, fallback) => {
	const i = argv.indexOf(`--${name}`);
	return i >= 0 ? argv[i + 1] : fallback;
};
if (!file) {
	console.error('usage: profile-summary.js <file.cpuprofile> [--events <n>] [--top <n>] [--focus a,b]');
	process.exit(2);
}
const events = Number(flag('events', '0'));
const top = Number(flag('top', '25'));
const focus = flag(
	'focus',
	'dispatch,normalizeIdentity,renderIdentity,estimateMatchQuality,buildMetaEvent,deriveEventId,resolveEventTime,claimBatch,sendAll,sendMetaChunk,request,settleBatch,normalizePhoneText,normalizeEmailText,hashValue,sha256Hex,floorLoop,generateLeads',
).split(',');

/** @typedef {{ id: number, callFrame: { functionName: string, url: string, lineNumber: number }, hitCount?: number, children?: number[] }} ProfileNode */
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
/** @type {ProfileNode[]} */
const nodes = profile.nodes;
/** @type {Map<number, ProfileNode>} */
const byId = new Map(nodes.map((n) => [n.id, n]));
// Self time per node from the samples and their time deltas (µs).
/** @type {Map<number, number>} */
const parent = new Map();
for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** @type {number[]} */
const samples = profile.samples;
const within = flag('within', '').split(',').filter(Boolean);
let [from, to] = [0, samples.length - 1];
if (within.length) {
	/** @param {string[]} names @returns {(id: number) => boolean} */
	const hasFrame = (names) => (id) => {
		for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parent.get(at)) {
			const frame = /** @type {ProfileNode} */ (byId.get(at)).callFrame;
			if (names.some((w) => (/[/.]/.test(w) ? (frame.url ?? '').includes(w) : frame.functionName === w))) return true;
		}
		return false;
	};
	from = samples.findIndex(hasFrame(within.slice(0, 1)));
	to = samples.length - 1 - [...samples].reverse().findIndex(hasFrame(within));
	if (from < 0) {
		console.error(`no sample has a frame of ${within[0]}`);
		process.exit(1);
	}
}
// Self time per node from the samples and their time deltas (µs).
/** @type {Map<number, number>} */
const self = new Map();
for (let i = from; i <= to; i++) self.set(samples[i], (self.get(samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
const totalUs = [...self.values()].reduce((a, b) => a + b, 0);

const repo = path.resolve(__dirname, '..', '..');
/** @param {string} url */
function where(url) {
	if (!url) return '(native / V8)';
	const p = url.replace(/^file:\/\//, '');
	const nm = p.lastIndexOf('node_modules/');
	if (nm >= 0) {
		const rest = p.slice(nm + 'node_modules/'.length).split('/');
		return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
	}
	if (p.startsWith('node:')) return p;
	return path.relative(repo, p);
}
/** @param {ProfileNode} n */
const fnName = (n) => `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

/** @param {Map<string, number>} map @param {string} key @param {number} us */
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
/** @type {Map<string, number>} */
const selfByFn = new Map();
/** @type {Map<string, number>} */
const selfByFile = new Map();
for (const n of nodes) {
	const us = self.get(n.id) ?? 0;
	if (!us) continue;
	add(selfByFn, fnName(n), us);
	add(selfByFile, where(n.callFrame.url), us);
}

// Inclusive time of focus functions: a node's subtree, counted once per stack (no recursion
// double count).
/** @type {Map<string, number>} */
const inclusive = new Map();
for (const n of nodes) {
	const us = self.get(n.id) ?? 0;
	if (!us) continue;
	const seen = new Set();
	for (let id = /** @type {number | undefined} */ (n.id); id !== undefined; id = parent.get(id)) {
		const name = /** @type {ProfileNode} */ (byId.get(id)).callFrame.functionName;
		if (focus.includes(name) && !seen.has(name)) {
			seen.add(name);
			add(inclusive, name, us);
		}
	}
}

const unit = events > 0 ? 'µs/event' : 'ms';
/** @param {number} us */
const show = (us) => (events > 0 ? (us / events).toFixed(2) : (us / 1000).toFixed(1)).padStart(9);
/** @param {number} us */
const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
/** @param {string} title @param {Map<string, number>} map @param {number} limit */
function print(title, map, limit) {
	console.log(`\n${title} (${unit}, share of all samples)`);
	for (const [key, us] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
		console.log(`${show(us)} ${pct(us)}  ${key}`);
	}
}
console.log(
	`${path.basename(file)}: ${(totalUs / 1000).toFixed(0)} ms sampled${within.length ? ` from the first sample in ${within[0]} to the last in ${within.join(', ')}` : ''}${events > 0 ? `, ${events} events` : ''}`,
);
print('Inclusive time of focus functions', inclusive, focus.length);
print('Self time by file / package', selfByFile, 20);
print('Self time by function', selfByFn, top);
