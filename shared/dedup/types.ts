import type { DestinationStats, StatsIncrements } from '../stats/stats';
import type { RefusalIncrement, RefusedCaptures } from '../stats/refusals';
import type { LedgerWrite } from '../ledger/types';
import type { Platform } from '../types';
import { DEFAULT_KEY_PREFIX, readClientKey } from '../clientKey';

/**
 * Outcome of claiming one key:
 *  - `claimed`: this run owns the key and may send the event;
 *  - `sent`: a previous run sent it (committed) — do not send again;
 *  - `in_flight`: another run holds an unexpired claim and is sending it right now;
 *  - `held`: a previous run sent it and got no answer (outcome unknown) and held it rather
 *    than resend it — claimed only when the caller asks to take held keys (`takeHeld`).
 */
export type ClaimOutcome = 'claimed' | 'sent' | 'in_flight' | 'held';

/**
 * What a lease renewal found for one key:
 *  - `held`: still this run's claim: extended;
 *  - `sent`: committed meanwhile (by another run, or by this one) — do not send it;
 *  - `taken`: another run claimed it meanwhile — do not send it, that run does;
 *  - `expired`: the claim lapsed and nobody holds it — not taken again by a renewal.
 */
export type RenewOutcome = 'held' | 'sent' | 'taken' | 'expired';

export interface ClaimBatchResult {
	/** Owner token: only the holder can commit or release these claims. */
	token: string;
	/** One outcome per key, in the order of the keys. */
	outcomes: ClaimOutcome[];
	/**
	 * With `ledgerKeys`: per key, in the order of the keys, what the stage ledger holds for it —
	 * read for the keys claimed that have a ledger key, undefined for the others.
	 */
	ledger?: Array<LedgerRead | undefined>;
}

/** One stage ledger hash as a claim read it: its fields, null when the lead has none, or the error that read it. */
export type LedgerRead = Record<string, string> | null | Error;

export interface ClaimOptions {
	/** Claim keys held after an unknown outcome too (the user chose to resend them). */
	takeHeld?: boolean;
	/**
	 * Per key (same order), its lead's stage ledger key, or undefined: the ledger of every key
	 * claimed is read in the same round trip, atomically with its claim (`ClaimBatchResult.ledger`).
	 */
	ledgerKeys?: ReadonlyArray<string | undefined>;
}

export interface SettleRequest {
	/** Keys whose events the platform acknowledged: marked sent for `committedTtlMs`. */
	commit: string[];
	/** Keys whose events were not sent: freed so a retry can claim them. */
	release: string[];
	/**
	 * Keys whose send has an unknown outcome (the request went out, no answer came back) on a
	 * platform that may count a resend twice: marked held (`u`) for `committedTtlMs`, so a re-run
	 * does not resend them unless it asks to (`takeHeld`).
	 */
	hold?: string[];
	committedTtlMs: number;
	/** The dispatch's counters, written in the same round trip. */
	stats?: StatsIncrements;
	/**
	 * Stage ledger writes (shared/ledger), in the same round trip: each lands only when the
	 * commit of its `gateKey` lands, so the ledger says "sent" exactly when dedup does.
	 */
	ledger?: LedgerWrite[];
}

export interface SettleResult {
	committed: number;
	released: number;
	held?: number;
	/** Keys this token no longer owned (its claim expired and another run took it). */
	notOwned: string[];
}

/**
 * Storage-enforced deduplication (DESIGN.md principle 4). Implementations claim a whole batch
 * in one round trip and settle it in one round trip.
 */
