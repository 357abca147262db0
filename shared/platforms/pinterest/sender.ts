import type { SendOutcome } from '../contract';
import type { HttpRequest, Transport } from '../../transport';
import type { PinterestConfig } from './config';
import { PINTEREST_API_BASE_URL, PINTEREST_REQUEST_TIMEOUT_MS } from './constants';
import { classifyPinterestResponse, readPinterestError } from './errors';
import type { PinterestEvent } from './payload';
import { failedSend } from '../failure';

export function pinterestEventsUrl(
	config: Pick<PinterestConfig, 'baseUrl' | 'adAccountId'>,
): string {
	const base = (config.baseUrl || PINTEREST_API_BASE_URL).replace(/\/+$/, '');
	return `${base}/v5/ad_accounts/${encodeURIComponent(config.adAccountId)}/events`;
}

/** The request body: `{ data }` and nothing else (the spec allows no other top-level key). */
export function pinterestRequestBody(events: PinterestEvent[]): { data: PinterestEvent[] } {
	return { data: events };
}

/** Test mode is the `test=true` query parameter. */
export function pinterestRequestParams(
	config: Pick<PinterestConfig, 'testMode'>,
): Record<string, string> | undefined {
	return config.testMode ? { test: 'true' } : undefined;
}

export function pinterestRequest(
	events: PinterestEvent[],
	config: Pick<PinterestConfig, 'baseUrl' | 'adAccountId' | 'accessToken' | 'testMode'>,
): HttpRequest {
	return {
		method: 'POST',
		url: pinterestEventsUrl(config),
		params: pinterestRequestParams(config),
		headers: { authorization: `Bearer ${config.accessToken}` },
		body: pinterestRequestBody(events),
		timeoutMs: PINTEREST_REQUEST_TIMEOUT_MS,
	};
}

/** One entry of the response's `events`, in request order. */
export interface PinterestEventResult {
	status?: string;
	error_message?: string | null;
	warning_message?: string | null;
}

export interface PinterestAck {
	num_events_received?: number;
	num_events_processed?: number;
	events?: PinterestEventResult[];
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The acknowledgement in a response body: a 200's `{ num_events_received, num_events_processed,
 * events }`, or the same list carried by a 422 ("not all events were successfully processed"),
 * at its top level or inside `details`.
 */
export function readPinterestAck(data: unknown): PinterestAck | undefined {
	if (!isObject(data)) return undefined;
	if (Array.isArray(data.events)) return data as PinterestAck;
	const details = data.details;
	if (isObject(details) && Array.isArray(details.events)) return details as PinterestAck;
	if (Array.isArray(details) && details.every((d) => isObject(d) && typeof d.status === 'string')) {
		return { events: details as PinterestEventResult[] };
	}
	if (typeof data.num_events_processed === 'number') return data as PinterestAck;
	return undefined;
}

/**
 * A processed event: sent — except in test mode, where Pinterest records nothing, so it is
 * reported as skipped and released: switching test mode off sends it for real.
 */
function processed(response: object, testMode: boolean, warning?: string): SendOutcome {
	if (testMode) {
		return {
			status: 'skipped',
			reason:
				'test mode: Pinterest validated this event (processed) and did not record it; turn Test Mode off to send it',
			retryable: false,
			response,
		};
	}
	return { status: 'sent', response, warning };
}

/**
 * One outcome per event from Pinterest's per-event list: `processed` → sent (its
 * warning_message becomes the item's warning), `failed` → failed with Pinterest's
 * error_message, final for that event. Undefined when the list does not answer for exactly
 * these events.
 */
export function outcomesFromAck(
	ack: PinterestAck,
	count: number,
	testMode: boolean,
): SendOutcome[] | undefined {
	const list = ack.events;
	if (!list || list.length !== count) return undefined;
	const summary = {
		num_events_received: ack.num_events_received,
		num_events_processed: ack.num_events_processed,
		...(testMode ? { test_mode: true } : {}),
	};
	return list.map((entry): SendOutcome => {
		const response = {
			...summary,
			status: entry?.status,
			...(entry?.warning_message ? { warning_message: entry.warning_message } : {}),
			...(entry?.error_message ? { error_message: entry.error_message } : {}),
		};
		if (entry?.status === 'processed') {
			const warning = entry.warning_message ? `Pinterest: ${entry.warning_message}` : undefined;
			return processed(response, testMode, warning);
		}
		const why =
			entry?.status === 'failed'
				? entry.error_message || 'event failed without an error message'
				: `unknown event status "${String(entry?.status)}"`;
		return { status: 'failed', error: `Pinterest: ${why}`, retryable: false, response };
	});
}

/** A 200 without a usable per-event list: trust it only when every event was processed. */
function outcomesFromCount(
	ack: PinterestAck | undefined,
	count: number,
	testMode: boolean,
): SendOutcome[] {
	const response = {
		num_events_received: ack?.num_events_received,
		num_events_processed: ack?.num_events_processed,
		...(testMode ? { test_mode: true } : {}),
	};
	if (count === ack?.num_events_processed) {
		const warning =
			'Pinterest listed no per-event results; every event of the request was counted as processed';
		return Array.from({ length: count }, () => processed(response, testMode, warning));
	}
	const error = `Pinterest processed ${ack?.num_events_processed ?? 'an unknown number'} of the ${count} events of this request without saying which: none is recorded as sent (a re-run sends them again)`;
	return Array.from({ length: count }, () => ({
		status: 'failed' as const,
		error,
		retryable: false,
		response,
	}));
}

/**
 * Sends one chunk and maps Pinterest's answer to one outcome per event. Pinterest reports each
 * event on its own (a 200, or a 422 with the same list), so nothing is split or resent here:
 * processed events are sent, failed ones fail with Pinterest's message. A request-level error
 * (400 invalid request, 401 authentication, 403 not permitted, or a 429/5xx/network failure that
 * outlived its retries) fails every event of the chunk.
 */
export async function sendPinterestChunk(
	events: PinterestEvent[],
	config: PinterestConfig,
	transport: Transport,
): Promise<SendOutcome[]> {
	const testMode = Boolean(config.testMode);
	const result = await transport.request(
		pinterestRequest(events, config),
		classifyPinterestResponse,
		[config.accessToken],
	);
	if (result.ok) {
		const ack = readPinterestAck(result.response.data);
		return (
			(ack && outcomesFromAck(ack, events.length, testMode)) ??
			outcomesFromCount(ack, events.length, testMode)
		);
	}
	const response = result.response;
	if (response?.status === 422) {
		const ack = readPinterestAck(response.data);
		const mapped = ack && outcomesFromAck(ack, events.length, testMode);
		if (mapped) return mapped;
	}
	const outcome: SendOutcome = failedSend(
		result,
		response ? { status: response.status, error: readPinterestError(response.data) } : undefined,
	);
	return events.map(() => outcome);
}
