import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { httpExecutor, jsonPieces } from '../../../shared/transport/http';

interface Seen {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: string;
}

/** A loopback server answering every request with `answer`; records what it received. */
async function server(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
	const seen: Seen[] = [];
	const s = http.createServer((req, res) => {
		let body = '';
		req.on('data', (c) => (body += c));
		req.on('end', () => {
			seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
			answer(req, res);
		});
	});
	await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
	const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
	return { url, seen, close: () => new Promise<void>((r) => s.close(() => r())) };
}

/**
 * The core's default executor (Node's http, shared keep-alive agents): what the platforms
 * receive and what the transport gets back, for every status and for no answer at all.
 */
describe('httpExecutor', () => {
	it('sends the body as JSON with its length, the query parameters appended, and answers every status as a response', async () => {
		const s = await server((_req, res) => res.writeHead(400, { 'content-type': 'application/json', 'x-trace': 'a1' }).end('{"error":{"code":190}}'));
		try {
			const response = await httpExecutor({
				method: 'POST',
				url: `${s.url}/v26.0/px/events?x=1`,
				params: { access_token: 'tok en', appsecret_proof: 'p:1' },
				headers: { authorization: 'Bearer b' },
				body: { data: [{ event_name: 'Lead', name: 'Zoë' }] },
				timeoutMs: 2_000,
			});
			expect(response).toEqual({ status: 400, headers: expect.objectContaining({ 'x-trace': 'a1' }), data: { error: { code: 190 } } });
			const [req] = s.seen;
			expect(req.method).toBe('POST');
			expect(new URL(req.url, s.url).searchParams.get('access_token')).toBe('tok en');
			expect(new URL(req.url, s.url).searchParams.get('appsecret_proof')).toBe('p:1');
			expect(req.url.startsWith('/v26.0/px/events?x=1&')).toBe(true);
			expect(req.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer b' });
			expect(Number(req.headers['content-length'])).toBe(Buffer.byteLength(req.body));
			expect(JSON.parse(req.body)).toEqual({ data: [{ event_name: 'Lead', name: 'Zoë' }] });
		} finally {
			await s.close();
		}
	});

	it('a body that is not JSON comes back as text, an empty one as "", a gzipped one decoded; a redirect is not followed', async () => {
		const answers: Array<(res: http.ServerResponse) => void> = [
			(res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>'),
			(res) => res.writeHead(204).end(),
			(res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('{"events_received":1}')),
			(res) => res.writeHead(302, { location: '/elsewhere' }).end(),
		];
		let n = 0;
		const s = await server((_req, res) => answers[n++](res));
		try {
			const get = () => httpExecutor({ method: 'GET', url: `${s.url}/x`, timeoutMs: 2_000 });
			expect(await get()).toMatchObject({ status: 502, data: '<html>Bad Gateway</html>' });
			expect(await get()).toMatchObject({ status: 204, data: '' });
			expect(await get()).toMatchObject({ status: 200, data: { events_received: 1 } });
			expect(await get()).toMatchObject({ status: 302, headers: { location: '/elsewhere' } });
			expect(s.seen.map((r) => r.url)).toEqual(['/x', '/x', '/x', '/x']);
		} finally {
			await s.close();
		}
	});

	it('no answer within timeoutMs: a timeout error (ECONNABORTED); a refused connection keeps its code', async () => {
		const s = await server(() => undefined);
		try {
			const hang = await httpExecutor({ method: 'POST', url: s.url, body: {}, timeoutMs: 200 }).catch((e) => e);
			expect(hang).toMatchObject({ code: 'ECONNABORTED', message: 'timeout of 200ms exceeded' });
		} finally {
			await s.close();
		}
		const refused = await httpExecutor({ method: 'POST', url: s.url, body: {}, timeoutMs: 2_000 }).catch((e) => e);
		expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
	});
});

describe('jsonPieces: a request body as JSON, in pieces below V8\'s large-object size', () => {
	it('joined, the pieces are exactly JSON.stringify of the body, whatever it holds', () => {
		fc.assert(
			fc.property(fc.anything({ withDate: true, withNullPrototype: true, withSparseArray: true }), (body) => {
				expect(jsonPieces({ data: [body, undefined, body], body, skipped: undefined, f: () => 1 }).join('')).toBe(
					JSON.stringify({ data: [body, undefined, body], body, skipped: undefined, f: () => 1 }),
				);
				if (body !== undefined) expect(jsonPieces(body).join('')).toBe(JSON.stringify(body));
			}),
			{ numRuns: 2_000, seed: 20261202 },
		);
	});

	it('a 1,000-event body comes in pieces of at most ~64 KB, none of them a large object', () => {
		const event = { event_name: 'Lead', user_data: { em: ['a'.repeat(64)], ph: ['b'.repeat(64)] }, custom_data: { value: 1 } };
		const body = { data: Array.from({ length: 1000 }, (_, i) => ({ ...event, event_id: String(i) })), access_token: 't' };
		const pieces = jsonPieces(body);
		expect(pieces.join('')).toBe(JSON.stringify(body));
		expect(pieces.length).toBeGreaterThan(2);
		expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(64 * 1024 + 1024);
	});
});
