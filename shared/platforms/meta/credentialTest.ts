import { joinSentences } from '../../sentences';
import type { Transport } from '../../transport';
import type { MetaConfig } from './config';
import { META_DEFAULT_API_VERSION, META_GRAPH_BASE_URL } from './constants';
import { classifyMetaResponse, readGraphError, type MetaGraphError } from './errors';
import { appSecretProof } from './proof';

export type MetaCredentials = Pick<
	MetaConfig,
	'pixelId' | 'accessToken' | 'appSecret' | 'apiVersion' | 'baseUrl'
>;

/** What to check in the credential for Meta's usual refusals (platforms.md §1 error codes). */
function metaAdvice(error: MetaGraphError | undefined, status: number): string {
	const code = error?.code;
	if (code === 190 || code === 102) {
		return 'Check the Access Token (Events Manager → Settings → Generate access token).';
	}
	if (code === 100 && /appsecret_proof/i.test(error?.message ?? '')) {
		return 'Check the App Secret (or leave it empty when the app does not require it).';
	}
	if (code === 100 || code === 803 || status === 404) {
		return 'Check the Dataset (Pixel) ID and the Graph API Version, and that the token may read this dataset.';
	}
	if (code === 10 || (code !== undefined && code >= 200 && code <= 299)) {
		return 'The token lacks permission on this dataset: give its user or system user access to it in Business Settings.';
	}
	return '';
}

/**
 * The credential test: reads the dataset (GET /{version}/{dataset}?fields=id,name) with the
 * token, which proves the token, the App Secret, the version and the dataset ID at once and
 * records nothing. A refusal is reported in Meta's own words (message, code, subcode,
 * fbtrace_id) followed by what to check.
 */
export async function testMetaCredentials(
	credentials: MetaCredentials,
	transport: Transport,
): Promise<{ ok: boolean; message: string }> {
	const pixelId = credentials.pixelId.trim();
	if (!/^\d+$/.test(pixelId)) {
		return {
			ok: false,
			message:
				'The Dataset (Pixel) ID must be the digits shown in Events Manager under the dataset name',
		};
	}
	const token = credentials.accessToken;
	if (!token) return { ok: false, message: 'The Access Token is empty' };
	if (token.trim() !== token) {
		return {
			ok: false,
			message: 'The Access Token starts or ends with spaces; paste it exactly as generated',
		};
	}
	const base = (credentials.baseUrl || META_GRAPH_BASE_URL).replace(/\/+$/, '');
	const version = (credentials.apiVersion || META_DEFAULT_API_VERSION).replace(/^\/+|\/+$/g, '');
	const params: Record<string, string> = { fields: 'id,name', access_token: token };
	const secrets = [token];
	if (credentials.appSecret) {
		params.appsecret_proof = appSecretProof(token, credentials.appSecret);
		secrets.push(credentials.appSecret, params.appsecret_proof);
	}
	const result = await transport.request(
		{
			method: 'GET',
			url: `${base}/${version}/${encodeURIComponent(pixelId)}`,
			params,
			timeoutMs: 10_000,
		},
		classifyMetaResponse,
		secrets,
	);
	if (result.ok) {
		const data = result.response.data as { name?: unknown } | undefined;
		const name = typeof data?.name === 'string' && data.name ? ` ("${data.name}")` : '';
		return { ok: true, message: `Meta accepted the token for dataset ${pixelId}${name}` };
	}
	const advice = result.response
		? metaAdvice(readGraphError(result.response.data), result.response.status)
		: '';
	return { ok: false, message: joinSentences(result.message, advice) };
}
