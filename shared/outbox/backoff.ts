/**
 * When an outbox entry is tried next: exponential backoff with jitter (between half and all of
 * base·2^(attempts-1), capped), or the platform's Retry-After when it asked for longer.
 */
export const OUTBOX_BASE_DELAY_MS = 60_000;
export const OUTBOX_MAX_DELAY_MS = 60 * 60_000;

export function nextTryDelayMs(
	attempts: number,
	options: { retryAfterMs?: number; random?: () => number; baseMs?: number; maxMs?: number } = {},
): number {
	const base = options.baseMs ?? OUTBOX_BASE_DELAY_MS;
	const max = options.maxMs ?? OUTBOX_MAX_DELAY_MS;
	const exponent = Math.min(Math.max(attempts, 1) - 1, 30);
	const ceiling = Math.min(max, base * 2 ** exponent);
	const random = options.random ?? Math.random;
	const jittered = Math.round(ceiling / 2 + random() * (ceiling / 2));
	const retryAfter = options.retryAfterMs;
	return retryAfter !== undefined && retryAfter > jittered ? Math.round(retryAfter) : jittered;
}
