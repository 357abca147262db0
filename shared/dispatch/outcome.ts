import { GOOGLE_DROPS_RESENT_EVENT_ID } from '../platforms/google/constants';
import { META_DROPS_RESENT_EVENT_ID } from '../platforms/meta/constants';
import { MICROSOFT_DROPS_RESENT_EVENT_ID } from '../platforms/microsoft/constants';
import { PINTEREST_DROPS_RESENT_EVENT_ID } from '../platforms/pinterest/constants';
import { TIKTOK_DROPS_RESENT_EVENT_ID } from '../platforms/tiktok/constants';
import type { Platform } from '../types';
import type { SendOutcome } from './types';

/**
 * Whether a platform drops a second copy of an event it already has, sent server to server with
 * the same id — what makes resending an event whose outcome is unknown safe. The flag lives in
 * each platform's constants; sources and wording: docs/dedup.md#unknown-outcomes.
 */
export const RESEND_DEDUP: Readonly<Record<Platform, { dedups: boolean; note: string }>> = {
	meta: {
		dedups: META_DROPS_RESENT_EVENT_ID,
		note: 'Meta documents event_id + event_name deduplication between the pixel and the Conversions API, not between two server events (UNCONFIRMED)',
	},
	pinterest: {
		dedups: PINTEREST_DROPS_RESENT_EVENT_ID,
		note: 'Pinterest documents event_id deduplication between the tag and the API, not between two API events (UNCONFIRMED)',
	},
	tiktok: {
		dedups: TIKTOK_DROPS_RESENT_EVENT_ID,
		note: 'TikTok drops an Events API event with the same event and event_id within 48 hours',
	},
	google: {
		dedups: GOOGLE_DROPS_RESENT_EVENT_ID,
		note: 'Google refuses a second conversion with the same order id (ORDER_ID_ALREADY_IN_USE, then reported duplicate); Data Manager treats the same transaction id as the same event',
	},
	microsoft: {
		dedups: MICROSOFT_DROPS_RESENT_EVENT_ID,
		note: 'Microsoft documents no deduplication by eventId between two API events (UNCONFIRMED)',
	},
};

/**
 * The sender option "After an Unknown Outcome": `auto` resends only where the platform drops a
 * resend of the same id, `hold` never resends, `resend` always does (and takes held events).
 */
export type UnknownOutcomePolicy = 'auto' | 'hold' | 'resend';

/** Whether events whose outcome is unknown are resent (in-run by the transport, and by re-runs). */
export function resendsUnknown(platform: Platform, policy: UnknownOutcomePolicy = 'auto'): boolean {
	if (policy === 'hold') return false;
	return policy === 'resend' || RESEND_DEDUP[platform].dedups;
}

/**
 * A failure after which nobody knows whether the platform has the event: the request went out
 * and no answer came back (timed out, connection reset or closed mid-answer). A refused
 * connection or an unknown host never reached the platform: not unknown.
 */
export function isUnknownOutcome(outcome: SendOutcome): boolean {
	return (
		outcome.status === 'failed' &&
		outcome.retryable &&
		/no response within \d+ ms|network error (?:ECONNRESET|EPIPE|UND_ERR_SOCKET)\b|socket hang up|the request may have reached the platform/i.test(
			outcome.error,
		)
	);
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
	platform: Platform,
	next: 'resend' | 'hold' | 'unheld' = RESEND_DEDUP[platform].dedups ? 'resend' : 'hold',
): string {
	const { dedups, note } = RESEND_DEDUP[platform];
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
