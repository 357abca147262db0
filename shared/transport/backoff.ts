/** Exponential backoff with full jitter, and Retry-After parsing. */

export interface BackoffOptions {
	baseDelayMs: number;
	maxDelayMs: number;
	random?: () => number;
}

/** Delay before retry number `attempt` (1-based): uniform in [base, min(max, base·2^(attempt-1))]. */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
	const random = options.random ?? Math.random;
	const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
	return Math.round(options.baseDelayMs + random() * Math.max(0, ceiling - options.baseDelayMs));
}

/**
 * Retry-After is either delta-seconds or an HTTP date. Returns milliseconds to wait, or
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const trimmed = String(text).trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}
