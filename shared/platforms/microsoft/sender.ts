import { joinSentences } from '../../sentences';
import { sendIsolating, type ChunkAttempt } from '../isolate';
import type { SendHooks, SendOutcome } from '../contract';
import type { HttpRequest, Transport } from '../../transport';
import type { MicrosoftConfig } from './config';
import {
	MICROSOFT_CAPI_BASE_URL,
	MICROSOFT_DATA_PROVIDER,
	MICROSOFT_REQUEST_TIMEOUT_MS,
} from './constants';
import {
	classifyMicrosoftResponse,
	describeDetail,
	describeMicrosoftError,
	isWholeRequestStatus,
	MICROSOFT_AUTH_HINT,
	readMicrosoftBody,
	safeError,
	type MicrosoftError,
	type MicrosoftResponseBody,
} from './errors';
import type { MicrosoftEvent } from './payload';
import { failedSend } from '../failure';

export function microsoftEventsUrl(config: Pick<MicrosoftConfig, 'baseUrl' | 'uetTagId'>): string {
	const base = (config.baseUrl || MICROSOFT_CAPI_BASE_URL).trim().replace(/\/+$/, '');
	return `${base}/v1/${encodeURIComponent(config.uetTagId)}/events`;
}

/**
 * The request body, without credentials (the token travels in the Authorization header): what
 * a dry run shows. The one place that decides where the request-level fields go: UNCONFIRMED
 * whether `continueOnValidationError` and `dataProvider` belong at the top level (Stape,
 * walkerOS, and a request body an integrator calls documented) or in each event (Segment); we
 * send them at the top level. `continueOnValidationError: true` makes Microsoft accept the
 * valid events of a batch and list the invalid ones in `error.details`.
 */
export function microsoftRequestBody(
	events: MicrosoftEvent[],
	config: Pick<MicrosoftConfig, 'dataProvider'>,
): Record<string, unknown> {
	const body: Record<string, unknown> = { data: events };
	const dataProvider = config.dataProvider ?? MICROSOFT_DATA_PROVIDER;
	if (dataProvider) body.dataProvider = dataProvider;
	body.continueOnValidationError = true;
	return body;
}

function buildRequest(
	events: MicrosoftEvent[],
	config: MicrosoftConfig,
	timeoutMs = MICROSOFT_REQUEST_TIMEOUT_MS,
): HttpRequest {
	return {
		method: 'POST',
		url: microsoftEventsUrl(config),
		headers: { authorization: `Bearer ${config.apiToken}` },
		body: microsoftRequestBody(events, config),
		timeoutMs,
	};
}

interface EventProblems {
	errors: string[];
	warnings: string[];
}

/** `error.details` grouped by the index of the event they are about (valid indexes only). */
function problemsByIndex(
	error: MicrosoftError | undefined,
	count: number,
): Map<number, EventProblems> {
	const byIndex = new Map<number, EventProblems>();
	for (const detail of error?.details ?? []) {
		const index = detail.index;
		if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
			continue;
		}
		const entry = byIndex.get(index) ?? { errors: [], warnings: [] };
		(detail.isWarning ? entry.warnings : entry.errors).push(describeDetail(detail));
		byIndex.set(index, entry);
	}
	return byIndex;
}

function failedCount(problems: Map<number, EventProblems>): number {
	let n = 0;
	for (const p of problems.values()) if (p.errors.length > 0) n++;
	return n;
}

function traceSuffix(body: MicrosoftResponseBody): string {
	return body.traceId ? ` [traceId ${body.traceId}]` : '';
}

function eventFailure(
	problems: EventProblems,
	index: number,
	body: MicrosoftResponseBody,
	status: number,
): SendOutcome {
	return {
		status: 'failed',
		error: `Microsoft: ${problems.errors.join('; ')}${traceSuffix(body)}`,
		retryable: false,
		response: { status, traceId: body.traceId, error: safeError(body.error, index) },
	};
}

/**
 * Per-event outcomes of an accepted request: events named in `error.details` fail with
 * Microsoft's words for them (never the rejected value), the others are sent, unless Microsoft
 * says it received none of them.
 */
function outcomesFromAck(
	count: number,
	body: MicrosoftResponseBody,
	status: number,
): SendOutcome[] {
	const problems = problemsByIndex(body.error, count);
	const accepted = count - failedCount(problems);
	const notes: string[] = [];
	if (typeof body.eventsReceived === 'number' && body.eventsReceived !== accepted) {
		notes.push(
			`Microsoft acknowledged ${body.eventsReceived} of the ${accepted} events it did not reject in this request`,
		);
	}
	// An error that names no event of this request, on an accepted request: passed on as a note.
	const general = problems.size === 0 ? body.error?.message || body.error?.code : undefined;
	if (general) notes.push(`Microsoft: ${general}`);
	const response = { eventsReceived: body.eventsReceived, traceId: body.traceId };
	// "Received none" on a success status: not recorded as sent, so a re-run sends them again.
	const noneReceived = body.eventsReceived === 0 && accepted > 0;
	return Array.from({ length: count }, (_, i): SendOutcome => {
		const p = problems.get(i);
		if (p && p.errors.length > 0) return eventFailure(p, i, body, status);
		if (noneReceived) {
			return {
				status: 'failed',
				error: `Microsoft answered HTTP ${status} but received none of the ${accepted} events${general ? `: ${general}` : ''}${traceSuffix(body)}`,
				retryable: true,
				response: { status, ...response, error: safeError(body.error) },
			};
		}
		const warnings = [...(p?.warnings ?? []).map((w) => `Microsoft: ${w}`), ...notes];
		return { status: 'sent', response, warning: warnings.length ? warnings.join('; ') : undefined };
	});
}

