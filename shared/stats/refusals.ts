import { STATS_TTL_MS, statsBucket } from './stats';

/**
 * Refused captures: deliveries the Lead Capture Trigger answered with a 4xx and started no
 * execution for. Counted per capture path and reason in hourly buckets (kept like the send
 * counters, 49 hours) so the Health Report shows them, and logged at most once per path and
 * reason per minute. Counters only: no body, no sender address, no secret.
 */
export type RefusalReason = 'signature' | 'origin' | 'size' | 'method' | 'body' | 'record';

export const REFUSAL_REASONS: readonly RefusalReason[] = [
	'signature',
	'origin',
	'size',
	'method',
	'body',
	'record',
];

/** The reason a refusal is counted under, from the status it was answered with. */
export function refusalReason(status: number): RefusalReason {
	switch (status) {
		case 401:
			return 'signature';
		case 403:
			return 'origin';
		case 413:
			return 'size';
		case 405:
			return 'method';
		case 422:
			return 'record';
		default:
			return 'body';
	}
}

/** One refusal to count: `<prefix>:refused:<path>:<bucket>`, field = reason. */
export interface RefusalIncrement {
	key: string;
	path: string;
	reason: RefusalReason;
	ttlMs: number;
}

export function refusalIncrement(
	prefix: string,
	path: string,
	reason: RefusalReason,
	now: number = Date.now(),
): RefusalIncrement {
	return {
		key: `${prefix}:refused:${path}:${statsBucket(now)}`,
		path,
		reason,
		ttlMs: STATS_TTL_MS,
	};
}

/** What the Health Report shows per capture path. */
export interface RefusedCaptures {
	capture_path: string;
	window_hours: number;
	refused: number;
	reasons: Partial<Record<RefusalReason, number>>;
}

/** Sums hourly buckets (field maps as read from storage) into one report per capture path. */
export function summarizeRefusals(
	buckets: ReadonlyArray<Record<string, string>>,
	windowHours: number,
): RefusedCaptures[] {
	const byPath = new Map<string, RefusedCaptures>();
	for (const fields of buckets) {
		const path = fields._path;
		if (path === undefined) continue;
		let entry = byPath.get(path);
		if (!entry) {
			entry = { capture_path: path, window_hours: windowHours, refused: 0, reasons: {} };
			byPath.set(path, entry);
		}
		for (const reason of REFUSAL_REASONS) {
			const n = Number(fields[reason] ?? 0);
			if (!Number.isFinite(n) || n <= 0) continue;
			entry.reasons[reason] = (entry.reasons[reason] ?? 0) + n;
			entry.refused += n;
		}
	}
	return [...byPath.values()]
		.filter((entry) => entry.refused > 0)
		.sort((a, b) => a.capture_path.localeCompare(b.capture_path));
}

/** How a refusal should be logged now: whether to write a line, and how many were held back. */
export interface RefusalLogDecision {
	log: boolean;
	/** Refusals of the same path and reason not logged since the last line. */
	suppressed: number;
}

/**
 * At most one log line per (path, reason) per window: the first refusal is logged, the next
 * ones in the window are only counted, and the first one after the window is logged with that
 * count. Remembers a bounded number of (path, reason) pairs, so a flood of made-up paths cannot
 * grow it without end.
 */
export class RefusalLogLimiter {
	private readonly seen = new Map<string, { since: number; suppressed: number }>();

	constructor(
		private readonly windowMs = 60_000,
		private readonly maxEntries = 1_000,
	) {}

	admit(path: string, reason: RefusalReason, now: number = Date.now()): RefusalLogDecision {
		const id = `${reason}\u0000${path}`;
		const entry = this.seen.get(id);
		if (entry && now - entry.since < this.windowMs) {
			entry.suppressed++;
			return { log: false, suppressed: entry.suppressed };
		}
		const suppressed = entry?.suppressed ?? 0;
		this.seen.delete(id);
		if (this.seen.size >= this.maxEntries) this.forgetOldest(now);
		this.seen.set(id, { since: now, suppressed: 0 });
		return { log: true, suppressed };
	}

	/** Drops windows that are over, or else the oldest one. */
	private forgetOldest(now: number): void {
		for (const [id, entry] of this.seen) {
			if (now - entry.since >= this.windowMs) this.seen.delete(id);
		}
		if (this.seen.size >= this.maxEntries) {
			const oldest = this.seen.keys().next().value;
			if (oldest !== undefined) this.seen.delete(oldest);
		}
	}
}

/** What to check, per reason, for whoever reads the log. */
const REFUSAL_ADVICE: Record<RefusalReason, string> = {
	signature:
		"check that the trigger's Lead Capture Webhook credential holds the exact secret the sender signs with (Typeform: the webhook's Secret; Tally: Signing secret; Calendly: webhook signing key; Cal.com: the webhook's Secret)",
	origin: "add the page's origin to Options → Allowed Origins, or leave that setting empty",
	size: 'raise Options → Max Body Size (KB) if such deliveries are expected',
	method: 'deliveries must be POST requests',
	body: 'check what the sender posts (content type and JSON)',
	record: "check the trigger's field mapping and record ID settings against what the sender posts",
};

/**
 * The warn line for a refused capture: path, source, status, reason, what to check, and how
 * many like it were not logged. The reason comes from the capture core, which never puts a
 * secret or raw personal data in it.
 */
export function describeRefusal(refusal: {
	path: string;
	source: string;
	status: number;
	reason: string;
	suppressed: number;
	windowMs?: number;
}): string {
	const category = refusalReason(refusal.status);
	const more = refusal.suppressed
		? ` (${refusal.suppressed} more refused for this reason since the last such line; at most one line per ${Math.round((refusal.windowMs ?? 60_000) / 1000)} s)`
		: '';
	return `Lead Capture Trigger: refused a delivery to /${refusal.path} (source ${refusal.source}, HTTP ${refusal.status}, ${category}): ${refusal.reason}; ${REFUSAL_ADVICE[category]}${more}`;
}
