// @ts-check
/**
 * Rule budgets (shared/rules/budget.ts): the worst accepted rule sets × the capture log's cap.
 *
 * bench/lib/rules-child.js builds rule sets at the limits (as many conditions and regexes as
 * validateRuleSet accepts, the costliest patterns it accepts, the longest lists) with captures
 * made to work them hardest, and times buildPreview — the preview's and the live filter's one
 * code path — over 100,000 captures (also in --quick: the target is about the cap), each rule set
 * in a fresh process. Targets:
 *
 * - every candidate is accepted by validation (otherwise it proves nothing) — gated;
 * - the outcome of every capture is the same on every run (the budget counts work, not time) — gated;
 * - the slowest candidate evaluates 100,000 captures in < 1 s of CPU (median of 3 runs), as the
 *   issue asks — reported; what is gated in --quick --check is the same target as a ratio to a
 *   baseline of the same run (TARGET_RATIO): CPU time on a shared VM varies by ±50% from one
 *   minute to the next, the ratio much less. Wall time is reported beside it.
 *   The preview also reads the log from Redis: the `rule preview` row of core.js measures that.
 */
const env = require('./lib/env.js');
const { median } = require('./lib/measure.js');

const N = 100_000;
const TARGET_MS = 1000;
/**
 * The gate, as a ratio to a baseline of the same run: the worst rule set's CPU time at most this
 * many times V8's regex engine alone on the work one lead's budget admits (rules-child.js
 * engineFloor). < 1 s where the engine takes ≤ 500 ms for it (this 2-core VM, quiet: 418–480 ms).
 */
const TARGET_RATIO = 2;
/** Runs per rule set, in --quick too (median of 5 pairs: with 3, the worst ratio ranged 1.65–2.13× on one build, 2026-12-02). */
const REPS = 5;

/** @param {{ quick: boolean, log: (line: string) => void }} options */
async function run({ quick, log }) {
	log(`rule budgets: the worst accepted rule sets over ${N.toLocaleString('en-US')} captures…`);
	// Each candidate in a fresh process (rules-child.js says why), one after the other.
	const out = await env.runChild('rules-child.js', { n: N, reps: REPS, only: 0 });
	for (let only = 1; only < out.candidates; only++) {
		out.results.push(...(await env.runChild('rules-child.js', { n: N, reps: REPS, only })).results);
	}
	const rows = out.results.map((/** @type {any} */ r) => {
		const cpu = median(r.runs.map((/** @type {any} */ x) => x.cpuMs));
		const wall = median(r.runs.map((/** @type {any} */ x) => x.ms));
		const floor = median(r.runs.map((/** @type {any} */ x) => x.floorCpuMs));
		// Each run is paired with the engine floor measured right after it: the median of the pairs.
		const ratio = median(r.runs.map((/** @type {any} */ x) => x.cpuMs / x.floorCpuMs));
		return {
			scenario: 'rule budget: preview, worst rule sets',
			variant: r.name,
			n: N,
			metrics: {
				us_per_event: (wall * 1000) / N,
				cpu_us_per_event: (cpu * 1000) / N,
				note: `${Math.round(cpu)} ms CPU, ${Math.round(wall)} ms wall; ${ratio.toFixed(2)}× the regex engine alone (${Math.round(floor)} ms); ${r.overBudget.toLocaleString('en-US')} captures over budget`,
			},
			ratio,
			floor,
			details: r,
		};
	});
	const cpuOf = (/** @type {any} */ row) => (row.metrics.cpu_us_per_event * N) / 1000;
	const worst = rows.reduce((/** @type {any} */ a, /** @type {any} */ b) => (cpuOf(b) > cpuOf(a) ? b : a));
	const worstRatio = rows.reduce((/** @type {any} */ a, /** @type {any} */ b) => (b.ratio > a.ratio ? b : a));
	const refused = out.results.filter((/** @type {any} */ r) => !r.accepted);
	const unstable = out.results.filter((/** @type {any} */ r) => !r.sameOutcomeEveryRun);
	const targets = [
		{
			target: 'rule budget: every worst-case rule set is one validation accepts',
			value: refused.length === 0 ? `${out.results.length} of ${out.results.length}` : refused.map((/** @type {any} */ r) => `${r.name}: ${r.problems[0]}`).join('; '),
			met: refused.length === 0,
			gate: true,
		},
		{
			target: 'rule budget: same outcome for every capture on every run',
			value: unstable.length === 0 ? `yes (${REPS} runs)` : unstable.map((/** @type {any} */ r) => r.name).join('; '),
			met: unstable.length === 0,
			gate: true,
		},
		{
			target: `rule budget: worst accepted rule set × ${N.toLocaleString('en-US')} captures ≤ ${TARGET_RATIO}× V8's regex engine alone on the work the budget admits (same run)`,
			value: `${worstRatio.ratio.toFixed(2)}×: ${worstRatio.variant} (${Math.round(cpuOf(worstRatio))} ms CPU vs the engine's ${Math.round(worstRatio.floor)} ms); budget ${out.budget} units per lead`,
			met: worstRatio.ratio <= TARGET_RATIO,
			gate: quick,
		},
		{
			target: `rule budget: worst accepted rule set × ${N.toLocaleString('en-US')} captures < ${TARGET_MS} ms (machine-dependent: reported; the ratio above is gated)`,
			value: `${Math.round(cpuOf(worst))} ms CPU (${Math.round((worst.metrics.us_per_event * N) / 1000)} ms wall): ${worst.variant}; the engine alone: ${Math.round(worst.floor)} ms`,
			met: cpuOf(worst) < TARGET_MS,
			gate: false,
		},
	];
	return { rows, targets };
}

module.exports = { run };
