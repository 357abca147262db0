import type { DedupStore } from '../dedup/types';
import type { EventContext } from '../events/context';
import type { EventTimeWindow, EventWindowPolicy } from '../events/eventTime';
import type { NormalizedIdentity, PlatformIdentity } from '../identity';
import type { LedgerEntry, LedgerOptions } from '../ledger/types';
import type { Transport } from '../transport/transport';
import type { LeadRecord, LeadState, Platform } from '../types';
import type { UnknownOutcomePolicy } from './outcome';

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
 * A platform is one folder exporting one adapter: limits, payload builder, sender (request
 * building, response parsing, error map). The dispatcher does the rest the same way for all.
 */
export interface PlatformAdapter<Config, Payload> {
	readonly platform: Platform;
	/**
	 * The platform's event name for each canonical state: the README's event-name table, the
	 * senders' default ("From Lead State"). Partial leads never share a name with completed ones.
	 */
	readonly eventNameByState: Readonly<Record<LeadState, string>>;
	/** Most events one request may carry. */
	readonly maxBatchSize: number;
	/** Oldest event the platform accepts, and what backs the figure (docs/platforms/<platform>.md). */
	readonly eventTimeWindow: EventTimeWindow;
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

/** One input item: the canonical record plus what the node resolved for it. */
export interface DispatchItem {
	record: LeadRecord;
	eventName: string;
	/** Warnings collected before dispatch (e.g. from field mapping). */
	warnings?: string[];
	/** When set, the item already failed (e.g. a mapping expression threw); nothing is sent. */
	error?: string;
	/**
	 * An event built earlier (drained from the outbox): sent as is under its own event id and
	 * time — the record is not read and nothing is built again.
	 */
	prebuilt?: { eventId: string; eventTime: number; payload: unknown; ledger?: KeptLedgerWrite };
}

/**
 * A stage-ledger write kept with an event for a later send (the outbox): made by the ledger's
 * ledgerWriteFor when the event was first dispatched, written when the later send succeeds —
 * the same entry a direct send writes. Non-personal: the ledger key (record id hashed), event
 * name, ids of clicks and leads, times; `stage` is the lead's stage, when it had one.
 */
export interface KeptLedgerWrite {
	key: string;
	set: Record<string, string>;
	setIfAbsent: Record<string, string>;
	stage?: string;
}

/** What the dispatch hands over with a built event that may be sent later (the outbox). */
export interface KeptFacts {
	/** How long the platform asked to wait (its Retry-After, or retry delay), ms. */
	retryAfterMs?: number;
	/** The stage-ledger write its send makes, when the run keeps a ledger. */
	ledger?: KeptLedgerWrite;
}

export type DedupFailMode = 'closed' | 'open';

export interface DispatchOptions<Config, Payload> {
	adapter: PlatformAdapter<Config, Payload>;
	config: Config;
	transport: Transport;
	/** null = dedup off (every run sends again; items carry a warning). */
	store: DedupStore | null;
	failMode?: DedupFailMode;
	keyPrefix?: string;
	/** An agency's Client Key: part of every event id (deriveEventId), so clients never share ids. */
	clientKey?: string;
	claimTtlMs?: number;
	committedTtlMs?: number;
	eventWindowPolicy?: EventWindowPolicy;
	defaultCountry?: string;
	/** Events per request, capped at the platform's maximum. */
	batchSize?: number;
	/** Requests in flight at once. */
	concurrency?: number;
	dryRun?: boolean;
	includePayload?: boolean;
	/**
	 * How long to wait for another run's live claim on the same event to settle before failing
	 * the item as retryable. Default: the claim lease plus 2 s (at most 120 s), so a crashed
	 * run's claim has expired before the wait ends (inFlightWaitFor).
	 */
	inFlightWaitMs?: number;
	/**
	 * What to do with an event whose send had an unknown outcome (the request went out, no
	 * answer came back): `auto` (default) resends it with the same id only where the platform
	 * drops such a resend, else holds it; `hold` never resends; `resend` always does, and also
	 * sends events earlier runs held. See docs/dedup.md#unknown-outcomes.
	 */
	afterUnknownOutcome?: UnknownOutcomePolicy;
	clock?: () => number;
	sleep?: (ms: number) => Promise<void>;
	/**
	 * Called with the built event of each item that failed retryably (and whose outcome is
	 * known: not sent), so the caller can queue it in the outbox.
	 */
	onRetryable?(index: number, payload: Payload, kept: KeptFacts): void;
	/**
	 * A dry run: called with each built event and what a later send needs (Deliver → Via Outbox
	 * queues them).
	 */
	onDryRunBuilt?(index: number, payload: Payload, kept: KeptFacts): void;
	/**
	 * The stage ledger (shared/ledger, docs/stages.md), with a store: each sent event is written
	 * to its lead's ledger in the settle; a stage already in it is not sent again, skipped and
	 * out-of-order stages are warned about. Absent: no ledger.
	 */
	ledger?: LedgerOptions;
}
