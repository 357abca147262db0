import type { PlatformAdapter, ResendDedup, SendOutcome } from '../platforms/contract';
import type { Platform } from '../types';
import type { UnknownOutcomePolicy } from './types';


/** What the outcome rules read of an adapter: its name and whether it drops a resend (ResendDedup). */
type ResendFacts = Pick<PlatformAdapter<unknown, unknown>, 'platform' | 'resendDedup'>;

/** Whether events whose outcome is unknown are resent (in-run by the transport, and by re-runs). */
export function resendsUnknown(resend: ResendDedup, policy: UnknownOutcomePolicy = 'auto'): boolean {
	if (policy === 'hold') return false;
	return policy === 'resend' || resend.dedups;
}

/**
 * A failure after which nobody knows whether the platform has the event: the request went out
 * and no answer came back (timed out, connection reset or closed mid-answer), as the transport
 * saw it and the platform's sender carried it (failedSend's `outcomeUnknown`). A refused
 * connection or an unknown host never reached the platform: not unknown.
 */
export function isUnknownOutcome(outcome: SendOutcome): boolean {
	return outcome.status === 'failed' && outcome.retryable && outcome.outcomeUnknown === true;
}

const UNKNOWN_HEAD = (platform: Platform) =>
	`outcome unknown: the request went out and no answer came back, so ${platform} may have this event already.`;

/**
 * What an item whose outcome is unknown says: the platform may have it; what happens next —
 * `resend` (a retry resends it with the same id), `hold` (held: re-runs do not send it), or
 * `unheld` (not resent in this run, but without a claim — dedup off or bypassed — nothing
 * holds it).
 */
export function unknownOutcomeWarning(
	adapter: ResendFacts,
	next: 'resend' | 'hold' | 'unheld' = adapter.resendDedup.dedups ? 'resend' : 'hold',
): string {
	const { platform } = adapter;
	const { dedups, note } = adapter.resendDedup;
	if (next === 'hold') return `${UNKNOWN_HEAD(platform)} ${HELD_ADVICE(platform)}: ${note}`;
	if (next === 'unheld') {
		return `${UNKNOWN_HEAD(platform)} It was not resent in this run (${platform} may count a resend twice), but no dedup claim holds it (dedup off or bypassed): a re-run sends it again with the same event id. Check the platform's events manager for its event id before re-running: ${note}`;
	}
	return dedups
		? `${UNKNOWN_HEAD(platform)} A retry resends it with the same event id, which is safe: ${note}`
		: `${UNKNOWN_HEAD(platform)} A retry resends it with the same event id (After an Unknown Outcome: Resend), and ${platform} may count it twice: ${note}`;
}

/** What the user can do about a held event. */
const HELD_ADVICE = (platform: Platform) =>
	`It is held, not resent (${platform} may count a resend twice): check the platform's events manager for its event id; if it is missing, re-run with Options → After an Unknown Outcome → Resend`;

/** The reason a re-run gives for an event an earlier run held after an unknown outcome. */
export function heldReason(platform: Platform): string {
	return `not sent: an earlier run sent this event and got no answer (outcome unknown), so ${platform} may have it already. ${HELD_ADVICE(platform)}`;
}
