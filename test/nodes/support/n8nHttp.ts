import axios, { type AxiosRequestConfig } from 'axios';
import {
	ExecutionBaseError,
	NodeApiError,
	type IAuthenticateGeneric,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type INode,
	type JsonObject,
} from 'n8n-workflow';
import { credentialType } from './credentials';

/**
 * n8n's `helpers.httpRequest`, as a real HTTP call with n8n's documented option semantics (read
 * from n8n's convertN8nRequestToAxios / httpRequest): url + baseURL, method (GET by default), qs,
 * headers, body (an object is sent as JSON, a URLSearchParams or an x-www-form-urlencoded content
 * type as a form; no body on GET), json (Accept: application/json unless set), timeout,
 * encoding, ignoreHttpStatusErrors (else a non-2xx throws axios's error, as n8n lets it) and
 * returnFullResponse ({ body, headers, statusCode, statusMessage }). No proxy, User-Agent n8n.
 */
export async function n8nHttpRequest(
	options: IHttpRequestOptions,
): Promise<IN8nHttpFullResponse | unknown> {
	const method = (options.method ?? 'GET').toUpperCase();
	const headers: Record<string, string> = { ...(options.headers as Record<string, string>) };
	const has = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);
	const config: AxiosRequestConfig = {
		url: options.url,
		baseURL: options.baseURL,
		method,
		headers,
		params: options.qs,
		paramsSerializer: flatQueryString,
		timeout: options.timeout ?? 300_000,
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
		proxy: false,
	};
	config.data = requestBody(options.body, headers, has('content-type'));
	if (config.data === undefined || method === 'GET') delete config.data;
	if (options.json && !has('accept')) headers.Accept = 'application/json';
	if (!has('user-agent')) headers['User-Agent'] = 'n8n';
	if (options.encoding !== undefined) config.responseType = options.encoding;
	// n8n 2.x also takes { except: [statuses] }; 1.x only a boolean.
	const ignore = options.ignoreHttpStatusErrors as boolean | { except: number[] } | undefined;
	if (ignore) {
		config.validateStatus =
			typeof ignore === 'object' ? (status) => !ignore.except.includes(status) : () => true;
	}
	const res = await axios.request(config);
	if (!options.returnFullResponse) return res.data;
	return {
		body: res.data,
		headers: res.headers as IDataObject,
		statusCode: res.status,
		statusMessage: res.statusText,
	};
}

/** n8n serializes qs with the qs library (indices); flat values are all our nodes send. */
function flatQueryString(params: Record<string, unknown>): string {
	const search = new URLSearchParams();
	for (const [key, value] of Object.entries(params ?? {})) {
		if (value === undefined) continue;
		if (typeof value === 'object' && value !== null) {
			throw new Error(`mocked httpRequest: nested qs value "${key}" is not supported here`);
		}
		search.append(key, String(value));
	}
	return search.toString();
}

function requestBody(
	body: IHttpRequestOptions['body'],
	headers: Record<string, string>,
	hasContentType: boolean,
): unknown {
	if (body === undefined || body === null) return undefined;
	if (body instanceof URLSearchParams) {
		if (!hasContentType) headers['Content-Type'] = 'application/x-www-form-urlencoded';
		return body;
	}
	const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
	if (type === 'application/x-www-form-urlencoded' && typeof body === 'object') {
		return new URLSearchParams(body as Record<string, string>);
	}
	if (typeof body === 'string') return body;
	if (typeof body === 'object' && Object.keys(body).length === 0) return undefined;
	return body;
}

/** `={{$credentials.name}}` inside a text, as generic credential authentication writes it. */
function resolveCredentialText(
	value: unknown,
	credentials: ICredentialDataDecryptedObject,
): unknown {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	const resolved = value
		.slice(1)
		.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_m, name) => String(credentials[name] ?? ''));
	if (resolved.includes('{{')) {
		throw new Error(`mocked authentication: unsupported expression ${value}`);
	}
	return resolved;
}

function applyGeneric(
	auth: IAuthenticateGeneric,
	credentials: ICredentialDataDecryptedObject,
	options: IHttpRequestOptions,
): IHttpRequestOptions {
	const out: IHttpRequestOptions = { ...options };
	for (const part of ['headers', 'qs', 'body'] as const) {
		const add = auth.properties[part];
		if (!add) continue;
		const resolved = Object.fromEntries(
			Object.entries(add).map(([k, v]) => [k, resolveCredentialText(v, credentials)]),
		);
		out[part] = { ...((options[part] as IDataObject) ?? {}), ...resolved } as never;
	}
	return out;
}

/** Signs a request the way n8n does for this credential type. */
async function authenticate(
	typeName: string,
	credentials: ICredentialDataDecryptedObject,
	options: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const type = credentialType(typeName);
	if (type.extends?.includes('oAuth2Api')) {
		// n8n's requestOAuth2: an authorization-code credential must be connected, then Bearer.
		const token = credentials.oauthTokenData as { access_token?: string } | undefined;
		if (!token) throw new Error('OAuth credentials not connected');
		return {
			...options,
			headers: { ...options.headers, Authorization: `Bearer ${token.access_token}` },
		};
	}
	const auth = type.authenticate;
	if (typeof auth === 'function') return auth(credentials, options);
	if (auth && auth.type === 'generic') return applyGeneric(auth, credentials, options);
	return options;
}

/**
 * n8n's `helpers.httpRequestWithAuthentication`: the credential's own authenticate (a function,
 * generic properties, or OAuth2's bearer token) applied, then httpRequest; any failure comes out
 * as n8n wraps it, a NodeApiError (n8n's own errors pass as they are).
 */
export async function n8nHttpRequestWithAuthentication(
	node: INode,
	getCredentials: (type: string) => Promise<ICredentialDataDecryptedObject>,
	typeName: string,
	options: IHttpRequestOptions,
): Promise<unknown> {
	try {
		const credentials = await getCredentials(typeName);
		return await n8nHttpRequest(await authenticate(typeName, credentials, options));
	} catch (error) {
		if (error instanceof ExecutionBaseError) throw error;
		throw new NodeApiError(node, error as JsonObject);
	}
}
