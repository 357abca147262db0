import { sendIsolating, type ChunkAttempt } from '../isolate';
import type { SendOutcome } from '../contract';
import type { HttpRequest, Transport } from '../../transport';
import {
	DATA_MANAGER_BASE_URL,
	DATA_MANAGER_MAIN_REFERENCE,
	DATA_MANAGER_PARTIAL_REFERENCE,
	DATA_MANAGER_REQUEST_TIMEOUT_MS,
	type GoogleDataManagerConfig,
	type GoogleDataManagerConnection,
} from './dataManagerConfig';
import {
	classifyDataManagerResponse,
	describeDataManagerError,
	describeViolations,
	eventIndexOf,
	mayBeAboutEvents,
	readDataManagerError,
	type DataManagerFieldViolation,
} from './dataManagerErrors';
import type { DataManagerEvent } from './dataManagerPayload';
import { failedSend } from '../failure';

function apiRoot(connection: GoogleDataManagerConnection): string {
	return (connection.baseUrl || DATA_MANAGER_BASE_URL).replace(/\/+$/, '');
}

export function dataManagerIngestUrl(connection: GoogleDataManagerConnection): string {
	return `${apiRoot(connection)}/v1/events:ingest`;
}

export function dataManagerSecrets(connection: GoogleDataManagerConnection): string[] {
	return [...(connection.oauthSecrets ?? [])];
}

/** The one Destination of a node: the operating account owns the conversion action. */
export function dataManagerDestination(config: GoogleDataManagerConfig): Record<string, unknown> {
	const account = (accountId: string) => ({ accountType: 'GOOGLE_ADS', accountId });
	return {
		operatingAccount: account(config.operatingAccountId),
		...(config.loginAccountId ? { loginAccount: account(config.loginAccountId) } : {}),
		...(config.linkedAccountId ? { linkedAccount: account(config.linkedAccountId) } : {}),
		productDestinationId: config.conversionActionId,
	};
}

/**
 * The request's destinations: the conversion action; with a partial-lead action, both, each
 * with the `reference` its events name (an event without references goes to all of them).
 */
export function dataManagerDestinations(
	config: GoogleDataManagerConfig,
): Record<string, unknown>[] {
	const main = dataManagerDestination(config);
	if (!config.partialConversionActionId) return [main];
	return [
		{ reference: DATA_MANAGER_MAIN_REFERENCE, ...main },
		{
			reference: DATA_MANAGER_PARTIAL_REFERENCE,
			...main,
			productDestinationId: config.partialConversionActionId,
		},
	];
}

/** IngestEventsRequest: hashes are hex, so `encoding: HEX`; validateOnly when testing. */
export function dataManagerIngestBody(
	events: DataManagerEvent[],
	config: GoogleDataManagerConfig,
): Record<string, unknown> {
	const body: Record<string, unknown> = {
		destinations: dataManagerDestinations(config),
		events,
		encoding: 'HEX',
	};
	if (config.validateOnly) body.validateOnly = true;
	return body;
}

/** The request as it would be sent (n8n adds the OAuth2 bearer token): what a dry run shows. */
export function dataManagerPreviewRequest(
	events: DataManagerEvent[],
	config: GoogleDataManagerConfig,
): Record<string, unknown> {
	return {
		method: 'POST',
		url: dataManagerIngestUrl(config),
		body: dataManagerIngestBody(events, config),
	};
}

function ingestRequest(events: DataManagerEvent[], config: GoogleDataManagerConfig): HttpRequest {
	return {
		method: 'POST',
		url: dataManagerIngestUrl(config),
		body: dataManagerIngestBody(events, config),
		timeoutMs: DATA_MANAGER_REQUEST_TIMEOUT_MS,
	};
}

const VALIDATE_ONLY_REASON =
	'validate only: Google validated this conversion and recorded nothing; it is not marked as sent, so a run without Validate Only sends it';

const ACCEPTED_NOTE =
	'accepted by Google, not yet processed: read the processing status with the Get Request Status operation';

function acceptedOutcome(data: unknown, validateOnly: boolean): SendOutcome {
	const requestId = (data as { requestId?: unknown } | null)?.requestId;
	const id = typeof requestId === 'string' ? requestId : undefined;
	if (validateOnly) {
		return {
			status: 'skipped',
			reason: VALIDATE_ONLY_REASON,
			retryable: false,
			response: { validate_only: true, ...(id ? { request_id: id } : {}) },
		};
	}
	return {
		status: 'sent',
		response: { ...(id ? { request_id: id } : {}), processing: ACCEPTED_NOTE },
	};
}

/**
 * One request for a chunk. A 400 whose field violations name `events[n]` fails exactly those
 * events (Google processed none of the request) and sends the rest again at once; a 400 naming
 * no event is a `reject`, which sendIsolating answers by splitting the chunk; anything else
 * (token, permissions, destination, quota or outage past the retries) fails the chunk.
 */
