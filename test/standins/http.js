// @ts-check
/**
 * The server plumbing the platform stand-ins (meta.js, pinterest.js, tiktok.js, microsoft.js,
 * google.js) share, so each of them holds only what its platform accepts and answers. Plain
 * CommonJS like them: they run in jest, in the end-to-end suite and under `npm run dev` without a
 * build step.
 */
const http = require('node:http');

/**
 * A scripted answer to the next request: `reset` drops the connection, `hang` never answers, and
 * any other is answered with `status`, `headers` and `body` (each stand-in has its own defaults).
 * Those three play before the platform looks at the request: nothing is accepted. The `accept-`
 * kinds let the platform accept the request as usual (validate it, record its events) and then
 * take its answer away — the ambiguous case a client cannot tell from a lost request:
 * `accept-reset` drops the connection instead of answering, `accept-hang` never answers, and
 * `accept-hold` keeps the answer until the test releases it (`releaseHeld()`), or drops it
 * (`dropHeld()`).
 * @typedef {{
 *   status?: number,
 *   headers?: Record<string,string>,
 *   body?: unknown,
 *   kind?: 'reset' | 'hang' | 'respond' | 'accept-reset' | 'accept-hang' | 'accept-hold',
 * }} Fault
 */
/**
 * An answer an `accept-hold` fault keeps back: `answer()` sends it (unless the client has gone
 * meanwhile), `drop()` closes the connection without it.
 * @typedef {{ answer: () => void, drop: () => void }} HeldAnswer
 */
/**
 * What a stand-in keeps for its tests: the events it accepted, one entry per request and the
 * faults queued for the next requests. `playFault(req, respond)` plays the next fault on a request,
 * if one is queued, and says whether it did: a reset and a hang are the same everywhere, any other
 * fault is answered by `respond` in the platform's own error shape and request log (the `accept-`
 * kinds are played by the server around the platform's handler, never here). `held` are the
 * answers `accept-hold` faults keep back. `clear()` forgets the lists and drops the held answers.
 * @template R, L
 * @typedef {{
 *   received: R[],
 *   requests: L[],
 *   faults: Fault[],
 *   held: HeldAnswer[],
 *   playFault: (req: http.IncomingMessage, respond: (fault: Fault) => unknown) => boolean,
 *   clear: () => void,
 * }} StandInState
 */
/**
 * How a stand-in's server is made: its state, its handler for everything but the `/__standin/`
 * endpoints, and optionally what GET /__standin/received reports and how it sends JSON.
 * @template R, L
 * @typedef {{
 *   state: StandInState<R, L>,
 *   handle: Handler,
 *   report?: () => unknown,
 *   send?: JsonSender,
 * }} ServerParts
 */
/**
 * @typedef {(
 *   res: http.ServerResponse,
 *   status: number,
 *   body: unknown,
 *   headers?: Record<string,string>,
 * ) => void} JsonSender
 * @typedef {(
 *   req: http.IncomingMessage,
 *   res: http.ServerResponse,
 *   body: string,
 *   url: URL,
 * ) => unknown} Handler
 */

/** @param {http.IncomingMessage} req @returns {Promise<string>} */
function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

/**
 * A JSON sender with the content type a platform answers with (some add a charset); `headers`
 * (e.g. a fault's Retry-After) are added to it.
 * @param {string} contentType
 * @returns {JsonSender}
 */
function jsonSender(contentType) {
	return (res, status, body, headers = {}) => {
		res.writeHead(status, { 'content-type': contentType, ...headers });
		res.end(JSON.stringify(body));
	};
}

const sendJson = jsonSender('application/json');

/**
 * An empty state, to be typed where it is made (`@type {StandInState<Received, RequestLog>}`)
 * with the stand-in's own entries.
 * @template R, L
 * @returns {StandInState<R, L>}
 */
function standInState() {
	/** @type {StandInState<R, L>} */
	const state = {
		received: [],
		requests: [],
		faults: [],
		held: [],
		playFault: (req, respond) => {
			// An `accept-` fault is the server's to play, on its own request only.
			if (withheld.has(req) || isAcceptFault(state.faults[0])) return false;
			const fault = state.faults.shift();
			if (!fault) return false;
			if (fault.kind === 'reset') req.socket.destroy();
			else if (fault.kind !== 'hang') respond(fault);
			return true;
		},
		clear: () => {
			state.received.length = 0;
			state.requests.length = 0;
			state.faults.length = 0;
			for (const held of state.held.splice(0)) held.drop();
		},
	};
	return state;
}

/** Requests whose answer an `accept-` fault takes away: no other fault plays on them. */
const withheld = new WeakSet();

/** @param {Fault | undefined} fault */
function isAcceptFault(fault) {
	return Boolean(fault && fault.kind && fault.kind.startsWith('accept-'));
}

/**
 * Plays an `accept-` fault on one response: whatever the platform's handler answers is kept
 * from the client (dropped, never sent, or held in `held` until released).
 * @param {http.ServerResponse} res
 * @param {Fault} fault
 * @param {HeldAnswer[]} held
 */
function withholdAnswer(res, fault, held) {
	/** @typedef {(...args: any[]) => any} AnyFunction */
	const writeHead = /** @type {AnyFunction} */ (res.writeHead.bind(res));
	const end = /** @type {AnyFunction} */ (res.end.bind(res));
	/** @type {any[]} */
	let head = [];
	const drop = () => res.socket?.destroy();
	// The handler's answer is only recorded here; it is written (or not) below.
	res.writeHead = /** @type {any} */ ((/** @type {any[]} */ ...args) => {
		head = args;
		return res;
	});
	res.end = /** @type {any} */ ((/** @type {any[]} */ ...args) => {
		if (fault.kind === 'accept-reset') drop();
		else if (fault.kind === 'accept-hold') {
			held.push({
				// A client that went away meanwhile (timed out, killed) never gets it.
				answer: () => {
					if (res.socket && !res.socket.destroyed) {
						writeHead(...head);
						end(...args);
					}
				},
				drop,
			});
		}
		return res;
	});
}

