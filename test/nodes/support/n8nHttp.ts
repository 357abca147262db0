import axios, { type AxiosRequestConfig } from 'axios';
import {
	ExecutionBaseError,
	NodeApiError,
	type IAuthenticateGeneric,
	type ICredentialTestFunctions,
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

/**
 * n8n's legacy `helpers.request`, the only HTTP helper n8n gives a credential test, as a real
 * HTTP call with the semantics of n8n's proxyRequestToAxios / parseRequestObject for the options
 * our nodes use: uri (or url), method, qs, headers, body (sent as JSON), json (Accept:
 * application/json and a parsed answer; otherwise the text), timeout, followRedirect (redirects
 * only for GET), simple (default true: a non-2xx throws axios's error with `statusCode`; false:
 * any status resolves) and resolveWithFullResponse ({ body, headers, statusCode, statusMessage };
 * an empty body is undefined). No proxy.
 */
export async function n8nLegacyRequest(
	uriOrObject: string | IDataObject,
	options: IDataObject = {},
) {
	const o: IDataObject =
		typeof uriOrObject === 'string' ? { uri: uriOrObject, ...options } : uriOrObject;
	const method = String(o.method ?? 'GET').toUpperCase();
	const headers: Record<string, string> = { ...(o.headers as Record<string, string>) };
	const has = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);
	if (o.json === true && !has('accept')) headers.Accept = 'application/json';
	if (!has('accept')) headers.accept = '*/*';
	if (o.body !== undefined && o.json !== false && !has('content-type')) {
		headers['content-type'] = 'application/json';
	}
	const qs = o.qs as Record<string, unknown> | undefined;
	const config: AxiosRequestConfig = {
		url: String(o.uri ?? o.url),
		method,
		headers,
		params: qs && Object.keys(qs).length > 0 ? qs : undefined,
		paramsSerializer: flatQueryString,
		data: o.body,
		timeout: o.timeout as number | undefined,
		maxRedirects: o.followRedirect !== false && method === 'GET' ? undefined : 0,
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
		proxy: false,
		...(o.json === true ? {} : { transformResponse: (res: unknown) => res }),
		...(o.simple === false ? { validateStatus: () => true } : {}),
	};
	try {
		const res = await axios.request(config);
		const body = res.data === '' ? undefined : res.data;
		return o.resolveWithFullResponse
			? { body, headers: { ...res.headers }, statusCode: res.status, statusMessage: res.statusText }
			: body;
	} catch (error) {
		const response = (error as { response?: { status: number; data: unknown } }).response;
		if (response)
			Object.assign(error as object, { statusCode: response.status, error: response.data });
		throw error;
	}
}

/** What n8n gives a credential test function as `this` (its helpers and logger). */
export function credentialTestContext(): ICredentialTestFunctions {
	const quiet = () => undefined;
	return {
		helpers: { request: n8nLegacyRequest },
		logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
	} as unknown as ICredentialTestFunctions;
}
