import type { SendOutcome } from '../contract';
import type { HttpRequest, Transport } from '../../transport';
import type { GoogleAdsConfig, GoogleAdsConnection } from './config';
import {
	GOOGLE_ADS_BASE_URL,
	GOOGLE_ADS_DEFAULT_API_VERSION,
	GOOGLE_CONVERSION_ACTIONS_QUERY,
	GOOGLE_REQUEST_TIMEOUT_MS,
	GOOGLE_TIME_ZONE_QUERY,
} from './constants';
import {
	classifyGoogleAdsResponse,
	classifyRowError,
	describeGoogleAdsError,
	describeGoogleRpcError,
	errorCodeOf,
	googleAdsErrors,
	readRpcError,
	type GoogleAdsError,
	type GoogleRowVerdict,
	type GoogleRpcStatus,
} from './errors';
import type { GoogleClickConversion } from './payload';
import { isValidTimeZone } from './time';
import { failedSend } from '../failure';

/** `{base}/{version}`, e.g. https://googleads.googleapis.com/v26. */
export function googleAdsApiRoot(connection: GoogleAdsConnection): string {
	const base = (connection.baseUrl || GOOGLE_ADS_BASE_URL).replace(/\/+$/, '');
	const version = (connection.apiVersion || GOOGLE_ADS_DEFAULT_API_VERSION).replace(
		/^\/+|\/+$/g,
		'',
	);
	return `${base}/${version}`;
}

export function googleUploadUrl(config: GoogleAdsConfig): string {
	return `${googleAdsApiRoot(config)}/customers/${config.customerId}:uploadClickConversions`;
}

export function googleSearchUrl(connection: GoogleAdsConnection, customerId: string): string {
	return `${googleAdsApiRoot(connection)}/customers/${customerId}/googleAds:search`;
}

/**
 * Headers every Google Ads call carries besides Authorization (which n8n adds with the OAuth2
 * token): the developer token, and the manager account when signing in through one.
 */
export function googleAdsHeaders(connection: GoogleAdsConnection): Record<string, string> {
	const headers: Record<string, string> = { 'developer-token': connection.developerToken };
	if (connection.loginCustomerId) headers['login-customer-id'] = connection.loginCustomerId;
	return headers;
}

/** What the transport scrubs from every message and response. */
export function googleAdsSecrets(connection: GoogleAdsConnection): string[] {
	return [connection.developerToken, ...(connection.oauthSecrets ?? [])];
}

/** The request body: partialFailure is required (false → PARTIAL_FAILURE_MODE_REQUIRED). */
export function googleUploadBody(
	conversions: GoogleClickConversion[],
	config: GoogleAdsConfig,
): Record<string, unknown> {
	const body: Record<string, unknown> = { conversions, partialFailure: true };
	if (config.validateOnly) body.validateOnly = true;
	return body;
}

/** The request as it would be sent, without the developer token: what a dry run shows. */
export function googlePreviewRequest(
	conversions: GoogleClickConversion[],
	config: GoogleAdsConfig,
): Record<string, unknown> {
	const headers = googleAdsHeaders(config);
	delete headers['developer-token'];
	return {
		method: 'POST',
		url: googleUploadUrl(config),
		...(Object.keys(headers).length ? { headers } : {}),
		body: googleUploadBody(conversions, config),
	};
}

/** A GAQL query through GoogleAdsService.Search (the account's time zone, its actions). */
export function googleSearchRequest(
	connection: GoogleAdsConnection,
	customerId: string,
	query: string,
	pageToken?: string,
): HttpRequest {
	return {
		method: 'POST',
		url: googleSearchUrl(connection, customerId),
		headers: googleAdsHeaders(connection),
		body: pageToken ? { query, pageToken } : { query },
		timeoutMs: GOOGLE_REQUEST_TIMEOUT_MS,
	};
}

export function googleConversionActionsRequest(
	connection: GoogleAdsConnection,
	customerId: string,
	pageToken?: string,
): HttpRequest {
	return googleSearchRequest(connection, customerId, GOOGLE_CONVERSION_ACTIONS_QUERY, pageToken);
}

export interface GoogleConversionActionRow {
	resourceName: string;
	name: string;
	id: string;
}

/** Rows of the conversion-action search, as the node's list shows them. */
export function readConversionActions(data: unknown): {
	actions: GoogleConversionActionRow[];
	nextPageToken?: string;
} {
	const body = (data ?? {}) as { results?: unknown; nextPageToken?: unknown };
	const actions: GoogleConversionActionRow[] = [];
	for (const row of Array.isArray(body.results) ? body.results : []) {
		const action = (row as { conversionAction?: Record<string, unknown> })?.conversionAction;
		if (!action || typeof action.resourceName !== 'string') continue;
		const id = action.id === undefined ? action.resourceName.split('/').pop()! : String(action.id);
		actions.push({ resourceName: action.resourceName, name: String(action.name ?? id), id });
	}
	const nextPageToken =
		typeof body.nextPageToken === 'string' && body.nextPageToken ? body.nextPageToken : undefined;
	return { actions, nextPageToken };
}

