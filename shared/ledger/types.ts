/**
 * The stage ledger (docs/stages.md): per client (key prefix), destination and lead, what was
 * sent — the lead's creation time, its ids, the first event (what Google got first, for
 * adjustments) and each stage with its time. No raw personal data: the lead is keyed by the
 * SHA-256 of its record id, and only click ids, event ids, event names and times are kept.
 */

/** At least 90 days (issue 14); the default keeps a lead's stages half a year. */
export const MIN_LEDGER_TTL_MS = 90 * 86_400_000;
export const DEFAULT_LEDGER_TTL_MS = 180 * 86_400_000;

/** How a dispatch uses the ledger: on with a store, unless the options turn it off. */
export interface LedgerOptions {
	/** How long a lead's ledger lives after its last write (≥ 90 days). */
	ttlMs?: number;
	/**
	 * The pipeline's stages in order (`lead, qualified, booked, won`), compared case-blind: a
	 * stage sent with an earlier one missing, or after a later one, is warned about.
	 */
	stageOrder?: string[];
}

/** What the ledger holds for one lead at one destination, read back. */
export interface LedgerEntry {
	/** When the lead was created, unix seconds (from lead_created_at, else its first event). */
	createdAt?: number;
	/** The first event sent for this lead here: for Google, its order id is the event id. */
	first?: { event: string; eventId: string; time: number };
	/** Click and lead ids, as first sent (gclid, fbclid, ttclid, lead_id, …). */
	ids: Record<string, string>;
	/** Each stage (event name) sent, with its event time in unix seconds. */
	stages: Record<string, number>;
	/**
	 * Each adjustment sent (a Google retraction or restatement, by its event name), with its event
	 * time: kept so it is not sent twice, but never one of the lead's stages (previous stage,
	 * skipped and out-of-order stages read `stages` only). Stored as `adj:<event name>`.
	 */
	adjustments: Record<string, number>;
}

/**
 * One ledger write, made in the settle script with the commit of `gateKey` and only when that
 * commit lands (this run's claim, or no claim left): `set` fields overwrite, `setIfAbsent`
 * fields keep the first value; the key's TTL is renewed.
 */
export interface LedgerWrite {
	key: string;
	gateKey: string;
	ttlMs: number;
	set: Record<string, string>;
	setIfAbsent: Record<string, string>;
}
