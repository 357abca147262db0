import { sendIsolating, type ChunkAttempt } from '../isolate';
import type { SendHooks, SendOutcome } from '../contract';
import type { HttpRequest, Transport } from '../../transport';
import type { TiktokConfig } from './config';
import {
	TIKTOK_BUSINESS_API_BASE_URL,
	TIKTOK_EVENT_TRACK_PATH,
	TIKTOK_REQUEST_TIMEOUT_MS,
	type TiktokEventSource,
} from './constants';
import {
	classifyTiktokCode,
	classifyTiktokResponse,
	describeTiktokError,
	isWholeRequestError,
	readTiktokAnswer,
	TIKTOK_CODE_PARTIAL_OK,
} from './errors';
import type { TiktokEvent } from './payload';
import { failedSend } from '../failure';

/** The request body of event/track (the token travels in the Access-Token header). */
export interface TiktokTrackRequest {
	event_source: TiktokEventSource;
	event_source_id: string;
	test_event_code?: string;
	data: TiktokEvent[];
}

export function tiktokTrackUrl(config: TiktokConfig): string {
	const base = (config.baseUrl || TIKTOK_BUSINESS_API_BASE_URL).replace(/\/+$/, '');
	return `${base}${TIKTOK_EVENT_TRACK_PATH}`;
}

/** Where events go: the pixel code (web) or the CRM event set (crm). Also the dedup destination. */
export function tiktokEventSourceId(config: TiktokConfig): string {
	return config.eventSource === 'crm' ? (config.crmEventSetId ?? '') : config.pixelCode;
}

/**
 * The request body, which holds no secret: what a dry run shows. No `partner_name`: TikTok
 * refuses names it has not registered (40063 invalid partner name), and this package has none.
 */
export function tiktokRequestBody(events: TiktokEvent[], config: TiktokConfig): TiktokTrackRequest {
	return {
		event_source: config.eventSource,
		event_source_id: tiktokEventSourceId(config),
		...(config.testEventCode ? { test_event_code: config.testEventCode } : {}),
		data: events,
	};
}

function buildRequest(events: TiktokEvent[], config: TiktokConfig): HttpRequest {
	return {
		method: 'POST',
		url: tiktokTrackUrl(config),
		headers: { 'Access-Token': config.accessToken },
		body: tiktokRequestBody(events, config),
		timeoutMs: TIKTOK_REQUEST_TIMEOUT_MS,
	};
}

/**
 * Sends one chunk. TikTok refuses a whole request for one invalid event (40000–40063), so such
 * a refusal splits the chunk until the bad events stand alone (sendIsolating): the valid ones
 * land, each bad one fails with TikTok's own message. Token, permission and request-level errors,
 * and transient failures that outlived their retries, fail every event of the chunk.
 */
export function sendTiktokChunk(
	events: TiktokEvent[],
	config: TiktokConfig,
	transport: Transport,
	hooks?: SendHooks,
): Promise<SendOutcome[]> {
	return sendIsolating(events, (chunk) => attemptTiktok(chunk, config, transport), hooks);
}

async function attemptTiktok(
	events: TiktokEvent[],
	config: TiktokConfig,
	transport: Transport,
): Promise<ChunkAttempt> {
	const result = await transport.request(buildRequest(events, config), classifyTiktokResponse, [
		config.accessToken,
	]);
	if (result.ok) {
		const answer = readTiktokAnswer(result.response.data);
		const response = {
			code: answer?.code,
			message: answer?.message,
			request_id: answer?.request_id,
			...(answer?.code === TIKTOK_CODE_PARTIAL_OK && answer.data !== undefined
				? { data: answer.data }
				: {}),
		};
		// UNCONFIRMED: the per-event detail of a partial success (20001) is not documented, so the
		// events are reported as sent (TikTok accepted the request) with TikTok's message attached.
		const warning =
			answer?.code === TIKTOK_CODE_PARTIAL_OK
				? `TikTok accepted the request only in part (code 20001): ${answer.message ?? 'no message'}; which events it dropped is not documented, check Events Manager`
				: undefined;
		return { kind: 'ok', outcomes: events.map(() => ({ status: 'sent', response, warning })) };
	}
	const answer = readTiktokAnswer(result.response?.data);
	const status = result.response?.status ?? 0;
	const outcome: SendOutcome = failedSend(
		result,
		result.response ? { status, ...(answer ?? {}) } : undefined,
		() => describeTiktokError(answer, status),
	);
	const eventLevel =
		result.failure === 'permanent' &&
		result.response !== undefined &&
		!isWholeRequestError(answer, status) &&
		// Without a result code only a 400 or 413 says the events themselves may be the problem.
		(answer ? classifyTiktokCode(answer.code) === 'event' : status === 400 || status === 413);
	return { kind: eventLevel ? 'reject' : 'fail', outcome };
}
