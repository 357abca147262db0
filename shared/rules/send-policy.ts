/**
 * Send modes, the Lead Rule Filter's top-level choice. The partial-leads ladder:
 * automatic_completed (completed only) → automatic_match (completed plus qualified partials)
 * → automatic_partial (every capture). booking and manual are for the flows in between.
 */
import { evaluateRules } from './evaluate';
import { readFirstValue } from '../path';
import { unanswerableField } from './redacted';
import { textHead } from './text';
import { SEND_MODES, type RuleSet, type SendDecision, type SendPolicy } from './types';
import { validateRuleSet } from './validate';

export const DEFAULT_APPROVAL_FIELD = 'attributes.approved';
const APPROVED_TEXTS: ReadonlySet<string> = new Set(['true', 'yes', 'approved', '1']);
const NO_RULES: RuleSet = { combinator: 'and', conditions: [] };

/** The record's state, lowercase; a missing state counts as `lead` (a completed submission). */
function stateOf(record: object): { state: string; stated: boolean } {
	// Bounded: a hostile record's state could be a huge object.
	const text = textHead((record as { state?: unknown }).state, 100)
		.text?.trim()
		.toLowerCase();
	return text ? { state: text, stated: true } : { state: 'lead', stated: false };
}

function describeState({ state, stated }: { state: string; stated: boolean }): string {
	return stated ? `state ${state}` : 'no state, counts as lead';
}

/** Whether `record` is sent under `policy`, and why, in one line. */
export function decideSend(policy: SendPolicy, record: object): SendDecision {
	const target = typeof record === 'object' && record !== null ? record : {};
	const decision = decide(policy, target);
	// A capture-log entry that cannot tell the live decision says so (shared/rules/redacted.ts).
	const undetermined = decision.evaluation?.undetermined ?? unanswerableRead(policy, target);
	return undetermined ? { ...decision, send: false, undetermined } : decision;
}

/** Why an entry cannot tell what the mode's own reads (the state, the approval field) are live. */
function unanswerableRead(policy: SendPolicy, record: object): string | null {
	if (policy?.mode === 'manual') {
		return unanswerableField(record, policy.approvalField?.trim() || DEFAULT_APPROVAL_FIELD);
	}
	const readsState =
		policy?.mode === 'automatic_completed' ||
		policy?.mode === 'booking' ||
		(policy?.mode === 'automatic_match' && policy.rulesApplyTo !== 'all');
	return readsState ? unanswerableField(record, 'state') : null;
}

function decide(policy: SendPolicy, target: object): SendDecision {
	const state = stateOf(target);
	const partial = state.state === 'partial';
	switch (policy?.mode) {
		case 'automatic_completed':
			return partial
				? { send: false, reason: 'partial capture: completed submissions only' }
				: { send: true, reason: `completed capture (${describeState(state)})` };
		case 'automatic_partial':
			return {
				send: true,
				reason: partial
					? 'partial capture: every capture is sent'
					: `completed capture (${describeState(state)})`,
			};
		case 'automatic_match': {
			const rules = policy.rules ?? NO_RULES;
			if (policy.rulesApplyTo !== 'all') {
				if (!partial) {
					return {
						send: true,
						reason: `completed capture (${describeState(state)}): sent without rules, which qualify partial captures`,
					};
				}
				const evaluation = evaluateRules(rules, target);
				return evaluation.matched
					? { send: true, reason: `partial capture qualified: ${evaluation.reason}`, evaluation }
					: {
							send: false,
							reason: `partial capture not qualified: ${evaluation.reason}`,
							evaluation,
						};
			}
			const evaluation = evaluateRules(rules, target);
			return evaluation.matched
				? { send: true, reason: `rules matched: ${evaluation.reason}`, evaluation }
				: { send: false, reason: `rules not matched: ${evaluation.reason}`, evaluation };
		}
		case 'booking':
			return state.state === 'schedule'
				? { send: true, reason: 'booking (state schedule)' }
				: {
						send: false,
						reason: `${describeState(state)}: booking mode sends state schedule only`,
					};
		case 'manual':
			return decideApproval(policy.approvalField?.trim() || DEFAULT_APPROVAL_FIELD, target);
		default:
			return { send: false, reason: `unknown send mode ${JSON.stringify(policy?.mode)}` };
	}
}

/** Approved: true, 1, or the text true / yes / approved / 1 (any case). */
function decideApproval(field: string, record: object): SendDecision {
	const value = readFirstValue(record, field);
	if (value === undefined) return { send: false, reason: `not approved: ${field} is missing` };
	// Bounded: the approval field of a hostile record could hold megabytes.
	const trimmed = typeof value === 'string' ? value.trim() : '';
	const text = trimmed.length <= 16 ? trimmed.toLowerCase() : '';
	const head = textHead(value, 200);
	const cut = head.more === true || (typeof value === 'string' && value.length > 200);
	const shown =
		typeof value === 'object' && value !== null
			? `${head.text ?? ''}${cut ? '…' : ''}`
			: `${JSON.stringify(typeof value === 'string' ? head.text : value)}${cut ? '…' : ''}`;
	if (value === true || value === 1 || (typeof value === 'string' && APPROVED_TEXTS.has(text))) {
		return { send: true, reason: `approved (${field} is ${shown})` };
	}
	return { send: false, reason: `not approved: ${field} is ${shown}` };
}

/** Problems with a policy (empty = valid): the mode, and the rules when the mode uses them. */
export function validateSendPolicy(policy: SendPolicy): string[] {
	if (!SEND_MODES.includes(policy?.mode)) {
		return [
			`send mode must be one of ${SEND_MODES.join(', ')}, not ${JSON.stringify(policy?.mode)}`,
		];
	}
	const problems: string[] = [];
	if (policy.mode === 'automatic_match') {
		const applyTo: unknown = policy.rulesApplyTo;
		if (applyTo !== undefined && applyTo !== 'partial' && applyTo !== 'all') {
			problems.push(`rules apply to must be "partial" or "all", not ${JSON.stringify(applyTo)}`);
		}
		problems.push(...validateRuleSet(policy.rules ?? NO_RULES));
	}
	return problems;
}
