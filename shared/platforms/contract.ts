import type { EventContext } from '../events/context';
import type { EventTimeWindow } from '../events/eventTime';
import type { IdentityProfile, NormalizedIdentity, PlatformIdentity } from '../identity';
import type { LedgerEntry } from '../ledger/types';
import type { Transport } from '../transport/transport';
import type { LeadRecord, LeadState, Platform } from '../types';

/**
 * The contract between the generic dispatcher (shared/dispatch) and a platform's folder: what an
 * adapter declares and answers, and what the dispatcher reports per item. It sits below both, so
 * a platform never imports the dispatcher and the dispatcher never names a platform.
 */

/**
 * One result per input item (DESIGN.md "Results"). `expired`: a lead's stage event older than
 * the platform accepts — not sent, never sent with a rewritten time (docs/stages.md). `queued`:
 * failed retryably and kept in the outbox for a later try (docs/outbox.md).
 */
export type ItemStatus = 'sent' | 'duplicate' | 'skipped' | 'expired' | 'failed' | 'queued';

/**
 * What the dedup layer did for the item: `claimed` (this run owned it and still does: sent and
 * recorded, or a claim it could not free, which expires by itself), `released` (this run claimed
 * it, the send failed or was skipped, and the claim was freed so a retry can send it),
 * `sent_before` (committed by an earlier run), `in_flight` (another run holds the claim),
 * `in_batch` (same event earlier in this batch), `lease_lost` (this run claimed it but lost the
 * claim — it lapsed, or could not be renewed — before sending it: not sent here), `bypassed`
 * (store unreachable, fail-open: sent without a claim), `unavailable` (store unreachable,
 * fail-closed: nothing claimed, nothing sent), `held` (a send with an unknown outcome on a
 * platform that may count a resend twice: marked held, so re-runs do not resend it unless
 * After an Unknown Outcome is Resend), `off` (no store configured).
 */
export type DedupState =
	| 'claimed'
	| 'released'
	| 'sent_before'
	| 'in_flight'
	| 'in_batch'
	| 'lease_lost'
	| 'bypassed'
	| 'unavailable'
	| 'held'
	| 'off';

export interface ItemResult {
	status: ItemStatus;
	platform: Platform;
	destination: string;
	event_name: string;
	event_id?: string;
	event_time?: number;
	match_keys: string[];
	/** Match-quality estimate (0–10) of the identity sent; see estimateMatchQuality. */
	match_quality?: number;
	warnings: string[];
	dedup?: DedupState;
	error?: string;
	/** True when resending the same event later may succeed (network, throttling, 5xx). */
	retryable?: boolean;
	/**
	 * True when the request went out and no answer came back (timed out, connection dropped):
	 * the platform may have the event. A warning says whether resending it is safe there.
	 */
	outcome_unknown?: boolean;
	response?: unknown;
	/** The exact event sent (or that would be sent, in a dry run), when asked for. */
	payload?: unknown;
	dry_run?: boolean;
	/** Status `queued`: the failed send waits in the outbox (shared/outbox) for its next try. */
	outbox?: {
		next_try: string;
		attempts: number;
		/** The platform's Retry-After (s), when the next try honours it (later than the backoff). */
		retry_after_s?: number;
	};
}

/** Everything a platform adapter needs to build one event. */
export interface BuildContext {
	record: LeadRecord;
	eventName: string;
	eventId: string;
	/** Unix seconds, already bounded by the platform's window. */
	eventTime: number;
	identity: NormalizedIdentity;
	/** The identity rendered with this platform's profile (hashed where it hashes). */
	user: PlatformIdentity;
	/**
	 * Consent, Limited Data Use, value, page URL and California, read once per lead in the
	 * prepare stage (readEventContext): builders map these and never re-read the record for them.
	 */
	event: EventContext;
	/** What the stage ledger holds for this lead here, when the run reads it. */
	ledger?: LedgerEntry | null;
}

export type BuildOutcome<Payload> =
	| { ok: true; payload: Payload; matchKeys: string[]; warnings: string[] }
	| {
			ok: false;
			status: 'skipped' | 'failed';
			reason: string;
			matchKeys: string[];
			warnings: string[];
	  };

/**
 * Per-event outcome of sending a chunk, in the chunk's order.
 *  - `sent`: acknowledged — recorded as sent;
 *  - `duplicate`: the platform says it already has this event (e.g. Google
 *    ORDER_ID_ALREADY_IN_USE) — recorded as sent, reported as duplicate;
 *  - `skipped`: not accepted now but not wrong (e.g. Google TOO_RECENT_EVENT) — released so a
 *    later run sends it, reported as skipped with the reason;
 *  - `failed`: rejected or undeliverable — released, reported with the platform's message.
 */
