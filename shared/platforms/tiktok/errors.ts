import type { HttpResponse, Verdict } from '../../transport';

/** TikTok Business API answer: `{ code, message, request_id, data? }`, code 0 = OK. */
export interface TiktokAnswer {
	code: number;
	message?: string;
	request_id?: string;
	data?: unknown;
}

/**
 * What one result code means (platforms.md §3.7–§3.8):
 *  - `ok` 0, `partial` 20001 (accepted, per-event detail shape UNCONFIRMED);
 *  - `throttle` 40100 / 40132 and `retry` 5xxxx (50000, 50002, 51000–51042, …): resent with backoff;
 *  - `token` 40102 / 40104 / 40105, `permission` 40001 / 40003, `request` (API version
 *    40006 / 40051, partner name 40063): about the request as a whole, every event fails as is;
 *  - `event`: everything else, chiefly 40000–40063 (invalid parameters, PII not hashed, batch
 *    size): TikTok refuses the whole request for something in its events, so the chunk is split
 *    until the bad events stand alone. Unknown codes land here too: splitting finds out whether
 *    the error follows an event, at the cost of a few extra requests.
 */
export type TiktokCodeClass =
	| 'ok'
	| 'partial'
	| 'throttle'
	| 'retry'
	| 'token'
	| 'permission'
	| 'request'
	| 'event';

export const TIKTOK_CODE_OK = 0;
export const TIKTOK_CODE_PARTIAL_OK = 20001;
const THROTTLE_CODES = new Set([40100, 40132]);
const TOKEN_CODES = new Set([40102, 40104, 40105]);
const PERMISSION_CODES = new Set([40001, 40003]);
const REQUEST_CODES = new Set([40006, 40051, 40063]);

export function classifyTiktokCode(code: number): TiktokCodeClass {
	if (code === TIKTOK_CODE_OK) return 'ok';
	if (code === TIKTOK_CODE_PARTIAL_OK) return 'partial';
	if (THROTTLE_CODES.has(code)) return 'throttle';
	// 5xxxx are TikTok's system errors and timeouts (50000, 50002, 51000–51042): transient.
	if (code >= 50000 && code <= 59999) return 'retry';
	if (TOKEN_CODES.has(code)) return 'token';
	if (PERMISSION_CODES.has(code)) return 'permission';
	if (REQUEST_CODES.has(code)) return 'request';
	return 'event';
}

/** The answer when the body carries a result code (a number, or digits in a string). */
export function readTiktokAnswer(data: unknown): TiktokAnswer | undefined {
	if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
	const body = data as Record<string, unknown>;
	const raw = body.code;
	const code =
		typeof raw === 'number'
			? raw
			: typeof raw === 'string' && /^\d+$/.test(raw)
				? Number(raw)
				: NaN;
	if (!Number.isInteger(code)) return undefined;
	const answer: TiktokAnswer = { code };
	if (typeof body.message === 'string') answer.message = body.message;
	if (typeof body.request_id === 'string') answer.request_id = body.request_id;
	if (body.data !== undefined) answer.data = body.data;
	return answer;
}

const ADVICE: Partial<Record<TiktokCodeClass, string>> = {
	token:
		'the access token is expired, empty or invalid: generate a new one in Events Manager and update the TikTok Events credential',
	permission:
		'the access token may not send events to this pixel or event set: check the pixel code / CRM event set ID and the token',
};

/** TikTok's own words, one line: `TikTok: <message> [code 40002, request_id …]`. */
export function describeTiktokError(answer: TiktokAnswer | undefined, status: number): string {
	if (!answer) return `TikTok answered HTTP ${status} without a result code`;
	const advice = ADVICE[classifyTiktokCode(answer.code)];
	const details = [
		`code ${answer.code}`,
		answer.request_id ? `request_id ${answer.request_id}` : '',
	]
		.filter(Boolean)
		.join(', ');
	const message = answer.message || `HTTP ${status}`;
	return `TikTok: ${message}${advice ? ` (${advice})` : ''} [${details}]`;
}

/**
 * True when no split of the chunk can help: token, permission and request-level codes, and an
 * HTTP 401/403 without a result code (an integrator saw empty bodies on auth failures).
 */
export function isWholeRequestError(answer: TiktokAnswer | undefined, status: number): boolean {
	if (!answer) return status === 401 || status === 403;
	const kind = classifyTiktokCode(answer.code);
	return kind === 'token' || kind === 'permission' || kind === 'request';
}

/**
 * The error map. TikTok answers HTTP 200 with a non-zero `code` for errors, so both the body
 * and the HTTP status are read: a non-zero code is an error even on HTTP 200.
 */
export function classifyTiktokResponse(response: HttpResponse): Verdict {
	const answer = readTiktokAnswer(response.data);
	const reason = describeTiktokError(answer, response.status);
	const kind = answer ? classifyTiktokCode(answer.code) : undefined;
	if (response.status === 429 || kind === 'throttle') return { kind: 'throttle', reason };
	if (response.status >= 500 || kind === 'retry') return { kind: 'retry', reason };
	const success = response.status >= 200 && response.status < 300;
	if (success && (kind === 'ok' || kind === 'partial')) return { kind: 'ok' };
	// HTTP 2xx without a result code: the outcome is unknown. Resending is safe (TikTok
	// deduplicates API events by event + event_id for 48 h), failing would be a guess.
	if (success && !answer) return { kind: 'retry', reason };
	return { kind: 'permanent', reason };
}