export interface DedupStore {
	/** Human-readable name used in every error message, e.g. `Redis dedup store (127.0.0.1:6379/0)`. */
	readonly description: string;
	/**
	 * Redis Cluster: keys carry a hash tag on the destination so one batch's keys share a slot
	 * (one script can touch them all).
	 */
	readonly hashTagKeys?: boolean;
	/**
	 * Claims keys for one run. Pass the token of an earlier claim of this run to extend it (a
	 * re-claim of keys that were in flight elsewhere); without one, a new token is made.
	 */
	claimBatch(
		keys: string[],
		claimTtlMs: number,
		token?: string,
		options?: ClaimOptions,
	): Promise<ClaimBatchResult>;
	settleBatch(token: string, request: SettleRequest): Promise<SettleResult>;
	/**
	 * Renews a run's lease on its in-flight claims: one round trip for all `keys`, extending to
	 * `claimTtlMs` only the keys that still hold this token. One outcome per key, in order.
	 */
	renewClaims(token: string, keys: string[], claimTtlMs: number): Promise<RenewOutcome[]>;
	/**
	 * The stage ledger hashes at `keys` (one round trip), null where a lead has none. (A dispatch
	 * reads its leads' ledgers with their claims: ClaimOptions.ledgerKeys.)
	 */
	readLedger(keys: string[]): Promise<Array<Record<string, string> | null>>;
	/**
	 * The stage ledger hashes whose keys start with `start` (a destination's ledger, or every
	 * destination of a platform), at most `limit` of them, for the health report: SCAN, then
	 * pipelines of HGETALL. `truncated` when more were there.
	 */
	scanLedger(
		start: string,
		limit: number,
	): Promise<{ entries: Array<{ key: string; fields: Record<string, string> }>; truncated: boolean }>;
	/** Writes counters when a dispatch had nothing to settle (one round trip). */
	recordStats(stats: StatsIncrements): Promise<void>;
	/** Per-destination counters of the last `hours` hours, for keys under `prefix`. */
	readStats(prefix: string, options: { hours: number; now?: number }): Promise<DestinationStats[]>;
	/** Counts one refused capture (one round trip). */
	recordRefusal(refusal: RefusalIncrement): Promise<void>;
	/** Refused captures per capture path of the last `hours` hours, for keys under `prefix`. */
	readRefusals(prefix: string, options: { hours: number; now?: number }): Promise<RefusedCaptures[]>;
}

/**
 * Raised when the store cannot be reached or answers wrongly. The message is headlined by the
 * store (never by the platform the events were for): `The dedup store (Redis at 127.0.0.1:6390)
 * refused the connection: …`. `trouble` says what went wrong in words (e.g. from
 * `describeRedisTrouble`); the raw driver message stays in `causeMessage` for logs.
 */
export class DedupStoreError extends Error {
	constructor(
		readonly storeDescription: string,
		readonly causeMessage: string,
		trouble = `is unavailable: ${causeMessage}`,
		/**
		 * The store did not answer in time: the command may still run once it answers (a claim
		 * still claims, a settle still settles). The dispatcher reads this, never the text.
		 */
		readonly timedOut = false,
	) {
		super(`The dedup store (${storeDescription}) ${trouble}`);
		this.name = 'DedupStoreError';
	}
}

/** Whether a store call failed because the store did not answer in time (DedupStoreError.timedOut). */
export function storeTimedOut(error: unknown): boolean {
	return error instanceof DedupStoreError && error.timedOut;
}

export { DEFAULT_KEY_PREFIX };
/**
 * A claim is a lease: its run renews it while it works on the event (every third of this), so
 * it outlives any split batch or retry, and a crashed run's claims expire this soon after it.
 */
export const DEFAULT_CLAIM_TTL_MS = 30_000;
/** Committed keys are kept well beyond every platform's event window (Meta: 7 days). */
export const DEFAULT_COMMITTED_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * `<prefix>:<platform>:<destination>:<event_id>` — the key layout is part of the contract. With
 * `hashTag` (Redis Cluster) the destination is written `{<destination>}` so that a batch's keys
 * share a hash slot.
 */
export function dedupKey(
	prefix: string,
	platform: Platform,
	destination: string,
	eventId: string,
	options: { hashTag?: boolean } = {},
): string {
	const dest = options.hashTag ? `{${destination}}` : destination;
	return `${prefix || DEFAULT_KEY_PREFIX}:${platform}:${dest}:${eventId}`;
}

/**
 * The key prefix of one client of an agency: `<prefix>:<client key>`. Client keys are short
 * slugs, so they cannot break the key layout.
 */
export function namespacedPrefix(prefix: string | undefined, clientKey: string | undefined): string {
	const base = prefix || DEFAULT_KEY_PREFIX;
	const client = readClientKey(clientKey);
	return client ? `${base}:${client}` : base;
}