/**
 * Answers the endpoints through which a test in another process (the end-to-end suite, a person
 * under `npm run dev`) reads and scripts a stand-in, and says whether the request was one of them:
 * GET /__standin/received returns what was recorded and the request log (or `report()` where a
 * stand-in tells more), DELETE forgets both, POST /__standin/faults queues the faults in its body,
 * POST /__standin/release sends the answers `accept-hold` faults keep back.
 * @param {ServerParts<unknown, unknown>} parts
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res
 * @param {string} body @param {URL} url
 * @returns {boolean}
 */
function answerControl({ state, report, send = sendJson }, req, res, body, url) {
	if (url.pathname === '/__standin/received') {
		if (req.method === 'DELETE') {
			state.received.length = 0;
			state.requests.length = 0;
			send(res, 200, { ok: true });
		} else {
			const { received, requests } = state;
			send(res, 200, report ? report() : { received, requests });
		}
		return true;
	}
	if (url.pathname === '/__standin/faults' && req.method === 'POST') {
		state.faults.push(...JSON.parse(body || '[]'));
		send(res, 200, { queued: state.faults.length });
		return true;
	}
	if (url.pathname === '/__standin/release' && req.method === 'POST') {
		send(res, 200, { released: releaseHeld(state) });
		return true;
	}
	return false;
}

/**
 * Sends every held answer; returns how many there were.
 * @param {StandInState<unknown, unknown>} state
 */
function releaseHeld(state) {
	const held = state.held.splice(0);
	for (const h of held) h.answer();
	return held.length;
}

/**
 * Starts a stand-in's loopback server on `where.host` (default 127.0.0.1) and `where.port`
 * (default: a free one), and returns what every stand-in returns: its `url` and `port`, what it
 * `received`, its `requests` log, `queueFaults(list)`, `pendingFaults()` (how many are still
 * queued), `heldAnswers()` (how many answers
 * `accept-hold` faults keep back), `releaseHeld()` / `dropHeld()` (send them / close their
 * connections without them) and `close()`.
 *
 * Every platform validates whole bodies, so `handle` gets the body read; the `/__standin/`
 * endpoints are answered before it, with `send` (default: plain application/json). Sockets are
 * tracked so that close() ends at once: server.close() alone waits for keep-alive connections and
 * hanging faults.
 * @template R, L
 * @param {{ host?: string, port?: number }} where
 * @param {ServerParts<R, L>} parts
 */
async function startStandInServer(where, parts) {
	const host = where.host || '127.0.0.1';
	const { state, handle } = parts;
	let latencyMs = 0;
	/** @type {Set<import('node:net').Socket>} */
	const sockets = new Set();
	const server = http.createServer(async (req, res) => {
		const url = new URL(req.url || '/', `http://${host}`);
		const body = await readBody(req);
		if (answerControl(parts, req, res, body, url)) return undefined;
		// A slow platform: every request waits this long before the platform looks at it.
		if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
		const fault = state.faults[0];
		if (fault && isAcceptFault(fault)) {
			state.faults.shift();
			withheld.add(req);
			withholdAnswer(res, fault, state.held);
		}
		return handle(req, res, body, url);
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve) => server.listen(where.port || 0, host, () => resolve(undefined)));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	return {
		url: `http://${host}:${port}`,
		port,
		received: state.received,
		requests: state.requests,
		/** @param {Fault[]} list */
		queueFaults: (list) => state.faults.push(...list),
		pendingFaults: () => state.faults.length,
		/** @param {number} ms how long every later request waits before the platform reads it */
		setLatency: (ms) => {
			latencyMs = ms;
		},
		heldAnswers: () => state.held.length,
		releaseHeld: () => releaseHeld(state),
		dropHeld: () => {
			const held = state.held.splice(0);
			for (const h of held) h.drop();
			return held.length;
		},
		close: () =>
			new Promise((resolve) => {
				for (const s of sockets) s.destroy();
				server.close(() => resolve(undefined));
			}),
	};
}

/**
 * The value after `--name` on a stand-in's command line, if given.
 * @param {string[]} args @param {string} name
 * @returns {string | undefined}
 */
function cliArg(args, name) {
	const i = args.indexOf(`--${name}`);
	return i >= 0 ? args[i + 1] : undefined;
}

/**
 * A stand-in's command line: `arg(name)` reads `--name value`; `required(name, env)` reads one
 * that may come from an environment variable instead and without which the stand-in cannot run
 * (then it prints the usage and exits with 2); `port()` is where to listen (0: a free port).
 * @param {string} usage
 */
function commandLine(usage) {
	const args = process.argv.slice(2);
	return {
		/** @param {string} name */
		arg: (name) => cliArg(args, name),
		/** @param {string} name @param {string} env @returns {string} */
		required: (name, env) => {
			const value = cliArg(args, name) || process.env[env];
			if (!value) {
				console.error(`usage: ${usage}`);
				process.exit(2);
			}
			return value;
		},
		port: () => Number(cliArg(args, 'port') || 0),
	};
}

module.exports = {
	readBody,
	jsonSender,
	sendJson,
	standInState,
	startStandInServer,
	cliArg,
	commandLine,
};
