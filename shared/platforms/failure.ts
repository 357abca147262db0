import type { TransportResult } from '../transport/transport';
import type { SendOutcome } from './contract';

/** A transport result that failed (after its retries). */
export type TransportFailure = Extract<TransportResult, { ok: false }>;

/** A send outcome that failed. */
export type FailedSend = Extract<SendOutcome, { status: 'failed' }>;

/**
 * The one reading of a failed transport result as a failed send, for every platform's sender:
 * retryable as the transport judged it, and `outcomeUnknown` carried as the transport knows it
 * (a request went out and no answer came back), so the dispatcher never guesses it from the
 * error's text. `error` is the platform's own wording of a refusal, or the transport's message.
 */
export function failedSend(result: TransportFailure, error: string, response?: unknown): FailedSend {
	return {
		status: 'failed',
		error,
		retryable: result.failure === 'retryable',
		response,
		...(result.outcomeUnknown === true ? { outcomeUnknown: true } : {}),
	};
}
