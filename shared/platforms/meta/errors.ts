import type { HttpResponse, Verdict } from '../../transport';

/** Graph API error body: `{ error: { message, type, code, error_subcode, error_user_msg, fbtrace_id } }`. */
export interface MetaGraphError {
	message?: string;
	type?: string;
	code?: number;
	error_subcode?: number;
	error_user_title?: string;
	error_user_msg?: string;
	fbtrace_id?: string;
	is_transient?: boolean;
}

/** Throttling: app/user/ad-account call limits. */
const THROTTLE_CODES = new Set([4, 17, 32, 341, 613, 80004]);
/** Transient: unknown error / service temporarily unavailable. */
const TRANSIENT_CODES = new Set([1, 2]);
/**
 * Errors about the request as a whole (token, session, permissions, policy): splitting the batch
 * cannot help, every event in it fails with the same message.
 */
export function isWholeRequestError(error: MetaGraphError | undefined): boolean {
	const code = error?.code;
	if (code === undefined) return false;
	return code === 190 || code === 102 || code === 10 || code === 368 || (code >= 200 && code <= 299);
}

export function readGraphError(data: unknown): MetaGraphError | undefined {
	if (data && typeof data === 'object' && 'error' in data) {
		const error = (data as { error: unknown }).error;
		if (error && typeof error === 'object') return error as MetaGraphError;
	}
	return undefined;
}

/** Meta's own words, one line: `(#100) Invalid parameter: <user message> [code 100, subcode 2804019, fbtrace_id …]`. */
export function describeGraphError(error: MetaGraphError | undefined, status: number): string {
	if (!error) return `Meta answered HTTP ${status} without an error body`;
	const parts = [error.message || `HTTP ${status}`];
	if (error.error_user_title) parts.push(error.error_user_title);
	if (error.error_user_msg && error.error_user_msg !== error.message) parts.push(error.error_user_msg);
	const meta = [
		error.code !== undefined ? `code ${error.code}` : undefined,
		error.error_subcode !== undefined ? `subcode ${error.error_subcode}` : undefined,
		error.fbtrace_id ? `fbtrace_id ${error.fbtrace_id}` : undefined,
	].filter(Boolean);
	return `Meta: ${parts.join(': ')}${meta.length ? ` [${meta.join(', ')}]` : ''}`;
}

/** The error map: what to retry, what to wait for, what is final. */
export function classifyMetaResponse(response: HttpResponse): Verdict {
	const error = readGraphError(response.data);
	if (response.status >= 200 && response.status < 300 && !error) return { kind: 'ok' };
	const reason = describeGraphError(error, response.status);
	if (response.status === 429 || (error?.code !== undefined && THROTTLE_CODES.has(error.code))) {
		return { kind: 'throttle', reason };
	}
	if (
		response.status >= 500 ||
		error?.is_transient === true ||
		(error?.code !== undefined && TRANSIENT_CODES.has(error.code))
	) {
		return { kind: 'retry', reason };
	}
	return { kind: 'permanent', reason };
}
