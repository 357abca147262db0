import type { IncomingMessage } from 'node:http';

/** The request body as raw bytes, refusing to buffer more than `limit` bytes. */
export async function readRawBody(
	req: IncomingMessage & { rawBody?: Buffer },
	limit: number,
): Promise<{ ok: true; body: Buffer } | { ok: false; size: number }> {
	if (Buffer.isBuffer(req.rawBody)) {
		return req.rawBody.length > limit ? { ok: false, size: req.rawBody.length } : { ok: true, body: req.rawBody };
	}
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared > limit) return { ok: false, size: declared };
	return await new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let settled = false;
		req.on('data', (chunk: Buffer) => {
			if (settled) return;
			size += chunk.length;
			if (size > limit) {
				settled = true;
				req.pause();
				resolve({ ok: false, size });
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => {
			if (settled) return;
			settled = true;
			const body = Buffer.concat(chunks);
			req.rawBody = body;
			resolve({ ok: true, body });
		});
		req.on('error', (error) => {
			if (!settled) reject(error);
		});
	});
}
