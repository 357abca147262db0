import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { HttpExecutor, HttpResponse } from '../../shared';
import {
	isAccessTokenRejection,
	normalizeCustomerId,
	readRpcError,
	type GoogleAdsConnection,
} from '../../shared/platforms/google';
import { asTransportError, n8nAttempt, type Attempt } from '../common/n8nExecutor';

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
 * One HTTP attempt through n8n's request helper signed with the OAuth2 credential (the common
 * `n8nAttempt`: proxies, timeouts, network error codes; the core transport does retries, the
 * error map and scrubbing). n8n refreshes an OAuth2 token only when a request *throws* a 401, which
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

	const attempt = (request: Attempt, ignoreHttpStatusErrors: boolean) =>
		n8nAttempt(ctx, request, { credentialName, ignoreHttpStatusErrors });

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
