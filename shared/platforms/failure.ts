import type { HttpResponse, TransportResult } from '../transport/transport';
import type { SendOutcome } from './contract';

/** A transport result that failed (after its retries). */
export type TransportFailure = Extract<TransportResult, { ok: false }>;

/** A send outcome that failed. */
export type FailedSend = Extract<SendOutcome, { status: 'failed' }>;

/**
 * The one reading of a failed transport result as a failed send, for every platform's sender:
 * retryable as the transport judged it, and `outcomeUnknown` carried as the transport knows it
 * (a request went out and no answer came back), so the dispatcher never guesses it from the
 * error's text. The error is the platform's own words (`refusal`) for a permanent refusal it
 * answered, else the transport's message (what happened, how often it was tried). `response` is
 * what the item shows of the answer.
 */
export function failedSend(
	result: TransportFailure,
	response?: unknown,
	refusal?: (answer: HttpResponse) => string,
): FailedSend {
	const answered = result.failure === 'permanent' ? result.response : undefined;
	return {
		status: 'failed',
		error: refusal && answered ? refusal(answered) : result.message,
		retryable: result.failure === 'retryable',
		response,
		...(result.outcomeUnknown === true ? { outcomeUnknown: true } : {}),
	};
}
