import type {
	ICredentialTestFunctions,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { lowerCaseHeaders, type HttpExecutor, type HttpRequest, type HttpResponse } from '../../shared';

/** One attempt as the core transport hands it to an executor. */
export type Attempt = HttpRequest & { timeoutMs: number };

export interface N8nAttemptOptions {
	/**
	 * The credential n8n signs the request with (`httpRequestWithAuthentication`, e.g. OAuth2);
	 * unset: the request carries its own authorization (`httpRequest`).
	 */
	credentialName?: string;
	/**
	 * `true` (default): any HTTP status comes back as a response, for the platform's error map.
	 * `false`: n8n throws on an error status (so its own OAuth2 refresh-on-401 runs).
	 */
	ignoreHttpStatusErrors?: boolean;
}

/**
 * The response n8n threw, when it had one (its NodeApiError keeps the status in `httpCode` and
 * the body in `context.data`).
 */
function responseFromError(error: unknown): HttpResponse | undefined {
	const e = error as { httpCode?: unknown; context?: { data?: unknown } };
	const status = Number(e?.httpCode);
	if (!Number.isInteger(status) || status < 100 || status > 599) return undefined;
	return { status, headers: {}, data: e.context?.data ?? null };
}

/**
 * What n8n threw without a response, as the core transport understands it: a plain Error with
 * the Node-style code (ECONNRESET, ETIMEDOUT, ECONNABORTED…) it classifies and retries, and the
 * original message (which it scrubs). Nothing else of n8n's error is kept: an axios error carries
 * the request's headers, tokens included.
 */
export function asTransportError(error: unknown): Error {
	const e = error as { httpCode?: unknown; code?: unknown; message?: unknown; messages?: unknown };
	const code = [e?.httpCode, e?.code].find(
		(c): c is string => typeof c === 'string' && /^[A-Z][A-Z0-9_]+$/.test(c),
	);
	const original = Array.isArray(e?.messages) && e.messages[0] ? e.messages[0] : e?.message;
	return Object.assign(new Error(String(original ?? error)), code ? { code } : {});
}

function n8nOptions(request: Attempt, ignoreStatus: boolean): IHttpRequestOptions {
	return {
		method: request.method,
		url: request.url,
		qs: request.params,
		headers: { 'content-type': 'application/json', ...request.headers },
		body: request.body as IHttpRequestOptions['body'],
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: ignoreStatus,
		// n8n's redirect following would resend a platform's POST elsewhere; axios's default did not.
		disableFollowRedirect: true,
		timeout: request.timeoutMs,
	};
}

/**
 * One HTTP attempt through n8n's request helper: n8n's proxy settings (HTTP_PROXY, HTTPS_PROXY,
 * NO_PROXY), its SSRF rules where it has them, and its signing when `credentialName` is given.
 * Retries, classification and secret scrubbing stay in the core transport.
 */
export async function n8nAttempt(
	ctx: IExecuteFunctions,
	request: Attempt,
	{ credentialName, ignoreHttpStatusErrors = true }: N8nAttemptOptions = {},
): Promise<HttpResponse> {
	const options = n8nOptions(request, ignoreHttpStatusErrors);
	try {
		const response = (
			credentialName
				? await ctx.helpers.httpRequestWithAuthentication.call(ctx, credentialName, options)
				: await ctx.helpers.httpRequest.call(ctx, options)
		) as IN8nHttpFullResponse;
		return {
			status: response.statusCode,
			headers: lowerCaseHeaders(response.headers),
			data: response.body,
		};
	} catch (error) {
		const response = responseFromError(error);
		if (response) return response;
		throw asTransportError(error);
	}
}

/** The executor every sender uses inside n8n (one attempt per call, see `n8nAttempt`). */
export function n8nExecutor(ctx: IExecuteFunctions, options: N8nAttemptOptions = {}): HttpExecutor {
	return (request) => n8nAttempt(ctx, request, options);
}

/**
 * The executor of a credential test: n8n gives credential tests only its legacy `request`
 * helper, which goes through the same proxy handling as `httpRequest`. `simple: false` returns
 * any status; `resolveWithFullResponse` the status and headers with the body.
 */
export function credentialTestExecutor(ctx: ICredentialTestFunctions): HttpExecutor {
	return async (request) => {
		try {
			const response = (await ctx.helpers.request({
				method: request.method,
				uri: request.url,
				qs: request.params,
				headers: { 'content-type': 'application/json', ...request.headers },
				body: request.body,
				json: true,
				simple: false,
				resolveWithFullResponse: true,
				followRedirect: false,
				timeout: request.timeoutMs,
			})) as { statusCode: number; headers?: unknown; body?: unknown };
			return {
				status: response.statusCode,
				headers: lowerCaseHeaders(response.headers),
				data: response.body ?? null,
			};
		} catch (error) {
			throw asTransportError(error);
		}
	};
}
