/**
 * The rule preview: what a send policy would have done with the last days of captures. It runs
 * decideSend — the live filter's own code path — on every capture-log entry in the window. Where
 * an entry cannot tell the live answer (a field it needs was reduced or is not kept: redacted.ts),
 * decideSend says so (`undetermined`) and the capture is counted in `cannot_answer` with the
 * reason — never as a match or a miss.
 */
import { LEAD_BUDGET_UNITS } from './budget';
import { decideSend } from './send-policy';
import type {
	PreviewConditionCount,
	PreviewEntry,
	PreviewExample,
	PreviewOptions,
	PreviewReport,
	SendPolicy,
} from './types';

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_DAYS = 7;
const DEFAULT_EXAMPLES = 3;

/**
 * Counts and examples for `policy` over the entries captured in the last `windowDays` (an entry
 * exactly `windowDays` old is inside; entries with a future time, from a skewed clock, are
 * inside too). Older entries are ignored and not counted. Entries are evaluated newest first,
 * so the examples are the newest matches and misses.
 */
export function buildPreview(
	policy: SendPolicy,
	entries: PreviewEntry[],
	options: PreviewOptions = {},
): PreviewReport {
	const windowDays = positiveOr(options.windowDays, DEFAULT_WINDOW_DAYS);
	const exampleLimit = Math.floor(nonNegativeOr(options.examples, DEFAULT_EXAMPLES));
	const now = options.now ?? Date.now();
	const cutoff = now - windowDays * DAY_MS;
	const inWindow = newestFirst(entries.filter((e) => Number.isFinite(e.at) && e.at >= cutoff));

	const ruleConditions =
		policy?.mode === 'automatic_match' && Array.isArray(policy.rules?.conditions)
			? policy.rules.conditions
			: [];
	const conditions: PreviewConditionCount[] = ruleConditions.map((condition, index) => ({
		index,
		field: condition?.field,
		match_type: condition?.match_type,
		...(condition?.pattern !== undefined ? { pattern: condition.pattern } : {}),
		passed: 0,
		failed: 0,
		not_evaluable: 0,
		over_budget: 0,
	}));
	const matches: PreviewExample[] = [];
	const misses: PreviewExample[] = [];
	const unanswered: PreviewExample[] = [];
	const cannotAnswerReasons: Record<string, number> = {};
	let matched = 0;
	let cannotAnswer = 0;
	let evaluated = 0;
	let entriesNotEvaluable = 0;
	let entriesOverBudget = 0;

	for (const entry of inWindow) {
		const decision = decideSend(policy, entry.record);
		if (decision.undetermined) {
			cannotAnswer += 1;
			cannotAnswerReasons[decision.undetermined] = (cannotAnswerReasons[decision.undetermined] ?? 0) + 1;
		} else if (decision.send) matched += 1;
		const examples = decision.undetermined ? unanswered : decision.send ? matches : misses;
		if (examples.length < exampleLimit) {
			examples.push({
				id: entry.id,
				at: new Date(entry.at).toISOString(),
				reason: decision.undetermined ? `cannot answer: ${decision.undetermined}` : decision.reason,
				record: entry.record,
			});
		}
		const results = decision.evaluation?.results;
		if (!results) continue;
		evaluated += 1;
		if (decision.evaluation?.overBudget) entriesOverBudget += 1;
		let anyNotEvaluable = false;
		for (const result of results) {
			const count = conditions[result.index];
			if (result.overBudget) count.over_budget += 1;
			if (!result.evaluable) {
				count.not_evaluable += 1;
				const why = result.unanswerable ?? 'not evaluable';
				count.not_evaluable_reasons ??= {};
				count.not_evaluable_reasons[why] = (count.not_evaluable_reasons[why] ?? 0) + 1;
				anyNotEvaluable = true;
			} else if (result.passed) count.passed += 1;
			else count.failed += 1;
		}
		if (anyNotEvaluable) entriesNotEvaluable += 1;
	}

	const considered = inWindow.length;
	const days = `${windowDays} ${windowDays === 1 ? 'day' : 'days'}`;
	const report: PreviewReport = {
		window_days: windowDays,
		considered,
		matched,
		cannot_answer: cannotAnswer,
		cannot_answer_reasons: cannotAnswerReasons,
		summary:
			`would have matched ${matched} of ${considered} capture-ready leads in the last ${days}` +
			(cannotAnswer > 0
				? `; for ${cannotAnswer} of them the capture log cannot tell (cannot_answer_reasons), so they are not in either count`
				: ''),
		rules_evaluated: evaluated,
		conditions,
		examples: { matches, misses, cannot_answer: unanswered },
		truncated: options.truncated === true,
	};
	if (entriesNotEvaluable > 0) {
		report.not_evaluable_note = notEvaluableNote(conditions, entriesNotEvaluable, evaluated);
	}
	if (entriesOverBudget > 0) {
		report.over_budget_note = overBudgetNote(conditions, entriesOverBudget, evaluated);
	}
	return report;
}

function overBudgetNote(
	conditions: PreviewConditionCount[],
	entries: number,
	evaluated: number,
): string {
	const first = conditions.find((c) => c.over_budget > 0);
	return (
		`${entries} of ${evaluated} captures ran out of the rule budget of ${LEAD_BUDGET_UNITS.toLocaleString('en-US')} units per lead` +
		`${first ? ` (from condition ${first.index + 1} on)` : ''}: the conditions after that point count as failed, as they do in the live filter. ` +
		'Long values or costly regexes use the budget up: put cheap conditions first, anchor regexes with ^, or test shorter fields.'
	);
}

function notEvaluableNote(
	conditions: PreviewConditionCount[],
	entries: number,
	evaluated: number,
): string {
	const affected = conditions.filter((c) => c.not_evaluable > 0);
	const which = affected.map((c) => `${c.index + 1} (${c.field} ${c.match_type})`).join(', ');
	return (
		`${entries} of ${evaluated} captures could not be checked against condition${affected.length > 1 ? 's' : ''} ${which} ` +
		'(why: not_evaluable_reasons of each condition): the capture log keeps no personal data and only reduced forms ' +
		'of some fields (a scrubbed page URL, locations as configured), so it cannot give the live answer there. ' +
		'Where the other conditions decide, the capture is still counted; where they do not, it is counted in cannot_answer, ' +
		'never as a match or a miss. Live leads carry these fields and are checked in full. To preview on contact fields, use ' +
		'email_domain_in or is_work_email on contact.email, or exists / not_exists on contact.phone.'
	);
}

/** The entries sorted newest first (stream ids break ties); already sorted input is kept. */
function newestFirst(entries: PreviewEntry[]): PreviewEntry[] {
	let sorted = true;
	for (let i = 1; i < entries.length && sorted; i++)
		sorted = compareNewestFirst(entries[i - 1], entries[i]) <= 0;
	return sorted ? entries : [...entries].sort(compareNewestFirst);
}

function compareNewestFirst(a: PreviewEntry, b: PreviewEntry): number {
	return b.at - a.at || compareStreamIds(b.id, a.id);
}

/** Redis stream ids `ms-seq` compared numerically; other ids as text. */
function compareStreamIds(a: string, b: string): number {
	const [aMs, aSeq] = String(a).split('-').map(Number);
	const [bMs, bSeq] = String(b).split('-').map(Number);
	if ([aMs, aSeq, bMs, bSeq].every(Number.isFinite)) return aMs - bMs || aSeq - bSeq;
	return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function positiveOr(value: number | undefined, fallback: number): number {
	return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

function nonNegativeOr(value: number | undefined, fallback: number): number {
	return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
