import type { HttpResponse, Verdict } from '../../transport';

/** Pinterest's error body: `{ code, message }` (422 adds `details`). */
export interface PinterestError {
	code?: number;
	message?: string;
	details?: unknown;
}

/** 429 — "This request exceeded a rate limit". */
const THROTTLE_CODE = 8;
/** 503 — "The endpoint has been ramped down and is currently not accepting any traffic". */
const RAMPED_DOWN_CODE = 4197;

export function readPinterestError(data: unknown): PinterestError | undefined {
	if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
	const { code, message } = data as Record<string, unknown>;
	if (typeof code !== 'number' && typeof message !== 'string') return undefined;
	return data as PinterestError;
}

/** Pinterest's own words, one line: `Pinterest: Authentication failed. [code 2, HTTP 401]`. */
export function describePinterestError(error: PinterestError | undefined, status: number): string {
	if (!error) return `Pinterest answered HTTP ${status} without an error body`;
	const meta = [error.code !== undefined ? `code ${error.code}` : undefined, `HTTP ${status}`]
		.filter(Boolean)
		.join(', ');
	return `Pinterest: ${error.message || 'request failed'} [${meta}]`;
}

/**
 * The error map. 429 (code 8) is throttling, 503 (code 4197) and every other 5xx are transient;
 * 400 (4196 invalid request), 401 (2 authentication), 403 (29 not permitted) and other 4xx are
 * final for the whole request. 422 ("not all events were processed") is final too: the sender
 * reads its per-event results.
 */
export function classifyPinterestResponse(response: HttpResponse): Verdict {
	if (response.status >= 200 && response.status < 300) return { kind: 'ok' };
	const error = readPinterestError(response.data);
	const reason = describePinterestError(error, response.status);
	if (response.status === 429 || error?.code === THROTTLE_CODE) return { kind: 'throttle', reason };
	if (response.status >= 500 || error?.code === RAMPED_DOWN_CODE) return { kind: 'retry', reason };
	return { kind: 'permanent', reason };
}
