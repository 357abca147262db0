import { backoffDelay } from '../transport/backoff';

/**
 * When an outbox entry is tried next: the package's backoff (between half and all of
 * base·2^(attempts-1), capped), or the platform's Retry-After when it asked for longer.
 */
export const OUTBOX_BASE_DELAY_MS = 60_000;
export const OUTBOX_MAX_DELAY_MS = 60 * 60_000;

export function nextTryDelayMs(
	attempts: number,
	options: { retryAfterMs?: number; random?: () => number; baseMs?: number; maxMs?: number } = {},
): number {
	const jittered = backoffDelay(Math.max(attempts, 1), {
		baseDelayMs: options.baseMs ?? OUTBOX_BASE_DELAY_MS,
		maxDelayMs: options.maxMs ?? OUTBOX_MAX_DELAY_MS,
		minShare: 0.5,
		random: options.random,
	});
	const retryAfter = options.retryAfterMs;
	return retryAfter !== undefined && retryAfter > jittered ? Math.round(retryAfter) : jittered;
}
