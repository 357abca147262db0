// @ts-check
/**
 * One OAuth2 token URL for every test file on a shared n8n 2.x.
 *
 * n8n 2.x ignores the stored token URL of an OAuth2 credential type that declares it hidden (our
 * Google types do: the default is Google's) and takes it from the instance's credential
 * overwrites, which it reads once, at start. Test files run on one long-lived n8n, each with
 * Google stand-ins of its own on ports chosen at run time, so that n8n's overwrite points here,
 * and a refresh is forwarded to the stand-in that issued the refresh token (each stand-in's is
 * random), registered by the test helper when it imports the credential:
 *   POST /register { refreshToken, tokenUrl }       → 204
 *   POST /token    (grant_type=refresh_token&…)     → the stand-in's own answer, unchanged
 * An unknown refresh token is answered as Google answers one: 400 invalid_grant.
 */
const http = require('node:http');

/** @param {http.IncomingMessage} req @returns {Promise<Buffer>} */
function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/**
 * @param {Map<string, string>} routes
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 */
async function forwardToken(routes, req, res) {
	const body = await readBody(req);
	const refreshToken = new URLSearchParams(body.toString('utf8')).get('refresh_token') ?? '';
	const target = routes.get(refreshToken);
	if (!target) {
		res.writeHead(400, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }));
		return;
	}
	/** @type {Record<string, string>} */
	const headers = {};
	for (const name of ['authorization', 'content-type', 'accept', 'user-agent']) {
		const value = req.headers[name];
		if (typeof value === 'string') headers[name] = value;
	}
	const answer = await fetch(target, { method: 'POST', headers, body });
	const text = await answer.text();
	res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
	res.end(text);
}

/** @returns {Promise<{ url: string, tokenUrl: string, close: () => Promise<void> }>} */
async function startOAuthRouter() {
	/** @type {Map<string, string>} */
	const routes = new Map();
	const server = http.createServer((req, res) => {
		const handle = async () => {
			if (req.method === 'POST' && req.url === '/register') {
				const { refreshToken, tokenUrl } = JSON.parse((await readBody(req)).toString('utf8'));
				if (typeof refreshToken !== 'string' || typeof tokenUrl !== 'string') {
					res.writeHead(400).end('refreshToken and tokenUrl are strings');
					return;
				}
				routes.set(refreshToken, tokenUrl);
				res.writeHead(204).end();
				return;
			}
			if (req.method === 'POST' && req.url?.startsWith('/token')) return await forwardToken(routes, req, res);
			res.writeHead(404).end();
		};
		handle().catch((error) => {
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`oauth router: ${String(error)}`);
		});
	});
	await new Promise((/** @type {(v?: unknown) => void} */ resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	const url = `http://127.0.0.1:${address.port}`;
	return {
		url,
		tokenUrl: `${url}/token`,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

/**
 * Tells a router where a refresh token's stand-in answers.
 * @param {string} routerUrl @param {string} refreshToken @param {string} tokenUrl
 */
async function registerRefreshToken(routerUrl, refreshToken, tokenUrl) {
	const res = await fetch(`${routerUrl}/register`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ refreshToken, tokenUrl }),
	});
	if (res.status !== 204) throw new Error(`oauth router: register answered HTTP ${res.status}`);
}

module.exports = { startOAuthRouter, registerRefreshToken };
