import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { lowerCaseHeaders } from './headers';

export interface HttpRequest {
	method: 'GET' | 'POST';
	url: string;
	params?: Record<string, string>;
	headers?: Record<string, string>;
	/** Serialized as JSON. */
	body?: unknown;
	timeoutMs?: number;
}

export interface HttpResponse {
	status: number;
	headers: Record<string, string>;
	data: unknown;
}

/**
 * Performs one HTTP attempt and returns the response whatever its status; throws only when no
 * response came (network error, timeout), ideally with a Node-style `code` (ECONNRESET,
 * ETIMEDOUT…). The default executor is `httpExecutor` below (no proxy: for using the core on its
 * own); inside n8n every node passes n8n's request helper instead (n8n's proxy settings, OAuth2
 * signing and refresh), while retries, classification and scrubbing stay in the Transport.
 */
export type HttpExecutor = (request: HttpRequest & { timeoutMs: number }) => Promise<HttpResponse>;

/** Largest response body read (a platform's answer to one batch is a few KB). */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** Largest request body sent (a batch of 1,000 events is well under 10 MB). */
const MAX_REQUEST_BYTES = 50 * 1024 * 1024;

let agents: { http: http.Agent; https: https.Agent } | undefined;

/**
 * One keep-alive agent per protocol and process, shared by every Transport, so connections to
 * a platform are reused across items, chunks and executions.
 */
function sharedAgents(): { http: http.Agent; https: https.Agent } {
	agents ??= {
		http: new http.Agent({ keepAlive: true, maxSockets: 16 }),
		https: new https.Agent({ keepAlive: true, maxSockets: 16 }),
	};
	return agents;
}

/** An Error with a Node-style code, as the transport classifies it. */
function failure(message: string, code: string): Error {
	return Object.assign(new Error(message), { code });
}

/** `url` with `params` appended to its query string (undefined values left out). */
function withParams(url: string, params: HttpRequest['params']): string {
	if (!params) return url;
	const query = new URLSearchParams();
	for (const [key, value] of Object.entries(params)) if (value !== undefined) query.append(key, value);
	const text = query.toString();
	return text === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${text}`;
}

/** The response body decoded as sent (gzip, deflate and br too, should a server send them unasked). */
function decoded(res: http.IncomingMessage): Readable {
	const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
	if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(zlib.createGunzip());
	if (encoding === 'deflate') return res.pipe(zlib.createInflate());
	if (encoding === 'br') return res.pipe(zlib.createBrotliDecompress());
	return res;
}

/** A body as the platforms answer it: JSON parsed, else the text as it came ('' when empty). */
function parsedBody(chunks: Buffer[]): unknown {
	let text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	if (text === '') return text;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

/**
 * The largest piece of a request body serialized at once: below V8's large-object size
 * (128 KB), so a 1,000-event body is a few young strings that die with the request, not one
 * string of a megabyte in the large-object space, which only a full garbage collection frees.
 */
const BODY_PIECE = 64 * 1024;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	value !== null &&
	typeof value === 'object' &&
	[Object.prototype, null].includes(Object.getPrototypeOf(value)) &&
	!('toJSON' in value);

/**
 * `JSON.stringify(body)`, in pieces of about BODY_PIECE: a plain object's array members (the
 * platforms' `data`, `conversions`…) element by element, anything else as JSON.stringify writes it.
 */
export function jsonPieces(body: unknown): string[] {
	if (!isPlainObject(body)) return [JSON.stringify(body)];
	const pieces: string[] = [];
	let piece = '{';
	let members = 0;
	const add = (json: string) => {
		piece += json;
		if (piece.length < BODY_PIECE) return;
		pieces.push(piece);
		piece = '';
	};
	for (const key of Object.keys(body)) {
		const value = body[key];
		const whole = Array.isArray(value) ? undefined : JSON.stringify(value);
		if (!Array.isArray(value) && whole === undefined) continue;
		add(`${members++ === 0 ? '' : ','}${JSON.stringify(key)}:`);
		if (whole !== undefined) {
			add(whole);
			continue;
		}
		const list = value as unknown[];
		add('[');
		// Every index, holes too (JSON.stringify writes null for a hole, as for undefined).
		for (let i = 0; i < list.length; i++) add(`${i === 0 ? '' : ','}${JSON.stringify(list[i]) ?? 'null'}`);
		add(']');
	}
	pieces.push(`${piece}}`);
	return pieces;
}

/** The response read whole: the status, the headers, the body as parsedBody gives it. */
function readResponse(
	req: http.ClientRequest,
	res: http.IncomingMessage,
	resolve: (response: HttpResponse) => void,
	reject: (error: Error) => void,
): void {
	const chunks: Buffer[] = [];
	let size = 0;
	res.on('aborted', () => reject(failure('stream has been aborted', 'ERR_BAD_RESPONSE')));
	const stream = decoded(res);
	stream.on('data', (chunk: Buffer) => {
		size += chunk.length;
		if (size > MAX_RESPONSE_BYTES) {
			reject(failure(`maxContentLength size of ${MAX_RESPONSE_BYTES} exceeded`, 'ERR_BAD_RESPONSE'));
			req.destroy();
			return;
		}
		chunks.push(chunk);
	});
	stream.on('error', reject);
	stream.on('end', () =>
		resolve({ status: res.statusCode ?? 0, headers: lowerCaseHeaders(res.headers), data: parsedBody(chunks) }),
	);
}

/**
 * The default executor: one request with Node's own http / https and the shared keep-alive
 * agents. Any status comes back as a response (the platform's error map classifies it);
 * redirects are not followed; no proxy (for the core on its own: inside n8n the nodes pass n8n's
 * request helper instead). `timeoutMs` bounds the wait for the response to start and every
 * silence after it (`timeout of <ms>ms exceeded`, ECONNABORTED); network errors keep Node's code.
 */
export const httpExecutor: HttpExecutor = (request) =>
	new Promise<HttpResponse>((resolve, reject) => {
		const pieces = request.body === undefined ? [] : jsonPieces(request.body);
		const length = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
		if (length > MAX_REQUEST_BYTES) {
			reject(failure('Request body larger than maxBodyLength limit', 'ERR_BAD_REQUEST'));
			return;
		}
		const url = new URL(withParams(request.url, request.params));
		const secure = url.protocol === 'https:';
		const headers: Record<string, string> = {
			accept: 'application/json, text/plain, */*',
			'content-type': 'application/json',
			...request.headers,
		};
		if (request.body !== undefined) headers['content-length'] = String(length);
		const timeout = () => req.destroy(failure(`timeout of ${request.timeoutMs}ms exceeded`, 'ECONNABORTED'));
		// The socket's idle timer may not run while a connection is being made: a timer until the response starts.
		const untilResponse = setTimeout(timeout, request.timeoutMs);
		const agent = secure ? sharedAgents().https : sharedAgents().http;
		const req = (secure ? https : http).request(url, { method: request.method, headers, agent }, (res) => {
			clearTimeout(untilResponse);
			readResponse(req, res, resolve, reject);
		});
		req.setTimeout(request.timeoutMs, timeout);
		req.on('error', (error) => {
			clearTimeout(untilResponse);
			reject(error);
		});
		for (const piece of pieces) req.write(piece);
		req.end();
	});