export type SendOutcome =
	| { status: 'sent'; response?: unknown; warning?: string }
	| { status: 'duplicate'; response?: unknown; warning?: string }
	| {
			status: 'skipped';
			reason: string;
			retryable: boolean;
			response?: unknown;
			/** Set by the send stage: the platform's Retry-After (or retry delay), ms. */
			retryAfterMs?: number;
	  }
	| {
			status: 'failed';
			error: string;
			retryable: boolean;
			response?: unknown;
			/** Set by the send stage: the platform's Retry-After (or retry delay), ms. */
			retryAfterMs?: number;
			/**
			 * From the transport (failedSend): a request went out and no answer came back, so the
			 * platform may have the event. The dispatcher reads this flag, never the error text.
			 */
			outcomeUnknown?: boolean;
	  };

/**
 * How a run follows a chunk while a sender splits it (sendIsolating), by index into the chunk:
 *  - `admit`: before each further request, which of these events may still be sent (the run
 *    still holds their claims); the others are not sent;
 *  - `partAccepted`: a part of the chunk the platform accepted, with its outcomes, reported as
 *    soon as it is accepted.
 */
export interface SendHooks {
	admit?(indices: number[]): Promise<number[]>;
	partAccepted?(indices: number[], outcomes: SendOutcome[]): Promise<void>;
}

/**
 * Whether a platform drops a second copy of an event it already has, sent server to server with
 * the same id — what makes resending an event whose outcome is unknown safe — and what the
 * platform's documents say about it (the warning quotes it). Sources: docs/dedup.md#unknown-outcomes.
 */
export interface ResendDedup {
	readonly dedups: boolean;
	readonly note: string;
}

/**
 * A platform is one folder exporting one adapter: limits, payload builder, sender (request
 * building, response parsing, error map). The dispatcher does the rest the same way for all.
 */
export interface PlatformAdapter<Config, Payload> {
	readonly platform: Platform;
	/**
	 * What the platform takes of an identity and how (fields, hashing, phone, email and gender
	 * forms, match-quality weights): its folder's identity.ts. Senders and the Identity Normalizer
	 * render identities with it, so the two never disagree.
	 */
	readonly identity: IdentityProfile;
	/**
	 * The platform's event name for each canonical state: the README's event-name table, the
	 * senders' default ("From Lead State"). Partial leads never share a name with completed ones.
	 */
	readonly eventNameByState: Readonly<Record<LeadState, string>>;
	/** Most events one request may carry. */
	readonly maxBatchSize: number;
	/** Oldest event the platform accepts, and what backs the figure (docs/platforms/<platform>.md). */
	readonly eventTimeWindow: EventTimeWindow;
	/** Whether a resend with the same event id is dropped (After an Unknown Outcome: Auto). */
	readonly resendDedup: ResendDedup;
	/**
	 * The record attribute this platform's lead sources put its lead id in (Meta:
	 * `meta_lead_id`): the stage ledger keeps it as the lead's `id:lead_id` (else a generic
	 * `attributes.lead_id`), for later stage events of the lead and the health report.
	 */
	readonly leadIdAttribute?: string;
	/**
	 * The adapter adjusts conversions sent before (Google retractions and restatements): the stage
	 * ledger records its events as sent but never as the lead's first event or creation
	 * (docs/stages.md), so a later "From Stage Ledger" adjustment still finds the original.
	 */
	readonly adjusts?: boolean;
	/**
	 * Every event of this config is a stage event (Meta's Conversion Leads, Event Source CRM),
	 * with or without a `stage` on the record: the plan times it by `stage_at` and never rewrites
	 * the time — outside the window it is `expired` (shared/dispatch/plan.ts, the one timing rule).
	 */
	stageTimed?(config: Config): boolean;
	/** The pixel / dataset / ad account / tag / conversion action events go to. */
	destinationId(config: Config): string;
	/**
	 * The user data exactly as this platform receives it (its keys, its shapes), from the
	 * identity rendered with its profile; the payload builder and the Identity Normalizer both
	 * call it, so what the normalizer shows is what is sent.
	 */
	userData(user: PlatformIdentity, record: LeadRecord): PlatformUserData;
	buildEvent(context: BuildContext, config: Config): BuildOutcome<Payload>;
	/**
	 * Sends one chunk; one outcome per payload, in order. Senders that split refused batches
	 * (sendIsolating) take `hooks`, so the run can withhold events whose claim it lost and
	 * record accepted parts at once.
	 */
	sendChunk(
		payloads: Payload[],
		config: Config,
		transport: Transport,
		hooks?: SendHooks,
	): Promise<SendOutcome[]>;
	/** The request body as it would be sent (secrets left out), for dry runs. */
	previewRequest(payloads: Payload[], config: Config): unknown;
}

export interface PlatformUserData {
	/** The platform's user-data object (Meta user_data, TikTok user, Google userIdentifiers…). */
	data: unknown;
	/** The platform's own names of the keys present (em, ph, hashedEmail, msclkid…). */
	matchKeys: string[];
	/** Values left out while shaping the user data for this platform, and why. */
	warnings?: string[];
}