async function attemptIngest(
	events: DataManagerEvent[],
	config: GoogleDataManagerConfig,
	transport: Transport,
): Promise<ChunkAttempt> {
	const result = await transport.request(
		ingestRequest(events, config),
		classifyDataManagerResponse,
		dataManagerSecrets(config),
	);
	if (result.ok) {
		const outcome = acceptedOutcome(result.response.data, Boolean(config.validateOnly));
		return { kind: 'ok', outcomes: events.map(() => outcome) };
	}
	const response = result.response;
	const parts = readDataManagerError(response?.data);
	const summary = response ? { status: response.status, error: parts.status ?? null } : undefined;
	if (!response || result.failure === 'retryable' || !mayBeAboutEvents(response, parts)) {
		const outcome = failedSend(result, summary, (answer) =>
			describeDataManagerError(parts, answer.status),
		);
		return { kind: 'fail', outcome };
	}
	const byEvent = new Map<number, DataManagerFieldViolation[]>();
	for (const violation of parts.violations) {
		const index = eventIndexOf(violation);
		if (index === undefined || index >= events.length) continue;
		byEvent.set(index, [...(byEvent.get(index) ?? []), violation]);
	}
	const rejected: SendOutcome = {
		status: 'failed',
		error: describeDataManagerError(parts, response.status),
		retryable: false,
		response: summary,
	};
	if (byEvent.size === 0) return { kind: 'reject', outcome: rejected };
	const rest = events.filter((_, i) => !byEvent.has(i));
	const restOutcomes = rest.length > 0 ? await sendDataManagerChunk(rest, config, transport) : [];
	let next = 0;
	const outcomes = events.map((_, i): SendOutcome => {
		const violations = byEvent.get(i);
		if (!violations) return restOutcomes[next++];
		return {
			status: 'failed',
			error: describeViolations(violations, parts.requestId),
			retryable: false,
			response: { status: 400, reason: violations.map((v) => v.reason ?? null) },
		};
	});
	return { kind: 'ok', outcomes };
}

/**
 * Sends one chunk (≤ 2,000 events). Data Manager fails fast (one invalid event fails the whole
 * request, nothing of it processed), so the events Google names are failed and the others
 * resent; when Google names none, the chunk is split in halves until the bad ones stand alone.
 * One bad lead never sinks its batch.
 */
export function sendDataManagerChunk(
	events: DataManagerEvent[],
	config: GoogleDataManagerConfig,
	transport: Transport,
): Promise<SendOutcome[]> {
	return sendIsolating(events, (chunk) => attemptIngest(chunk, config, transport));
}

/** requestStatus:retrieve for one request id. */
export function dataManagerStatusRequest(
	connection: GoogleDataManagerConnection,
	requestId: string,
): HttpRequest {
	return {
		method: 'GET',
		url: `${apiRoot(connection)}/v1/requestStatus:retrieve`,
		params: { requestId },
		timeoutMs: DATA_MANAGER_REQUEST_TIMEOUT_MS,
	};
}

/** One destination's processing status, as the node's Get Request Status operation outputs it. */
export interface DataManagerDestinationStatus {
	destination: unknown;
	/** SUCCESS, PROCESSING, FAILED, PARTIAL_SUCCESS or REQUEST_STATUS_UNKNOWN. */
	request_status: string;
	record_count?: number;
	error_info?: unknown;
	warning_info?: unknown;
}

export type DataManagerStatusResult =
	| { ok: true; request_id: string; statuses: DataManagerDestinationStatus[] }
	| { ok: false; request_id: string; message: string; retryable: boolean; response?: unknown };

/** Reads the processing diagnostics of an accepted request (docs §6). */
export async function fetchDataManagerRequestStatus(
	connection: GoogleDataManagerConnection,
	requestId: string,
	transport: Transport,
): Promise<DataManagerStatusResult> {
	const result = await transport.request(
		dataManagerStatusRequest(connection, requestId),
		classifyDataManagerResponse,
		dataManagerSecrets(connection),
	);
	if (!result.ok) {
		const parts = readDataManagerError(result.response?.data);
		return {
			ok: false,
			request_id: requestId,
			message:
				result.failure === 'permanent' && result.response
					? describeDataManagerError(parts, result.response.status)
					: result.message,
			retryable: result.failure === 'retryable',
			response: result.response
				? { status: result.response.status, error: parts.status ?? null }
				: undefined,
		};
	}
	const rows = (result.response.data as { requestStatusPerDestination?: unknown })
		?.requestStatusPerDestination;
	const statuses = (Array.isArray(rows) ? rows : []).map((row): DataManagerDestinationStatus => {
		const r = (row ?? {}) as Record<string, unknown>;
		const count = (r.eventsIngestionStatus as { recordCount?: unknown } | undefined)?.recordCount;
		return {
			destination: r.destination ?? null,
			request_status:
				typeof r.requestStatus === 'string' ? r.requestStatus : 'REQUEST_STATUS_UNKNOWN',
			...(count !== undefined && Number.isFinite(Number(count))
				? { record_count: Number(count) }
				: {}),
			...(r.errorInfo ? { error_info: r.errorInfo } : {}),
			...(r.warningInfo ? { warning_info: r.warningInfo } : {}),
		};
	});
	return { ok: true, request_id: requestId, statuses };
}
