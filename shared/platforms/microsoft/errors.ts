import type { HttpResponse, Verdict } from '../../transport';

/** One entry of `error.details`: a problem with the event at `index` of the request's `data`. */
export interface MicrosoftErrorDetail {
	index?: number;
	propertyName?: string;
	/** The rejected value as sent: may be personal data, so it is never read or passed on. */
	attemptedValue?: unknown;
	errorMessage?: string;
	errorCode?: string;
	isWarning?: boolean;
}

/** `{ error: { code, message, details[] } }`, next to `eventsReceived` and `traceId`. */
export interface MicrosoftError {
	code?: string;
	message?: string;
	details?: MicrosoftErrorDetail[];
}

export interface MicrosoftResponseBody {
	eventsReceived?: number;
	error?: MicrosoftError;
	traceId?: string;
}

export function readMicrosoftBody(data: unknown): MicrosoftResponseBody {
	if (!data || typeof data !== 'object' || Array.isArray(data)) return {};
	const body = data as Record<string, unknown>;
	const out: MicrosoftResponseBody = {};
	if (typeof body.eventsReceived === 'number') out.eventsReceived = body.eventsReceived;
	if (typeof body.traceId === 'string') out.traceId = body.traceId;
	const error = body.error;
	if (error && typeof error === 'object' && !Array.isArray(error)) {
		const e = error as Record<string, unknown>;
		out.error = {
			code: typeof e.code === 'string' ? e.code : undefined,
			message: typeof e.message === 'string' ? e.message : undefined,
			details: Array.isArray(e.details)
				? e.details.filter((d): d is MicrosoftErrorDetail => Boolean(d) && typeof d === 'object')
				: undefined,
		};
	}
	return out;
}

/**
 * The error as we keep it in an item's `response`: codes and messages, never `attemptedValue`
 * (it may hold personal data, e.g. the rejected email).
 */
export function safeError(error: MicrosoftError | undefined, onlyIndex?: number) {
	if (!error) return undefined;
	const details = (error.details ?? [])
		.filter((d) => onlyIndex === undefined || d.index === onlyIndex)
		.map((d) => ({
			index: d.index,
			propertyName: d.propertyName,
			errorMessage:
				d.errorMessage === undefined
					? undefined
					: redactAttempted(d.errorMessage, d.attemptedValue),
			...(d.errorCode !== undefined ? { errorCode: d.errorCode } : {}),
			...(d.isWarning ? { isWarning: true } : {}),
		}));
	return { code: error.code, message: error.message, ...(details.length ? { details } : {}) };
}

/** Short values (a 1-character flag) are too likely to occur in normal text to be masked. */
const MIN_REDACTED_LENGTH = 3;

/** Removes the rejected value from Microsoft's message when the message quotes it. */
function redactAttempted(message: string, attempted: unknown): string {
	if (typeof attempted !== 'string' && typeof attempted !== 'number') return message;
	const value = String(attempted);
	if (value.length < MIN_REDACTED_LENGTH || !message.includes(value)) return message;
	return message.split(value).join('[value]');
}

/** One event's problem in Microsoft's words: `userData.em: Invalid hashed email`. */
export function describeDetail(detail: MicrosoftErrorDetail): string {
	const message = redactAttempted(detail.errorMessage || 'rejected', detail.attemptedValue);
	return detail.propertyName ? `${detail.propertyName}: ${message}` : message;
}

/** A whole-request error in one line: `Microsoft: <message> [code …, HTTP 401, traceId …]`. */
export function describeMicrosoftError(body: MicrosoftResponseBody, status: number): string {
	const error = body.error;
	const message = error?.message || (status ? `HTTP ${status}` : 'no response');
	const facts = [
		error?.code ? `code ${error.code}` : undefined,
		status ? `HTTP ${status}` : undefined,
		body.traceId ? `traceId ${body.traceId}` : undefined,
	].filter(Boolean);
	return `Microsoft: ${message}${facts.length ? ` [${facts.join(', ')}]` : ''}`;
}

/**
 * Answers about the request as a whole (token, tag, wrong URL), where splitting the batch
 * cannot help: every event of it fails with the same message.
 */
export function isWholeRequestStatus(status: number): boolean {
	return status === 401 || status === 403 || status === 404 || status === 405;
}

/** Said once for token and tag errors: what to check, in the terms of the Microsoft Ads UI. */
export const MICROSOFT_AUTH_HINT =
	"Check the API token (the UET tag's Conversions API auth key) and that it belongs to this UET tag ID";

/**
 * The error map (UNCONFIRMED as a whole: Microsoft documents no retry semantics), in one
 * place. 2xx: ok — per-event problems in `error.details` are read by the sender; 429:
 * throttle (Retry-After honoured); 408 and 5xx: retry; everything else (400 validation, 401/403
 * token, 404 tag or URL, 413 size) is permanent for what was sent.
 */
export function classifyMicrosoftResponse(response: HttpResponse): Verdict {
	if (response.status >= 200 && response.status < 300) return { kind: 'ok' };
	const reason = describeMicrosoftError(readMicrosoftBody(response.data), response.status);
	if (response.status === 429) return { kind: 'throttle', reason };
	if (response.status === 408 || response.status >= 500) return { kind: 'retry', reason };
	return { kind: 'permanent', reason };
}