/**
 * The account's IANA time zone (`SELECT customer.time_zone FROM customer`), through the transport
 * (retries, error map, scrubbing). Read once per run: conversionDateTime needs its offset.
 */
export async function fetchGoogleAdsTimeZone(
	connection: GoogleAdsConnection,
	customerId: string,
	transport: Transport,
): Promise<{ ok: true; timeZone: string } | { ok: false; message: string; response?: unknown }> {
	const result = await transport.request(
		googleSearchRequest(connection, customerId, GOOGLE_TIME_ZONE_QUERY),
		classifyGoogleAdsResponse,
		googleAdsSecrets(connection),
	);
	if (!result.ok) {
		const rpc = readRpcError(result.response?.data);
		return {
			ok: false,
			message:
				result.failure === 'permanent' && result.response
					? describeGoogleRpcError(rpc, result.response.status)
					: result.message,
			response: result.response ? { status: result.response.status, error: rpc } : undefined,
		};
	}
	const rows = (result.response.data as { results?: unknown })?.results;
	const timeZone = Array.isArray(rows)
		? (rows[0] as { customer?: { timeZone?: unknown } })?.customer?.timeZone
		: undefined;
	if (typeof timeZone !== 'string' || !isValidTimeZone(timeZone)) {
		return {
			ok: false,
			message: `Google Ads returned no usable time zone for customer ${customerId} (got ${JSON.stringify(timeZone ?? null)})`,
		};
	}
	return { ok: true, timeZone };
}

function buildUploadRequest(
	conversions: GoogleClickConversion[],
	config: GoogleAdsConfig,
): HttpRequest {
	return {
		method: 'POST',
		url: googleUploadUrl(config),
		headers: googleAdsHeaders(config),
		body: googleUploadBody(conversions, config),
		timeoutMs: GOOGLE_REQUEST_TIMEOUT_MS,
	};
}

/** `conversion_adjustments` and `conversionAdjustments` name the same field. */
const fieldKey = (name: unknown) =>
	typeof name === 'string' ? name.replace(/_/g, '').toLowerCase() : '';

/**
 * Which request row an error is about. UNCONFIRMED (platforms.md §4.7): the field is taken to be
 * `conversions` (`conversion_adjustments` for adjustments, in snake or camel case); and proto3
 * JSON may leave out an index of 0, so an element without an index is row 0. Errors naming no
 * row return undefined.
 */
export function rowIndexOf(error: GoogleAdsError, rowField = 'conversions'): number | undefined {
	const elements = error.location?.fieldPathElements;
	const wanted = fieldKey(rowField);
	const element = Array.isArray(elements)
		? elements.find((e) => e && fieldKey(e.fieldName) === wanted)
		: undefined;
	if (!element) return undefined;
	const index = element.index === undefined ? 0 : Number(element.index);
	return Number.isInteger(index) && index >= 0 ? index : undefined;
}

/**
 * How one upload method's answer is read: its list field, its per-row error map and what its
 * rows say. Click conversions and conversion adjustments share everything else.
 */
export interface UploadReading {
	rowField: string;
	classify(error: GoogleAdsError): GoogleRowVerdict;
	/** Prefix of a duplicate row's warning (Google's text follows). */
	duplicate: string;
	/** Suffix of a row Google takes only later (after Google's text). */
	retryLater: string;
	/** A row with neither a result nor an error. */
	noOutcome: string;
}

export const CLICK_UPLOAD_READING: UploadReading = {
	rowField: 'conversions',
	classify: classifyRowError,
	duplicate: 'Google already has this conversion (same order ID or click and time)',
	retryLater:
		'Google takes a click or conversion action only once it is 6 hours old; not recorded now, retry after 6 hours (a later run sends it)',
	noOutcome:
		'Google Ads returned neither a result nor an error for this conversion; a later run resends it (its order ID keeps Google from counting it twice)',
};

/** When a row has several errors, the one that decides its fate (first listed wins). */
const VERDICT_PRECEDENCE: GoogleRowVerdict[] = [
	// Google already has the conversion: whatever else is wrong with this resend, do not send again.
	'duplicate',
	'failed',
	'failed_transient',
	'retry_later',
	'sent_with_warning',
];

const VALIDATE_ONLY_REASON =
	'validate only: Google validated this conversion and recorded nothing; it is not marked as sent, so a run without Validate Only sends it';

