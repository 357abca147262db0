// @ts-check
/**
 * Rule budgets under the worst accepted rule sets, in a child process of its own.
 *
 *   node --expose-gc bench/lib/rules-child.js '{"n":100000,"reps":3}'  → last stdout line: JSON
 *   '{"n":100000,"reps":3,"only":2}' measures candidate 2 alone (bench/rules.js runs each in a
 *   fresh process: V8's type feedback from the other candidates' records would otherwise slow
 *   some candidates down by up to 1.7×, depending on the order they ran in).
 *
 * Each candidate is a rule set that validateRuleSet accepts, at the limits of shared/rules/
 * budget.ts, paired with hostile captures built to make it work as hard as it can: values of
 * the maximum examined length, made of what its patterns backtrack on. N captures (records the
 * rules read in full, as they read every field a capture-log entry holds exactly; a few distinct values shared between records, so 100,000 of them
 * fit in memory — every evaluation still does all its work) go through buildPreview, the
 * preview's own code path (decideSend → evaluateRules, the live filter's). Measured after one
 * warm-up: wall and CPU time of buildPreview (median of `reps`), and the outcome counts, which
 * must be the same on every run (the budget is a work count, not a clock).
 */
const path = require('node:path');
const m = require('./measure.js');

const shared = require(path.join(__dirname, '..', '..', 'dist', 'shared', 'index.js'));
const { compileRuleRegex } = require(path.join(__dirname, '..', '..', 'dist', 'shared', 'rules', 'regex.js'));

const MAX = shared.MAX_VALUE_CHARS;
const CONDITIONS = shared.MAX_CONDITIONS;
const REGEXES = shared.MAX_REGEX_CONDITIONS;

/** @param {number} i @param {string} text */
const distinct = (i, text) => `${text.slice(0, text.length - 4)}${String(i).padStart(4, '0')}`;

/**
 * @typedef {{ field: string, match_type: string, pattern?: string }} Condition
 * @typedef {{ name: string, combinator: 'and' | 'or', conditions: Condition[], record: (i: number) => object }} Candidate
 */

/** @returns {Candidate[]} */
function candidates() {
	const as = 'a'.repeat(MAX);
	const fields = Array.from({ length: CONDITIONS }, (_, i) => `attributes.f${i}`);
	/** @param {(i: number) => string} value */
	const attributes = (value) => Object.fromEntries(fields.map((f, i) => [f.split('.')[1], value(i)]));
	const variants = Array.from({ length: 16 }, (_, v) => attributes((i) => distinct(v * 100 + i, as)));
	const shortVariants = Array.from({ length: 16 }, (_, v) => attributes((i) => distinct(v * 100 + i, 'a'.repeat(150))));
	const emails = Array.from({ length: 16 }, (_, v) => ({
		state: 'partial',
		contact: { email_domain: `x${v}.${'sub.'.repeat(50)}example-${v}.com` },
		attributes: shortVariants[v].attributes,
	}));
	const record = (/** @type {object[]} */ pool) => (/** @type {number} */ i) => pool[i % pool.length];
	const sixBranches = Array.from({ length: 16 }, (_, v) => ({
		state: 'partial',
		attributes: attributes((i) => distinct(v * 100 + i, 'abcdef'.repeat(MAX / 6 + 1).slice(0, MAX))),
	}));
	const hostile = variants.map((a) => ({ state: 'partial', attributes: a }));
	const shortHostile = shortVariants.map((a) => ({ state: 'partial', attributes: a }));
	const arrays = Array.from({ length: 16 }, (_, v) => ({
		state: 'partial',
		attributes: { list: Array.from({ length: 1000 }, (_, i) => ({ v: distinct(v * 1000 + i, 'a'.repeat(600)) })) },
	}));
	/** As many list items as the limits allow: MAX_LIST_ITEMS, within MAX_PATTERN_LENGTH. */
	const list = (/** @type {(k: number) => string} */ item) => {
		const items = [];
		for (let k = 0; k < shared.MAX_LIST_ITEMS; k++) {
			if ([...items, item(k)].join(',').length > shared.MAX_PATTERN_LENGTH) break;
			items.push(item(k));
		}
		return items.join(',');
	};
	const many = (/** @type {(i: number) => Condition} */ make, n = CONDITIONS) => Array.from({ length: n }, (_, i) => make(i));
	return [
		{
			name: `${REGEXES} regexes a.*b (n²) + ${CONDITIONS - REGEXES} contains, ${MAX}-char values of a, OR`,
			combinator: 'or',
			conditions: [
				...many((i) => ({ field: fields[i], match_type: 'regex', pattern: `a.*b${i}` }), REGEXES),
				...many((i) => ({ field: fields[REGEXES + i], match_type: 'contains', pattern: `zz${i}` }), CONDITIONS - REGEXES),
			],
			record: record(hostile),
		},
		{
			name: `${REGEXES} anchored ^.*a.*b (n²) + ${CONDITIONS - REGEXES} not_contains, 150-char values, OR`,
			combinator: 'or',
			conditions: [
				...many((i) => ({ field: fields[i], match_type: 'regex', pattern: `^.*a.*b${i}` }), REGEXES),
				...many((i) => ({ field: fields[REGEXES + i], match_type: 'not_contains', pattern: 'a' }), CONDITIONS - REGEXES),
			],
			record: record(shortHostile),
		},
		{
			name: `${REGEXES} linear regexes ^(?:a|b)*c + ${CONDITIONS - REGEXES} ends_with, ${MAX}-char values, OR`,
			combinator: 'or',
			conditions: [
				...many((i) => ({ field: fields[i], match_type: 'regex', pattern: `^(?:a|b)*c${i}` }), REGEXES),
				...many((i) => ({ field: fields[REGEXES + i], match_type: 'ends_with', pattern: `q${i}` }), CONDITIONS - REGEXES),
			],
			record: record(hostile),
		},
		{
			name: `${REGEXES} regexes ^(?:a|b|c|d|e|f)*x (6 branches per step) + ${CONDITIONS - REGEXES} contains, ${MAX}-char values, OR`,
			combinator: 'or',
			conditions: [
				...many((i) => ({ field: fields[i], match_type: 'regex', pattern: `^(?:a|b|c|d|e|f)*x${i}` }), REGEXES),
				...many((i) => ({ field: fields[REGEXES + i], match_type: 'contains', pattern: `zz${i}` }), CONDITIONS - REGEXES),
			],
			record: record(sixBranches),
		},
		{
			name: `${CONDITIONS} in_list / email_domain_in, longest lists allowed, OR`,
			combinator: 'or',
			conditions: many((i) =>
				i % 2 === 0
					? { field: 'contact.email', match_type: 'email_domain_in', pattern: list((k) => `d${i}-${k}.io`) }
					: { field: fields[i], match_type: 'in_list', pattern: list((k) => `v${i}-${k}`) },
			),
			record: record(emails),
		},
		{
			name: `${CONDITIONS} contains on a field expanded to 1,000 array elements of 600 chars, OR`,
			combinator: 'or',
			conditions: many((i) => ({ field: 'attributes.list.v', match_type: 'contains', pattern: `zz${i}` })),
			record: record(arrays),
		},
		{
			name: `${REGEXES} regexes with 5 choices ^(?:a?){5}a{5}.*x, 150-char values, OR`,
			combinator: 'or',
			conditions: many((i) => ({ field: fields[i], match_type: 'regex', pattern: `^(?:a?){5}a{5}.*x${i}` }), REGEXES),
			record: record(shortHostile),
		},
	];
}

