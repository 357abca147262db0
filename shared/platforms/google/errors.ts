import { parseRetryAfter, type HttpResponse, type Verdict } from '../../transport';

/** One entry of GoogleAdsFailure.errors (REST JSON). */
export interface GoogleAdsError {
	/** A oneof by category, e.g. `{ conversionUploadError: 'TOO_RECENT_EVENT' }`. */
	errorCode?: Record<string, unknown>;
	message?: string;
	location?: { fieldPathElements?: Array<{ fieldName?: string; index?: number }> };
	details?: { quotaErrorDetails?: { rateScope?: string; rateName?: string; retryDelay?: string } };
}

/** google.rpc.Status: the body of an RPC-level error (`{ error: … }`), and partialFailureError. */
export interface GoogleRpcStatus {
	code?: number;
	message?: string;
	status?: string;
	details?: Array<{ '@type'?: string; errors?: GoogleAdsError[]; requestId?: string }>;
}

export interface GoogleErrorCode {
	category: string;
	code: string;
}

export function readRpcError(data: unknown): GoogleRpcStatus | undefined {
	if (data && typeof data === 'object' && 'error' in data) {
		const error = (data as { error: unknown }).error;
		if (error && typeof error === 'object') return error as GoogleRpcStatus;
	}
	return undefined;
}

/** The GoogleAdsFailure errors inside a status (Google packs them into one `details` entry). */
export function googleAdsErrors(status: GoogleRpcStatus | undefined): {
	errors: GoogleAdsError[];
	requestId?: string;
} {
	const errors: GoogleAdsError[] = [];
	let requestId: string | undefined;
	for (const detail of Array.isArray(status?.details) ? status!.details! : []) {
		if (!detail || typeof detail !== 'object') continue;
		if (typeof detail['@type'] === 'string' && !detail['@type'].endsWith('GoogleAdsFailure'))
			continue;
		if (Array.isArray(detail.errors))
			errors.push(...detail.errors.filter((e) => e && typeof e === 'object'));
		if (typeof detail.requestId === 'string') requestId ??= detail.requestId;
	}
	return { errors, requestId };
}

export function errorCodeOf(error: GoogleAdsError): GoogleErrorCode | undefined {
	for (const [category, code] of Object.entries(error.errorCode ?? {})) {
		if (typeof code === 'string') return { category, code };
	}
	return undefined;
}

const codeText = (code: GoogleErrorCode | undefined) =>
	code ? `${code.category}: ${code.code}` : undefined;

/**
 * One line in Google's own words:
 * `Google Ads: <message> [<status>, <category>: <code>, request_id …]`.
 */
export function describeGoogleRpcError(
	status: GoogleRpcStatus | undefined,
	httpStatus: number,
): string {
	if (!status) return `Google Ads answered HTTP ${httpStatus} without an error body`;
	const { errors, requestId } = googleAdsErrors(status);
	const messages = [
		...new Set(errors.map((e) => e.message).filter((m): m is string => Boolean(m))),
	];
	const text =
		messages.length > 0 ? messages.slice(0, 3).join('; ') : status.message || `HTTP ${httpStatus}`;
	const tags = [
		status.status ?? `HTTP ${httpStatus}`,
		...new Set(errors.map((e) => codeText(errorCodeOf(e))).filter(Boolean)),
		requestId ? `request_id ${requestId}` : undefined,
	].filter(Boolean);
	return `Google Ads: ${text} [${tags.join(', ')}]`;
}

/** A row's error in Google's words: `Google Ads: <message> [<category>: <code>, request_id …]`. */
export function describeGoogleAdsError(error: GoogleAdsError, requestId?: string): string {
	const tags = [
		codeText(errorCodeOf(error)),
		requestId ? `request_id ${requestId}` : undefined,
	].filter(Boolean);
	const text = error.message || 'rejected without a message';
	return `Google Ads: ${text}${tags.length ? ` [${tags.join(', ')}]` : ''}`;
}

/** Transient by their category (or category + code), wherever they appear. */
function isTransient(code: GoogleErrorCode | undefined): boolean {
	if (!code) return false;
	return (
		code.category === 'internalError' ||
		(code.category === 'databaseError' && code.code === 'CONCURRENT_MODIFICATION')
	);
}

function isThrottle(code: GoogleErrorCode | undefined): boolean {
	return code?.category === 'quotaError';
}

/** quotaErrorDetails.retryDelay is a Duration string ("24s", "0.5s"). */
export function readRetryDelayMs(errors: GoogleAdsError[]): number | undefined {
	for (const error of errors) {
		const delay = error.details?.quotaErrorDetails?.retryDelay;
		const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : null;
		if (match) return Math.round(Number(match[1]) * 1000);
	}
	return undefined;
}

const THROTTLE_STATUSES = new Set(['RESOURCE_EXHAUSTED']);
const TRANSIENT_STATUSES = new Set(['UNAVAILABLE', 'INTERNAL', 'DEADLINE_EXCEEDED', 'ABORTED']);