/**
 * Sends one chunk. Microsoft answers a batch sent with continueOnValidationError with per-event
 * `error.details` (usually on HTTP 200): those events fail, the rest are sent. A 400 that names
 * events fails them and, unless Microsoft says it received the others, resends the others. A
 * 400 that names none splits the chunk until the bad events stand alone (sendIsolating). Token,
 * tag and URL errors and transient failures that outlived their retries fail every event.
 */
export function sendMicrosoftChunk(
	events: MicrosoftEvent[],
	config: MicrosoftConfig,
	transport: Transport,
	hooks?: SendHooks,
): Promise<SendOutcome[]> {
	return sendIsolating(events, (chunk) => attemptMicrosoft(chunk, config, transport), hooks);
}

async function attemptMicrosoft(
	events: MicrosoftEvent[],
	config: MicrosoftConfig,
	transport: Transport,
): Promise<ChunkAttempt> {
	const result = await transport.request(buildRequest(events, config), classifyMicrosoftResponse, [
		config.apiToken,
	]);
	if (result.ok) {
		const body = readMicrosoftBody(result.response.data);
		return { kind: 'ok', outcomes: outcomesFromAck(events.length, body, result.response.status) };
	}
	const status = result.response?.status ?? 0;
	const body = readMicrosoftBody(result.response?.data);
	const response = result.response
		? { status, traceId: body.traceId, error: safeError(body.error) }
		: undefined;
	if (result.failure === 'retryable' || !result.response) {
		// A transient failure that outlived its retries, or no answer at all: said as it happened.
		const outcome: SendOutcome = failedSend(result, response);
		return { kind: 'fail', outcome };
	}
	if (isWholeRequestStatus(status)) {
		const hint = status === 404 ? 'Check the UET tag ID and the Base URL' : MICROSOFT_AUTH_HINT;
		const outcome: SendOutcome = {
			status: 'failed',
			error: joinSentences(describeMicrosoftError(body, status), hint),
			retryable: false,
			response,
		};
		return { kind: 'fail', outcome };
	}
	const problems = problemsByIndex(body.error, events.length);
	if (failedCount(problems) === 0) {
		const outcome: SendOutcome = {
			status: 'failed',
			error: describeMicrosoftError(body, status),
			retryable: false,
			response,
		};
		return { kind: 'reject', outcome };
	}
	// The request was refused but names its bad events: they fail; the others either were
	// received (Microsoft says so) or go again without them.
	const outcomes: SendOutcome[] = new Array(events.length);
	const others: number[] = [];
	events.forEach((_, i) => {
		const p = problems.get(i);
		if (p && p.errors.length > 0) outcomes[i] = eventFailure(p, i, body, status);
		else others.push(i);
	});
	if (others.length > 0) {
		if ((body.eventsReceived ?? 0) > 0) {
			const sent: SendOutcome = {
				status: 'sent',
				response: { eventsReceived: body.eventsReceived, traceId: body.traceId },
			};
			for (const i of others) outcomes[i] = sent;
		} else {
			const resent = await sendMicrosoftChunk(
				others.map((i) => events[i]),
				config,
				transport,
			);
			others.forEach((i, k) => (outcomes[i] = resent[k]));
		}
	}
	return { kind: 'ok', outcomes };
}

export interface CredentialProbeResult {
	ok: boolean;
	message: string;
}

/**
 * The credential test. Microsoft documents no read-only endpoint for the UET Conversions API,
 * so the probe is the events endpoint with an empty batch: it cannot record a conversion. 401
 * or 403 means the token (or its tag) is refused; 404 a wrong tag ID or Base URL; 2xx or 400
 * (the empty batch refused as invalid) means the request got past authentication.
 * UNCONFIRMED that Microsoft authenticates before it validates the body.
 */
export async function probeMicrosoftCredential(
	config: Pick<MicrosoftConfig, 'uetTagId' | 'apiToken' | 'baseUrl'>,
	transport: Transport,
): Promise<CredentialProbeResult> {
	const uetTagId = config.uetTagId.trim();
	if (!uetTagId) return { ok: false, message: 'The UET Tag ID is empty' };
	if (!config.apiToken) return { ok: false, message: 'The API token is empty' };
	if (config.apiToken.trim() !== config.apiToken) {
		return {
			ok: false,
			message: 'The API token starts or ends with spaces; paste the auth key exactly as shown',
		};
	}
	const result = await transport.request(
		{
			method: 'POST',
			url: microsoftEventsUrl({ ...config, uetTagId }),
			headers: { authorization: `Bearer ${config.apiToken}` },
			body: microsoftRequestBody([], {}),
			timeoutMs: 10_000,
		},
		classifyMicrosoftResponse,
		[config.apiToken],
	);
	const status = result.response?.status ?? 0;
	if (result.ok || status === 400) {
		return {
			ok: true,
			message: `Microsoft accepted the API token for UET tag ${uetTagId} (probe with an empty batch, HTTP ${status}: nothing was recorded)`,
		};
	}
	if (result.response && isWholeRequestStatus(status)) {
		const body = readMicrosoftBody(result.response.data);
		const hint = status === 404 ? 'Check the UET tag ID and the Base URL' : MICROSOFT_AUTH_HINT;
		return { ok: false, message: joinSentences(describeMicrosoftError(body, status), hint) };
	}
	return { ok: false, message: `Could not verify the credential: ${result.message}` };
}