/** @param {Candidate} c @param {number} n */
function entries(c, n) {
	const now = Date.now();
	return Array.from({ length: n }, (_, i) => ({ id: `${now - i}-0`, at: now - i * 1000, record: c.record(i) }));
}

/**
 * The same-run baseline of the gate: V8's regex engine alone doing, for each of `n` leads, the
 * work one lead's budget admits for the linear candidate — `^(?:a|b)*c` (the rule regex flags,
 * iu) tested on its input limit of 'a's — with no rules code around it. Measured right after
 * each candidate run, so the machine's load of the moment weighs on both.
 * @param {number} n
 */
function engineFloor(n) {
	const guarded = compileRuleRegex('^(?:a|b)*c');
	const regex = /** @type {RegExp} */ (guarded.regex);
	const texts = Array.from({ length: 16 }, (_, v) => distinct(v, 'a'.repeat(guarded.inputLimit)));
	return () => {
		let matched = 0;
		for (let i = 0; i < n; i++) if (regex.test(texts[i % 16])) matched += 1;
		return matched;
	};
}

/** @param {{ n: number, reps: number, only?: number }} o */
async function main(o) {
	const results = [];
	const all = candidates();
	for (const c of o.only === undefined ? all : [all[o.only]]) {
		const policy = { mode: 'automatic_match', rulesApplyTo: 'all', rules: { combinator: c.combinator, conditions: c.conditions } };
		const problems = shared.validateSendPolicy(policy);
		const list = entries(c, o.n);
		const once = () => m.timed(() => shared.buildPreview(policy, list));
		const engine = engineFloor(o.n);
		await once();
		await m.timed(engine);
		const runs = [];
		/** @type {any} */
		let report;
		const outcomes = new Set();
		for (let r = 0; r < o.reps; r++) {
			global.gc?.();
			const run = await once();
			global.gc?.();
			const floor = await m.timed(engine);
			report = run.result;
			outcomes.add(JSON.stringify(report.conditions));
			runs.push({ ms: run.ms, cpuMs: run.cpuUs / 1000, floorCpuMs: floor.cpuUs / 1000 });
		}
		results.push({
			name: c.name,
			accepted: problems.length === 0,
			problems: problems.slice(0, 2),
			conditions: c.conditions.length,
			runs,
			considered: report.considered,
			matched: report.matched,
			overBudget: Math.max(0, ...report.conditions.map((/** @type {any} */ x) => x.over_budget)),
			sameOutcomeEveryRun: outcomes.size === 1,
		});
	}
	return { n: o.n, budget: shared.LEAD_BUDGET_UNITS, candidates: all.length, results };
}

main(m.childOptions()).then(m.finish, m.fail);
