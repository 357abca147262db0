import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { HttpExecutor, HttpRequest, HttpResponse } from '../../shared';
import {
	isAccessTokenRejection,
	normalizeCustomerId,
	readRpcError,
	type GoogleAdsConnection,
} from '../../shared/platforms/google';

export const GOOGLE_ADS_CREDENTIAL = 'leadCapiGoogleAdsOAuth2Api';

/** The connection settings of the credential (the OAuth2 token itself stays n8n's business). */
export function readConnection(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	credentials: ICredentialDataDecryptedObject,
): GoogleAdsConnection {
	const developerToken = String(credentials.developerToken ?? '').trim();
	if (!developerToken) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The Google Ads Conversions credential needs a Developer Token (Google Ads → Tools → API Center)',
		);
	}
	const rawLogin = String(credentials.loginCustomerId ?? '').trim();
	const loginCustomerId = rawLogin ? normalizeCustomerId(rawLogin) : undefined;
	if (loginCustomerId === null) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The Login Customer ID of the Google Ads Conversions credential must be a manager account ID: 10 digits, dashes allowed',
		);
	}
	return {
		developerToken,
		loginCustomerId,
		apiVersion: credentials.apiVersion ? String(credentials.apiVersion).trim() : undefined,
		baseUrl: credentials.baseUrl ? String(credentials.baseUrl).trim() : undefined,
		oauthSecrets: oauthSecrets(credentials),
	};
}

/**
 * The credential's OAuth2 values (tokens n8n signs requests with, the client secret it refreshes
 * them with): an error body echoing one must not carry it into an output or a log.
 */
export function oauthSecrets(credentials: ICredentialDataDecryptedObject): string[] {
	const token = (credentials.oauthTokenData ?? {}) as Record<string, unknown>;
	return [token.access_token, token.refresh_token, token.id_token, credentials.clientSecret].filter(
		(value): value is string => typeof value === 'string' && value !== '',
	);
}

function lowerHeaders(headers: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	if (headers && typeof headers === 'object') {
		for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
			if (value !== undefined && value !== null) out[key.toLowerCase()] = String(value);
		}
	}
	return out;
}

/**
 * What n8n threw, as the core transport understands failures: a response when n8n had one (its
 * NodeApiError keeps the status in `httpCode` and the body in `context.data`), else an Error
 * with the Node-style code (ECONNRESET, ETIMEDOUT…) the transport classifies and retries.
 * A NodeApiError would hide that code; this error never reaches the n8n UI as such, the
 * transport turns it into the item's error.
 */
function responseFromError(error: unknown): HttpResponse | undefined {
	const e = error as { httpCode?: unknown; context?: { data?: unknown } };
	const status = Number(e?.httpCode);
	if (!Number.isInteger(status) || status < 100 || status > 599) return undefined;
	return { status, headers: {}, data: e.context?.data ?? null };
}

function asTransportError(error: unknown): Error {
	const e = error as { httpCode?: unknown; code?: unknown; message?: unknown; messages?: unknown };
	const code = [e?.httpCode, e?.code].find(
		(c): c is string => typeof c === 'string' && /^[A-Z][A-Z0-9_]+$/.test(c),
	);
	const original = Array.isArray(e?.messages) && e.messages[0] ? e.messages[0] : e?.message;
	return Object.assign(new Error(String(original ?? error)), code ? { code } : {});
}

function n8nOptions(
	request: HttpRequest & { timeoutMs: number },
	ignoreStatus: boolean,
): IHttpRequestOptions {
	return {
		method: request.method,
		url: request.url,
		qs: request.params,
		headers: { 'content-type': 'application/json', ...request.headers },
		body: request.body as IHttpRequestOptions['body'],
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: ignoreStatus,
		timeout: request.timeoutMs,
	};
}

/** Google's 401 with the reason n8n could not refresh the token added to its message. */
function withRefreshFailure(response: HttpResponse, reason: string): HttpResponse {
	const rpc = readRpcError(response.data) ?? { code: 401, status: 'UNAUTHENTICATED' };
	return {
		...response,
		data: {
			error: {
				...rpc,
				message: `${rpc.message ?? 'HTTP 401'} n8n could not refresh the OAuth2 access token (${reason}); reconnect the Google Ads Conversions credential.`,
			},
		},
	};
}

/**
 * One HTTP attempt through n8n's OAuth2 handling (the core transport does retries, the error map
 * and scrubbing). n8n refreshes an OAuth2 token only when a request *throws* a 401, which
 * `ignoreHttpStatusErrors` (needed to keep Retry-After headers and Google's error bodies) turns
 * off; so on a 401 about the token this executor refreshes it once per run with
 * `helpers.refreshOAuth2Token` (n8n stores the new token) and repeats the request once. Where
 * n8n lacks that helper, the request is repeated without `ignoreHttpStatusErrors`, so n8n's own
 * refresh-on-401 runs.
 */
export function googleAdsExecutor(
	ctx: IExecuteFunctions,
	credentialName: string = GOOGLE_ADS_CREDENTIAL,
): HttpExecutor {
	let refresh: Promise<string | undefined> | undefined;

	const attempt = async (
		request: HttpRequest & { timeoutMs: number },
		ignoreStatus: boolean,
	): Promise<HttpResponse> => {
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				credentialName,
				n8nOptions(request, ignoreStatus),
			)) as IN8nHttpFullResponse;
			return {
				status: response.statusCode,
				headers: lowerHeaders(response.headers),
				data: response.body,
			};
		} catch (error) {
			const response = responseFromError(error);
			if (response) return response;
			throw asTransportError(error);
		}
	};

	/** Resolves to why the refresh failed, or undefined when n8n stored a new token. */
	const refreshToken = async (): Promise<string | undefined> => {
		try {
			await ctx.helpers.refreshOAuth2Token!.call(ctx, credentialName);
			return undefined;
		} catch (error) {
			return asTransportError(error).message;
		}
	};

	return async (request) => {
		const first = await attempt(request, true);
		if (!isAccessTokenRejection(first)) return first;
		if (typeof ctx.helpers.refreshOAuth2Token !== 'function') return attempt(request, false);
		refresh ??= refreshToken();
		const failure = await refresh;
		if (failure) return withRefreshFailure(first, failure);
		return attempt(request, true);
	};
}
