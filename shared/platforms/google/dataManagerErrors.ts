import type { HttpResponse, Verdict } from '../../transport';

/** google.rpc.BadRequest.FieldViolation (REST JSON). */
export interface DataManagerFieldViolation {
	field?: string;
	description?: string;
	reason?: string;
}

/** google.rpc.Status as Data Manager's REST error body carries it (`{ error: … }`). */
export interface DataManagerRpcStatus {
	code?: number;
	message?: string;
	status?: string;
	details?: Array<{
		'@type'?: string;
		reason?: string;
		requestId?: string;
		fieldViolations?: DataManagerFieldViolation[];
		metadata?: Record<string, string>;
	}>;
}

/** What an error says, read once: its ErrorInfo reason, RequestInfo id and field violations. */
export interface DataManagerErrorParts {
	status?: DataManagerRpcStatus;
	reason?: string;
	requestId?: string;
	violations: DataManagerFieldViolation[];
}

export function readDataManagerError(data: unknown): DataManagerErrorParts {
	const error = data && typeof data === 'object' ? (data as { error?: unknown }).error : undefined;
	if (!error || typeof error !== 'object') return { violations: [] };
	const status = error as DataManagerRpcStatus;
	const parts: DataManagerErrorParts = { status, violations: [] };
	for (const detail of Array.isArray(status.details) ? status.details : []) {
		if (!detail || typeof detail !== 'object') continue;
		const type = String(detail['@type'] ?? '');
		if (type.endsWith('ErrorInfo') && typeof detail.reason === 'string')
			parts.reason ??= detail.reason;
		if (type.endsWith('RequestInfo') && typeof detail.requestId === 'string')
			parts.requestId ??= detail.requestId;
		if (type.endsWith('BadRequest') && Array.isArray(detail.fieldViolations)) {
			parts.violations.push(...detail.fieldViolations.filter((v) => v && typeof v === 'object'));
		}
	}
	return parts;
}

/**
 * The event a field violation is about: the first `events[n]` of its path. UNCONFIRMED whether
 * Google writes the rest of the path in snake_case or camelCase; only the `events[n]` part is read.
 */
export function eventIndexOf(violation: DataManagerFieldViolation): number | undefined {
	const match = /(?:^|\.)events\[(\d+)\]/.exec(String(violation.field ?? ''));
	return match ? Number(match[1]) : undefined;
}

/** `Google Data Manager: <message> [<status>, <reason>, request_id …]`. */
export function describeDataManagerError(parts: DataManagerErrorParts, httpStatus: number): string {
	if (!parts.status) return `Google Data Manager answered HTTP ${httpStatus} without an error body`;
	const tags = [
		parts.status.status ?? `HTTP ${httpStatus}`,
		parts.reason,
		parts.requestId ? `request_id ${parts.requestId}` : undefined,
	].filter(Boolean);
	return `Google Data Manager: ${parts.status.message || `HTTP ${httpStatus}`} [${tags.join(', ')}]`;
}

/** One event's violations in Google's words. */
export function describeViolations(
	violations: DataManagerFieldViolation[],
	requestId: string | undefined,
): string {
	const text = violations
		.map((v) => `${v.description || 'invalid'} (${[v.field, v.reason].filter(Boolean).join(', ')})`)
		.join('; ');
	return `Google Data Manager rejected this event: ${text}${requestId ? ` [request_id ${requestId}]` : ''}`;
}

/**
 * ErrorReasons about the request, the destination or the account, not about an event
 * (error.proto): splitting the chunk cannot help, so every event of it fails.
 */
export const REQUEST_LEVEL_REASONS: ReadonlySet<string> = new Set([
	'PERMISSION_DENIED',
	'NOT_FOUND',
	'INVALID_DESTINATION',
	'INVALID_CONVERSION_ACTION_ID',
	'INVALID_CONVERSION_ACTION_TYPE',
	'TERMS_AND_CONDITIONS_NOT_SIGNED',
	'DESTINATION_ACCOUNT_NOT_ENABLED_ENHANCED_CONVERSIONS_FOR_LEADS',
	'DESTINATION_ACCOUNT_DATA_POLICY_PROHIBITS_ENHANCED_CONVERSIONS',
	'DESTINATION_ACCOUNT_ENHANCED_CONVERSIONS_TERMS_NOT_SIGNED',
	'DUPLICATE_DESTINATION_REFERENCE',
	'TOO_MANY_DESTINATIONS',
	'TOO_MANY_EVENTS',
	'MULTIPLE_DATA_TYPES_NOT_ALLOWED',
	'INVALID_REQUEST_ID',
]);

/** Whether a refused request may be about some of its events (so isolating them can help). */
export function mayBeAboutEvents(response: HttpResponse, parts: DataManagerErrorParts): boolean {
	if (response.status !== 400) return false;
	if (parts.reason && REQUEST_LEVEL_REASONS.has(parts.reason)) return false;
	return !parts.violations.some((v) => /^(destinations|encoding)\b/.test(String(v.field ?? '')));
}

const THROTTLE_STATUSES = new Set(['RESOURCE_EXHAUSTED']);
const TRANSIENT_STATUSES = new Set(['UNAVAILABLE', 'INTERNAL', 'DEADLINE_EXCEEDED', 'ABORTED']);

/**
 * The error map (docs/platforms/google-data-manager.md §4–5): 429 / RESOURCE_EXHAUSTED waits
 * (Retry-After when given), 5xx and transient canonical codes retry, everything else is final
 * for the request (events of a 400 are then isolated by the sender).
 */
export function classifyDataManagerResponse(response: HttpResponse): Verdict {
	const parts = readDataManagerError(response.data);
	if (response.status >= 200 && response.status < 300 && !parts.status) return { kind: 'ok' };
	const reason = describeDataManagerError(parts, response.status);
	const canonical = parts.status?.status ?? '';
	// The transport reads Retry-After itself when Google sends one.
	if (response.status === 429 || THROTTLE_STATUSES.has(canonical))
		return { kind: 'throttle', reason };
	if (response.status >= 500 || TRANSIENT_STATUSES.has(canonical)) return { kind: 'retry', reason };
	return { kind: 'permanent', reason };
}

/** A 401: the OAuth2 access token was refused (expired, revoked), so a refresh may help. */
export function isDataManagerTokenRejection(response: HttpResponse): boolean {
	return response.status === 401;
}
