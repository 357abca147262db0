/**
 * What the outbox may take of a Redis (read by the outbox's writes and by the connect check, so
 * both read one set of figures). Settings are environment variables of the n8n process (every
 * worker reads its own; set them alike):
 *
 *  - `LEAD_CAPI_OUTBOX_MAX_MB`: bytes one destination's outbox (its queued events and its dead
 *    letters) may hold, default 64 MB; past it that destination's new events are refused.
 *  - `LEAD_CAPI_DEAD_LETTER_DAYS`: how long a dead letter is kept, default 30 days.
 *  - `LEAD_CAPI_REDIS_HEADROOM_PERCENT`: the share of `maxmemory` the outbox never fills, kept
 *    for the dedup markers and claims, default 20 %.
 */
export interface OutboxBounds {
	/** Bytes per destination (queued events + dead letters, sealed). */
	maxBytes: number;
	/** How long a dead letter is kept (ms). */
	deadLetterMs: number;
	/** Percent of maxmemory the outbox leaves free. */
	headroomPercent: number;
}

/** Added to a platform's window for the TTL of a queue's keys (the drain's lease and a day). */
export const OUTBOX_TTL_MARGIN_MS = 24 * 3600_000 + 5 * 60_000;

const MB = 1024 * 1024;
const DAY_MS = 24 * 3600_000;

export const OUTBOX_DEFAULTS: OutboxBounds = {
	maxBytes: 64 * MB,
	deadLetterMs: 30 * DAY_MS,
	headroomPercent: 20,
};

function positive(raw: string | undefined, fallback: number, max = Infinity): number {
	const n = Number(raw);
	return raw !== undefined && raw.trim() !== '' && Number.isFinite(n) && n > 0 ? Math.min(n, max) : fallback;
}

/** The bounds from the environment (or the defaults where a setting is unset or unreadable). */
export function outboxBounds(env: Record<string, string | undefined> = process.env): OutboxBounds {
	return {
		maxBytes: Math.round(positive(env.LEAD_CAPI_OUTBOX_MAX_MB, OUTBOX_DEFAULTS.maxBytes / MB) * MB),
		deadLetterMs: Math.round(
			positive(env.LEAD_CAPI_DEAD_LETTER_DAYS, OUTBOX_DEFAULTS.deadLetterMs / DAY_MS) * DAY_MS,
		),
		headroomPercent: positive(env.LEAD_CAPI_REDIS_HEADROOM_PERCENT, OUTBOX_DEFAULTS.headroomPercent, 90),
	};
}