function rowOutcome(
	errors: GoogleAdsError[],
	requestId: string | undefined,
	response: Record<string, unknown>,
	validateOnly: boolean,
	reading: UploadReading,
): SendOutcome {
	const verdicts = errors.map((e) => reading.classify(e));
	const verdict = VERDICT_PRECEDENCE.find((v) => verdicts.includes(v))!;
	const decisive = errors.filter((_, i) => verdicts[i] === verdict);
	const text = decisive.map((e) => describeGoogleAdsError(e, requestId)).join('; ');
	switch (verdict) {
		case 'duplicate':
			return {
				status: 'duplicate',
				warning: `${reading.duplicate}: ${text}`,
				response,
			};
		case 'retry_later':
			return {
				status: 'skipped',
				reason: `${text}: ${reading.retryLater}`,
				retryable: true,
				response,
			};
		case 'sent_with_warning':
			if (validateOnly)
				return {
					status: 'skipped',
					reason: `${VALIDATE_ONLY_REASON} (${text})`,
					retryable: false,
					response,
				};
			return {
				status: 'sent',
				warning: `${text}: expected for leads that did not come from a Google Ads click (enhanced conversions for leads); recorded as sent`,
				response,
			};
		case 'failed_transient':
			return { status: 'failed', error: text, retryable: true, response };
		default:
			return { status: 'failed', error: text, retryable: false, response };
	}
}

/**
 * Per-row outcomes of an uploadClickConversions answer (`{ results, partialFailureError, jobId }`):
 * each error is mapped to its row by `location.fieldPathElements[].index`; a row with a non-empty
 * result and no error was recorded. Errors naming no row fail every row without a result, since
 * which rows they hit cannot be told. Under validateOnly Google returns no results at all: rows
 * without errors were valid, and are skipped (not sent, so not recorded as sent either).
 */
export function readUploadOutcomes(
	data: unknown,
	count: number,
	validateOnly = false,
	reading: UploadReading = CLICK_UPLOAD_READING,
): SendOutcome[] {
	const body = (data ?? {}) as {
		results?: unknown;
		partialFailureError?: GoogleRpcStatus;
		jobId?: unknown;
	};
	const results = Array.isArray(body.results) ? body.results : [];
	const { errors, requestId } = googleAdsErrors(body.partialFailureError);
	const byRow: GoogleAdsError[][] = Array.from({ length: count }, () => []);
	const unattributed: GoogleAdsError[] = [];
	for (const error of errors) {
		const index = rowIndexOf(error, reading.rowField);
		if (index !== undefined && index < count) byRow[index].push(error);
		else unattributed.push(error);
	}
	const jobId = body.jobId === undefined ? undefined : String(body.jobId);
	return byRow.map((rowErrors, i): SendOutcome => {
		const result = results[i];
		const hasResult =
			result !== null && typeof result === 'object' && Object.keys(result as object).length > 0;
		const applicable = rowErrors.length > 0 ? rowErrors : hasResult ? [] : unattributed;
		if (applicable.length > 0) {
			const response = {
				...(jobId ? { job_id: jobId } : {}),
				errors: applicable.map((e) => ({
					code: errorCodeOf(e) ?? null,
					message: e.message ?? null,
				})),
			};
			return rowOutcome(applicable, requestId, response, validateOnly, reading);
		}
		if (validateOnly) {
			return {
				status: 'skipped',
				reason: VALIDATE_ONLY_REASON,
				retryable: false,
				response: { validate_only: true },
			};
		}
		if (hasResult)
			return { status: 'sent', response: { ...(jobId ? { job_id: jobId } : {}), result } };
		return {
			status: 'failed',
			error: reading.noOutcome,
			retryable: true,
			response: jobId ? { job_id: jobId } : undefined,
		};
	});
}

/**
 * Sends one upload (click conversions or adjustments, ≤ 2,000 rows) with partialFailure: Google
 * accepts the valid rows and reports each bad one, so no splitting is needed. A failure of the
 * request as a whole (token, permissions, quota or outage outlasting the retries) fails every row.
 */
export async function sendGoogleUpload(
	request: HttpRequest,
	count: number,
	config: GoogleAdsConnection & { validateOnly?: boolean },
	transport: Transport,
	reading: UploadReading,
): Promise<SendOutcome[]> {
	const result = await transport.request(
		request,
		classifyGoogleAdsResponse,
		googleAdsSecrets(config),
	);
	if (result.ok) {
		return readUploadOutcomes(result.response.data, count, Boolean(config.validateOnly), reading);
	}
	const rpc = readRpcError(result.response?.data);
	const status = result.response?.status ?? 0;
	const outcome: SendOutcome = failedSend(
		result,
		result.response ? { status, error: rpc } : undefined,
		() => describeGoogleRpcError(rpc, status),
	);
	return Array.from({ length: count }, () => outcome);
}

/** One chunk of click conversions (uploadClickConversions). */
export function sendGoogleChunk(
	conversions: GoogleClickConversion[],
	config: GoogleAdsConfig,
	transport: Transport,
): Promise<SendOutcome[]> {
	return sendGoogleUpload(
		buildUploadRequest(conversions, config),
		conversions.length,
		config,
		transport,
		CLICK_UPLOAD_READING,
	);
}
