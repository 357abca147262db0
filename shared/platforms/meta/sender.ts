import { sendIsolating, type ChunkAttempt } from '../isolate';
import type { SendHooks, SendOutcome } from '../contract';
import type { HttpRequest, Transport } from '../../transport';
import type { MetaConfig } from './config';
import {
	META_DEFAULT_API_VERSION,
	META_DEFAULT_PARTNER_AGENT,
	META_GRAPH_BASE_URL,
	META_REQUEST_TIMEOUT_MS,
} from './constants';
import {
	classifyMetaResponse,
	describeGraphError,
	isWholeRequestError,
	readGraphError,
} from './errors';
import type { MetaServerEvent } from './payload';
import { appSecretProof } from './proof';
import { failedSend } from '../failure';

export function metaEventsUrl(config: MetaConfig): string {
	const base = (config.baseUrl || META_GRAPH_BASE_URL).replace(/\/+$/, '');
	const version = (config.apiVersion || META_DEFAULT_API_VERSION).replace(/^\/+|\/+$/g, '');
	return `${base}/${version}/${encodeURIComponent(config.pixelId)}/events`;
}

/** The request body without credentials: what a dry run shows. */
export function metaRequestBody(
	events: MetaServerEvent[],
	config: MetaConfig,
): Record<string, unknown> {
	const body: Record<string, unknown> = { data: events };
	if (config.testEventCode) body.test_event_code = config.testEventCode;
	const partnerAgent = config.partnerAgent ?? META_DEFAULT_PARTNER_AGENT;
	if (partnerAgent) body.partner_agent = partnerAgent;
	return body;
}

function secretsOf(config: MetaConfig): string[] {
	const secrets = [config.accessToken];
	if (config.appSecret) {
		secrets.push(config.appSecret, appSecretProof(config.accessToken, config.appSecret));
	}
	return secrets;
}

function buildRequest(events: MetaServerEvent[], config: MetaConfig): HttpRequest {
	// The token travels in the JSON body (as the official SDK does), never in the URL, so it
	// cannot end up in proxy or gateway access logs.
	const body: Record<string, unknown> = {
		...metaRequestBody(events, config),
		access_token: config.accessToken,
	};
	if (config.appSecret) body.appsecret_proof = appSecretProof(config.accessToken, config.appSecret);
	return { method: 'POST', url: metaEventsUrl(config), body, timeoutMs: META_REQUEST_TIMEOUT_MS };
}

interface MetaAck {
	events_received?: number;
	messages?: unknown[];
	fbtrace_id?: string;
}

/**
 * Sends one chunk. Meta rejects a whole batch for one invalid event, so an invalid-parameter
 * error splits the chunk until the bad events stand alone (sendIsolating): the valid ones land,
 * each bad one fails with Meta's own message. Errors about the request as a whole (token,
 * permissions) and transient failures that outlived their retries fail every event.
 */
export function sendMetaChunk(
	events: MetaServerEvent[],
	config: MetaConfig,
	transport: Transport,
	hooks?: SendHooks,
): Promise<SendOutcome[]> {
	return sendIsolating(events, (chunk) => attemptMeta(chunk, config, transport), hooks);
}

async function attemptMeta(
	events: MetaServerEvent[],
	config: MetaConfig,
	transport: Transport,
): Promise<ChunkAttempt> {
	const result = await transport.request(
		buildRequest(events, config),
		classifyMetaResponse,
		secretsOf(config),
	);
	if (result.ok) {
		const ack = (result.response.data ?? {}) as MetaAck;
		const response = {
			events_received: ack.events_received,
			fbtrace_id: ack.fbtrace_id,
			...(ack.messages && ack.messages.length ? { messages: ack.messages } : {}),
		};
		const warning =
			typeof ack.events_received === 'number' && ack.events_received !== events.length
				? `Meta acknowledged ${ack.events_received} of the ${events.length} events in this request`
				: undefined;
		return { kind: 'ok', outcomes: events.map(() => ({ status: 'sent', response, warning })) };
	}
	const graphError = readGraphError(result.response?.data);
	const status = result.response?.status ?? 0;
	const outcome: SendOutcome = failedSend(
		result,
		result.response ? { status, error: graphError } : undefined,
		() => describeGraphError(graphError, status),
	);
	const eventLevel =
		result.failure === 'permanent' && status >= 400 && status < 500 && !isWholeRequestError(graphError);
	return { kind: eventLevel ? 'reject' : 'fail', outcome };
}
