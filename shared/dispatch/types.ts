import type { DedupStore } from '../dedup/types';
import type { EventWindowPolicy } from '../events/eventTime';
import type { LedgerOptions } from '../ledger/types';
import type { PlatformAdapter } from '../platforms/contract';
import type { Transport } from '../transport/transport';
import type { LeadRecord } from '../types';

export type * from '../platforms/contract';

/**
 * The sender option "After an Unknown Outcome": `auto` resends only where the platform drops a
 * resend of the same id, `hold` never resends, `resend` always does (and takes held events).
 */
export type UnknownOutcomePolicy = 'auto' | 'hold' | 'resend';

/** The keys a settle commits (acknowledged), holds (unknown outcome, not resent) and releases. */
export interface SettlePlan {
	commit: string[];
	release: string[];
	hold?: string[];
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

/**
 * What a dispatch does with the events it builds (DispatchOptions.mode):
 *  - `send` (the default): claim → send → settle; the events go to the platform;
 *  - `dryRun` (the preview): every event built, one request previewed; each built event's result
 *    is `skipped` with `dry_run` and the payload; nothing is claimed, sent or queued;
 *  - `buildForOutbox` (Deliver → Via Outbox): every event built and handed to `onBuilt` with
 *    what its later send needs (KeptFacts); nothing is claimed, sent or previewed here. Each
 *    built event's result stays `skipped` for the caller to queue (outbox.queueBuilt); the
 *    drain sends it later under a dedup claim.
 */
export type DispatchMode<Payload> =
	| { kind: 'send' }
	| { kind: 'dryRun' }
	| {
			kind: 'buildForOutbox';
			/** Called with each built event and what its later send needs. */
			onBuilt(index: number, payload: Payload, kept: KeptFacts): void;
	  };

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
	/** What is done with the built events: sent (the default), previewed, or built for the outbox. */
	mode?: DispatchMode<Payload>;
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
	 * The stage ledger (shared/ledger, docs/stages.md), with a store: each sent event is written
	 * to its lead's ledger in the settle; a stage already in it is not sent again, skipped and
	 * out-of-order stages are warned about. Absent: no ledger.
	 */
	ledger?: LedgerOptions;
}
