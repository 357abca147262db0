/**
 * The one backoff of the package: exponential with jitter, and Retry-After parsing. The transport
 * (retries within a run), the outbox (the next try of a queued event) and the Redis client
 * (reconnects) all wait with backoffDelay, each with its own base, cap and least share.
 */

export interface BackoffOptions {
	baseDelayMs: number;
	maxDelayMs: number;
	/**
	 * The least delay as a share of the attempt's ceiling (0.5: between half and all of it).
	 * Unset: the least delay is `baseDelayMs`.
	 */
	minShare?: number;
	random?: () => number;
}

/**
 * Delay before retry number `attempt` (1-based): the ceiling is min(max, base·2^(attempt-1)); the
 * delay is uniform between its floor (minShare·ceiling, else base) and the ceiling.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
	const random = options.random ?? Math.random;
	const exponent = Math.min(Math.max(0, attempt - 1), 30);
	const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
	const floor = Math.min(ceiling, options.minShare === undefined ? options.baseDelayMs : options.minShare * ceiling);
	return Math.round(floor + random() * Math.max(0, ceiling - floor));
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