/**
 * The RPC-level error map (platforms.md §4.8): what to retry, what to wait for, what is final.
 * Per-row errors of a successful upload are mapped by classifyRowError instead.
 */
export function classifyGoogleAdsResponse(response: HttpResponse): Verdict {
	const rpc = readRpcError(response.data);
	if (response.status >= 200 && response.status < 300 && !rpc) return { kind: 'ok' };
	const reason = describeGoogleRpcError(rpc, response.status);
	const codes = googleAdsErrors(rpc).errors.map(errorCodeOf);
	if (
		response.status === 429 ||
		THROTTLE_STATUSES.has(rpc?.status ?? '') ||
		codes.some(isThrottle)
	) {
		// Retry-After (read by the transport) wins; else Google's own retryDelay from the body.
		const hasHeader = parseRetryAfter(response.headers['retry-after']) !== undefined;
		const retryAfterMs = hasHeader ? undefined : readRetryDelayMs(googleAdsErrors(rpc).errors);
		return retryAfterMs === undefined
			? { kind: 'throttle', reason }
			: { kind: 'throttle', reason, retryAfterMs };
	}
	if (
		response.status >= 500 ||
		TRANSIENT_STATUSES.has(rpc?.status ?? '') ||
		codes.some(isTransient)
	) {
		return { kind: 'retry', reason };
	}
	// 400 INVALID_ARGUMENT, 401 UNAUTHENTICATED (after n8n's token refresh), 403 PERMISSION_DENIED…
	return { kind: 'permanent', reason };
}

/** What one row's error means for that row. */
export type GoogleRowVerdict =
	/** Google already has this conversion: recorded as sent, reported as duplicate. */
	| 'duplicate'
	/** Not now, later (click or action under 6 hours old): released, reported as skipped. */
	| 'retry_later'
	/** Accepted; expected for enhanced-conversions-for-leads rows not from a Google Ads click. */
	| 'sent_with_warning'
	/** Google failed on its side for this row: released, retryable. */
	| 'failed_transient'
	/** Rejected: released, with Google's message. */
	| 'failed';

/** The per-row error map (platforms.md §4.5, §4.8). Every code not listed fails the row. */
export const CONVERSION_UPLOAD_ROW_VERDICTS: Readonly<Record<string, GoogleRowVerdict>> = {
	ORDER_ID_ALREADY_IN_USE: 'duplicate',
	CLICK_CONVERSION_ALREADY_EXISTS: 'duplicate',
	TOO_RECENT_EVENT: 'retry_later',
	TOO_RECENT_CONVERSION_ACTION: 'retry_later',
	CLICK_NOT_FOUND: 'sent_with_warning',
};

export function classifyRowError(error: GoogleAdsError): GoogleRowVerdict {
	const code = errorCodeOf(error);
	if (code?.category === 'conversionUploadError') {
		const verdict = CONVERSION_UPLOAD_ROW_VERDICTS[code.code];
		if (verdict) return verdict;
	}
	if (isTransient(code) || isThrottle(code)) return 'failed_transient';
	return 'failed';
}

/**
 * Whether a 401 is about the OAuth2 access token (expired, revoked…), so refreshing it may help;
 * not when Google names another authentication problem (developer token, customer, user).
 */
export function isAccessTokenRejection(response: HttpResponse): boolean {
	if (response.status !== 401) return false;
	const codes = googleAdsErrors(readRpcError(response.data)).errors.map(errorCodeOf);
	return !codes.some(
		(code) => code?.category === 'authenticationError' && !code.code.startsWith('OAUTH_TOKEN'),
	);
}

/**
 * The per-row error map of uploadConversionAdjustments (ConversionAdjustmentUploadError, Google
 * Ads API v21–v26; docs/platforms/google-data-manager.md §7a). "Already adjusted" answers count
 * as done: the conversion was already retracted, this restatement (same adjustment time) is
 * already there, or a more recent one is. Every code not listed fails the row with Google's
 * message.
 */
export const CONVERSION_ADJUSTMENT_ROW_VERDICTS: Readonly<Record<string, GoogleRowVerdict>> = {
	CONVERSION_ALREADY_RETRACTED: 'duplicate',
	RESTATEMENT_ALREADY_EXISTS: 'duplicate',
	MORE_RECENT_RESTATEMENT_FOUND: 'duplicate',
	// Same conversion and adjustment time in one request: our dispatch never sends one adjustment
	// twice in a request, so this is another value of the same lead in the same batch; a later
	// run sends it with a later adjustment time.
	DUPLICATE_ADJUSTMENT_IN_REQUEST: 'retry_later',
	TOO_RECENT_CONVERSION_ACTION: 'retry_later',
	TOO_RECENT_CONVERSION: 'retry_later',
};

export function classifyAdjustmentRowError(error: GoogleAdsError): GoogleRowVerdict {
	const code = errorCodeOf(error);
	if (code?.category === 'conversionAdjustmentUploadError') {
		const verdict = CONVERSION_ADJUSTMENT_ROW_VERDICTS[code.code];
		if (verdict) return verdict;
	}
	if (isTransient(code) || isThrottle(code)) return 'failed_transient';
	return 'failed';
}
