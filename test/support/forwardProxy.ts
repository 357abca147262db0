import http from 'node:http';
import net from 'node:net';

/** One request the proxy saw: an absolute-URI request (http://) or a CONNECT tunnel (https://). */
export interface ProxiedRequest {
	kind: 'absolute' | 'connect';
	/** The target host as the client asked for it (no port). */
	host: string;
	port: number;
	method: string;
	path?: string;
	/** What the proxy answered itself (502: no route or the target refused); undefined: forwarded. */
	refused?: number;
}

export interface ForwardProxy {
	/** `http://127.0.0.1:<port>`, the value for HTTP_PROXY / HTTPS_PROXY. */
	url: string;
	requests: ProxiedRequest[];
	/** How many requests (tunnels count once) went to each target host. */
	countsByHost(): Record<string, number>;
	reset(): void;
	close(): Promise<void>;
}

export interface ForwardProxyOptions {
	/**
	 * Where to connect for a target host: an address, or undefined to refuse with 502 (nothing
	 * leaves the machine). Default: only 127.0.0.1 and localhost, as themselves.
	 */
	route?: (host: string) => string | undefined;
}

const HOP_BY_HOP = new Set([
	'connection',
	'keep-alive',
	'proxy-connection',
	'proxy-authorization',
	'proxy-authenticate',
	'te',
	'trailer',
	'transfer-encoding',
	'upgrade',
]);

const loopbackOnly = (host: string) =>
	host === '127.0.0.1' || host === 'localhost' ? host : undefined;

function forwardedHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
	const out: http.OutgoingHttpHeaders = {};
	for (const [name, value] of Object.entries(headers)) {
		if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
	}
	return out;
}

/**
 * A loopback HTTP forward proxy, as companies run them: absolute-URI requests
 * (`POST http://host:port/path`) for http:// targets, CONNECT tunnels for https:// targets. It
 * records every request with its target host, and connects only where `route` says, so a
 * made-up host name that resolves nowhere is reachable only through it.
 */
export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
	const route = options.route ?? loopbackOnly;
	const requests: ProxiedRequest[] = [];
	const sockets = new Set<net.Socket>();

	const server = http.createServer((req, res) => {
		let target: URL;
		try {
			target = new URL(req.url ?? '');
			if (target.protocol !== 'http:') throw new Error('not http');
		} catch {
			res.writeHead(400, { 'content-type': 'text/plain' }).end('absolute http:// URI expected');
			return;
		}
		const port = Number(target.port || 80);
		const seen: ProxiedRequest = {
			kind: 'absolute',
			host: target.hostname,
			port,
			method: req.method ?? 'GET',
			path: target.pathname,
		};
		requests.push(seen);
		const address = route(target.hostname);
		const refuse = () => {
			seen.refused = 502;
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
			res.end('bad gateway');
		};
		if (!address) return refuse();
		const upstream = http.request(
			{
				host: address,
				port,
				method: req.method,
				path: `${target.pathname}${target.search}`,
				headers: forwardedHeaders(req.headers),
				agent: false,
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, forwardedHeaders(answer.headers));
				answer.pipe(res);
			},
		);
		upstream.on('error', refuse);
		req.pipe(upstream);
	});

	server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
		const [host, rawPort] = (req.url ?? '').split(/:(?=\d+$)/);
		const port = Number(rawPort || 443);
		const seen: ProxiedRequest = { kind: 'connect', host, port, method: 'CONNECT' };
		requests.push(seen);
		const address = route(host);
		const refuse = () => {
			seen.refused = 502;
			client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
		};
		if (!address) return refuse();
		const upstream = net.connect(port, address, () => {
			client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
			if (head.length > 0) upstream.write(head);
			upstream.pipe(client);
			client.pipe(upstream);
		});
		sockets.add(upstream);
		upstream.on('close', () => sockets.delete(upstream));
		upstream.on('error', () => (client.writable ? refuse() : client.destroy()));
		client.on('error', () => upstream.destroy());
	});

	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});

	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		countsByHost() {
			const counts: Record<string, number> = {};
			for (const r of requests) counts[r.host] = (counts[r.host] ?? 0) + 1;
			return counts;
		},
		reset() {
			requests.length = 0;
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
