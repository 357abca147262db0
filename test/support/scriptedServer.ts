import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Step =
	| { status: number; body?: unknown; headers?: Record<string, string> }
	| { kind: 'reset' }
	| { kind: 'hang' };

/**
 * A loopback HTTP server answering each request with the next scripted step (the last step
 * repeats). Records every request it received.
 */
export async function scriptedServer(steps: Step[]) {
	const requests: { method: string; url: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
	const sockets = new Set<Socket>();
	let n = 0;
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (c) => (body += c));
		req.on('end', () => {
			requests.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
			const step = steps[Math.min(n++, steps.length - 1)];
			if ('kind' in step) {
				if (step.kind === 'reset') req.socket.destroy();
				return;
			}
			res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
			res.end(JSON.stringify(step.body ?? {}));
		});
	});
	server.on('connection', (s) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((r) => {
				for (const s of sockets) s.destroy();
				server.close(() => r());
			}),
	};
}
