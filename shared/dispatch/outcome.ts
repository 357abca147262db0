import type { Platform } from '../types';
import type { SendOutcome } from './types';

/**
 * Whether a platform drops a second copy of an event it already has, sent server to server with
 * the same id — what makes resending an event whose outcome is unknown safe. Sources and the
 * wording of each platform's documents: docs/dedup.md#unknown-outcomes.
 */
export const RESEND_DEDUP: Readonly<Record<Platform, { dedups: boolean; note: string }>> = {
	meta: {
		dedups: false,
		note: 'Meta documents event_id + event_name deduplication between the pixel and the Conversions API, not between two server events (UNCONFIRMED)',
	},
	pinterest: {
		dedups: false,
		note: 'Pinterest documents event_id deduplication between the tag and the API, not between two API events (UNCONFIRMED)',
	},
	tiktok: {
		dedups: true,
		note: 'TikTok drops an Events API event with the same event and event_id within 48 hours',
	},
	google: {
		dedups: true,
		note: 'Google refuses a second conversion with the same order id (ORDER_ID_ALREADY_IN_USE, then reported duplicate); Data Manager treats the same transaction id as the same event',
	},
	microsoft: {
		dedups: false,
		note: 'Microsoft documents no deduplication by eventId between two API events (UNCONFIRMED)',
	},
};

/**
 * A failure after which nobody knows whether the platform has the event: the request went out
 * and no answer came back (timed out, connection reset or closed mid-answer). A refused
 * connection or an unknown host never reached the platform: not unknown.
 */
export function isUnknownOutcome(outcome: SendOutcome): boolean {
	return (
		outcome.status === 'failed' &&
		outcome.retryable &&
		/no response within \d+ ms|network error (?:ECONNRESET|EPIPE)\b|socket hang up/i.test(
			outcome.error,
		)
	);
}

/** What an item whose outcome is unknown says: the platform may have it; whether a resend is safe. */
export function unknownOutcomeWarning(platform: Platform): string {
	const { dedups, note } = RESEND_DEDUP[platform];
	return dedups
		? `outcome unknown: the request went out and no answer came back, so ${platform} may have this event already. A retry resends it with the same event id, which is safe: ${note}`
		: `outcome unknown: the request went out and no answer came back, so ${platform} may have this event already. A retry resends it with the same event id (never lost), and ${platform} may count it twice: ${note}`;
}
