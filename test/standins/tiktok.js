#!/usr/bin/env node
// @ts-check
/**
 * A loopback HTTP server that answers and validates like TikTok's Events API 2.0
 * (POST /open_api/v1.3/event/track/). Used by the integration tests, the end-to-end suite in real
 * n8n and `npm run dev`. Plain JavaScript so it runs without a build step:
 *
 *   node test/standins/tiktok.js --port 18083 --token <access token> --pixel <pixel code> [--crm-event-set <id>]
 *
 * It checks what platforms.md §3 documents: the `Access-Token` header (40104 when missing, 40105
 * when wrong), `event_source` and an `event_source_id` the token may send to (40001 otherwise),
 * `data` with 1..50 events (40061 beyond), `event_id` as a string (40002 "not a valid string",
 * as TikTok answered a numeric id), email / phone / external_id / first_name / last_name /
 * zip_code as 64 lowercase hex (40062 PII_NOT_HASHED otherwise), event_time within 28 days
 * (UNCONFIRMED: a third party's figure, as TIKTOK_EVENT_WINDOW_SECONDS),
 * properties.value / currency, limited_data_use as a boolean. Like TikTok it answers HTTP 200
 * with `{ code, message, request_id }`, a non-zero code for errors, and refuses the whole request
 * when one event is invalid. Faults (429 + Retry-After, 5xx, resets, any body) can be scripted; a
 * fault body's `{{token}}` is replaced by the Access-Token header it received, to prove scrubbing.
 * GET /__standin/received returns what was accepted; DELETE /__standin/received clears it;
 * POST /__standin/faults queues faults.
 */
const crypto = require('node:crypto');
const net = require('node:net');
const { commandLine, sendJson: send, standInState, startStandInServer } = require('./http.js');

const TRACK_PATH = /^\/open_api\/v1\.3\/event\/track\/?$/;
const EVENT_SOURCES = new Set(['web', 'app', 'offline', 'crm']);
/** User fields TikTok takes as SHA-256 (platforms.md §3.4); city/state/country stay clear. */
const HASHED_LIST_KEYS = ['email', 'phone', 'external_id'];
const HASHED_SINGLE_KEYS = ['first_name', 'last_name', 'zip_code'];
const CLEAR_KEYS = ['city', 'state', 'country', 'ttclid', 'ttp', 'ip', 'user_agent', 'locale'];
const SHA256_HEX = /^[0-9a-f]{64}$/;
const DEFAULT_WINDOW_SECONDS = 28 * 24 * 3600;
const DEFAULT_MAX_BATCH = 50;

/**
 * @typedef {{ eventSource: string, eventSourceId: string, testEventCode?: string, event: any, receivedAt: number }} Received
 * @typedef {{ method: string, path: string, events: number, status: number, code?: number, eventSource?: string, eventSourceId?: string, testEventCode?: string }} RequestLog
 * @typedef {{ code: number, message: string }} Problem
 */

function requestId() {
	return `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${crypto.randomBytes(10).toString('hex').toUpperCase()}`;
}

/** @param {number} code @param {string} message @param {unknown} [data] */
function answer(code, message, data) {
	return { code, message, request_id: requestId(), ...(data === undefined ? {} : { data }) };
}

/** @param {unknown} value */
const isObject = (value) => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/**
 * Validates one event the way TikTok does; returns a problem or null.
 * @param {any} event
 * @param {{ nowSeconds: number, windowSeconds: number, eventSource: string }} context
 * @returns {Problem | null}
 */
function validateEvent(event, context) {
	if (!isObject(event))
		return { code: 40002, message: 'Invalid value for data: not a valid object.' };
	if (typeof event.event !== 'string' || event.event.trim() === '') {
		return { code: 40002, message: 'Invalid value for event: Missing data for required field.' };
	}
	if (!Number.isInteger(event.event_time)) {
		return {
			code: 40002,
			message: 'Invalid value for event_time: not a valid unix timestamp in seconds.',
		};
	}
	if (event.event_time < context.nowSeconds - context.windowSeconds) {
		return {
			code: 40002,
			message: 'Invalid value for event_time: the event is too far in the past.',
		};
	}
	if (event.event_time > context.nowSeconds + 600) {
		return { code: 40002, message: 'Invalid value for event_time: the event is in the future.' };
	}
	if (event.event_id !== undefined && typeof event.event_id !== 'string') {
		return { code: 40002, message: 'Invalid value for event_id: not a valid string.' };
	}
	const user = event.user;
	if (!isObject(user))
		return { code: 40002, message: 'Invalid value for user: Missing data for required field.' };
	for (const key of HASHED_LIST_KEYS) {
		if (user[key] === undefined) continue;
		const values = Array.isArray(user[key]) ? user[key] : [user[key]];
		for (const value of values) {
			if (typeof value !== 'string' || !SHA256_HEX.test(value)) {
				return {
					code: 40062,
					message: `PII_NOT_HASHED: user.${key} must be hashed with SHA256 (64 lowercase hex characters).`,
				};
			}
		}
	}
	for (const key of HASHED_SINGLE_KEYS) {
		if (user[key] === undefined) continue;
		if (typeof user[key] !== 'string' || !SHA256_HEX.test(user[key])) {
			return {
				code: 40062,
				message: `PII_NOT_HASHED: user.${key} must be hashed with SHA256 (64 lowercase hex characters).`,
			};
		}
	}
	for (const key of CLEAR_KEYS) {
		if (user[key] !== undefined && typeof user[key] !== 'string') {
			return { code: 40002, message: `Invalid value for user.${key}: not a valid string.` };
		}
	}
	if (user.ip !== undefined && net.isIP(user.ip) === 0) {
		return { code: 40002, message: 'Invalid value for user.ip: not a valid IP address.' };
	}
	if (event.page !== undefined) {
		if (!isObject(event.page) || typeof event.page.url !== 'string') {
			return { code: 40002, message: 'Invalid value for page.url: not a valid string.' };
		}
	}
	if (event.properties !== undefined) {
		const p = event.properties;
		if (!isObject(p))
			return { code: 40002, message: 'Invalid value for properties: not a valid object.' };
		if (p.value !== undefined && typeof p.value !== 'number') {
			return { code: 40002, message: 'Invalid value for properties.value: not a valid number.' };
		}
		if (
			p.currency !== undefined &&
			(typeof p.currency !== 'string' || !/^[A-Z]{3}$/.test(p.currency))
		) {
			return {
				code: 40002,
				message: 'Invalid value for properties.currency: not a valid ISO 4217 code.',
			};
		}
		if (p.value !== undefined && p.currency === undefined) {
			return {
				code: 40002,
				message: 'Invalid value for properties.currency: required when value is set.',
			};
		}
	}
	if (event.lead !== undefined) {
		if (context.eventSource !== 'crm') {
			return {
				code: 40002,
				message: 'Invalid value for lead: only supported for event_source crm.',
			};
		}
		if (
			!isObject(event.lead) ||
			(event.lead.lead_id !== undefined && typeof event.lead.lead_id !== 'string')
		) {
			return { code: 40002, message: 'Invalid value for lead.lead_id: not a valid string.' };
		}
	}
	if (event.limited_data_use !== undefined && typeof event.limited_data_use !== 'boolean') {
		return { code: 40002, message: 'Invalid value for limited_data_use: not a valid boolean.' };
	}
	return null;
}

/**
 * @param {{ accessToken: string, pixelCode: string, crmEventSetId?: string, port?: number, host?: string, now?: () => number, maxBatchSize?: number, windowSeconds?: number }} options
 */
async function startTiktokStandIn(options) {
	const now = options.now || (() => Date.now());
	const maxBatch = options.maxBatchSize || DEFAULT_MAX_BATCH;
	const windowSeconds = options.windowSeconds || DEFAULT_WINDOW_SECONDS;
	/** @type {import('./http.js').StandInState<Received, RequestLog>} */
	const state = standInState();
	const { received, requests } = state;
	/** Event ids that make a request invalid (beyond the built-in validation). */
	const poisonEventIds = new Set();
	/** Event ids TikTok "partly" drops: the request answers 20001 and these are not kept. */
	const partialEventIds = new Set();

	/** @param {Record<string, any>} body */
	const allowedSourceId = (body) =>
		body.event_source === 'crm'
			? options.crmEventSetId
			: body.event_source === 'web'
				? options.pixelCode
				: undefined;

	/** @type {import('./http.js').Handler} */
	const handle = (req, res, raw, url) => {
		const tokenHeader = req.headers['access-token'];
		const token = Array.isArray(tokenHeader) ? tokenHeader[0] : tokenHeader;
		const faulted = state.playFault(req, (fault) => {
			const status = fault.status || 500;
			const body =
				fault.body === undefined
					? ''
					: JSON.stringify(fault.body)
							.split('{{token}}')
							.join(String(token ?? ''));
			requests.push({ method: req.method || '', path: url.pathname, events: 0, status });
			res.writeHead(status, {
				...(body ? { 'content-type': 'application/json' } : {}),
				...fault.headers,
			});
			res.end(body);
		});
		if (faulted) return undefined;
		if (!TRACK_PATH.test(url.pathname)) {
			res.writeHead(404, { 'content-type': 'text/plain' });
			return res.end('404 page not found');
		}
		if (req.method !== 'POST') {
			res.writeHead(405, { 'content-type': 'text/plain' });
			return res.end('405 method not allowed');
		}
		/** @type {RequestLog} */
		const log = { method: 'POST', path: url.pathname, events: 0, status: 200 };
		requests.push(log);
		/** @param {number} code @param {string} message @param {unknown} [data] */
		const reply = (code, message, data) => {
			log.code = code;
			return send(res, 200, answer(code, message, data));
		};
		if (!token) return reply(40104, 'Access token is null, please check the access token.');
		if (token !== options.accessToken)
			return reply(40105, 'Access token is incorrect or has been revoked.');
		/** @type {Record<string, any>} */
		let body;
		try {
			body = JSON.parse(raw);
		} catch {
			return reply(40002, 'Invalid request body: not valid JSON.');
		}
		if (!isObject(body)) return reply(40002, 'Invalid request body: not a valid object.');
		log.eventSource = body.event_source;
		log.eventSourceId = body.event_source_id;
		log.testEventCode = body.test_event_code;
		log.events = Array.isArray(body.data) ? body.data.length : 0;
		if (!EVENT_SOURCES.has(body.event_source)) {
			return reply(40002, 'Invalid value for event_source: must be one of web, app, offline, crm.');
		}
		if (typeof body.event_source_id !== 'string' || body.event_source_id === '') {
			return reply(40002, 'Invalid value for event_source_id: Missing data for required field.');
		}
		if (body.event_source_id !== allowedSourceId(body)) {
			return reply(40001, `No permission to operate event source ${body.event_source_id}.`);
		}
		if (body.test_event_code !== undefined && typeof body.test_event_code !== 'string') {
			return reply(40002, 'Invalid value for test_event_code: not a valid string.');
		}
		const data = body.data;
		if (!Array.isArray(data) || data.length === 0) {
			return reply(40002, 'Invalid value for data: Length must be at least 1.');
		}
		if (data.length > maxBatch) {
			return reply(
				40061,
				`Invalid batch size: at most ${maxBatch} events per request, got ${data.length}.`,
			);
		}
		const nowSeconds = Math.floor(now() / 1000);
		for (let i = 0; i < data.length; i++) {
			const problem = poisonEventIds.has(data[i] && data[i].event_id)
				? { code: 40002, message: 'Invalid value for this event: refused.' }
				: validateEvent(data[i], { nowSeconds, windowSeconds, eventSource: body.event_source });
			if (problem) return reply(problem.code, `data[${i}]: ${problem.message}`);
		}
		const at = now();
		let dropped = 0;
		for (const event of data) {
			if (partialEventIds.has(event.event_id)) {
				dropped++;
				continue;
			}
			received.push({
				eventSource: body.event_source,
				eventSourceId: body.event_source_id,
				testEventCode: body.test_event_code,
				event,
				receivedAt: at,
			});
		}
		if (dropped > 0) {
			return reply(
				20001,
				`Partial success: ${dropped} of ${data.length} events were not processed.`,
				{
					failed_events: dropped,
				},
			);
		}
		return reply(0, 'OK', {});
	};
	const server = await startStandInServer(options, { state, handle });
	return {
		// url, port, received, requests, queueFaults and close, as every stand-in has
		...server,
		/** Makes every request carrying this event id invalid (code 40002). @param {string} eventId */
		poison: (eventId) => poisonEventIds.add(eventId),
		/** Makes TikTok answer 20001 and drop this event. @param {string} eventId */
		dropPartly: (eventId) => partialEventIds.add(eventId),
		reset: () => {
			state.clear();
			poisonEventIds.clear();
			partialEventIds.clear();
		},
	};
}

module.exports = {
	startTiktokStandIn,
	validateEvent,
	HASHED_KEYS: [...HASHED_LIST_KEYS, ...HASHED_SINGLE_KEYS],
};

if (require.main === module) {
	const cli = commandLine(
		'tiktok.js --port <port> --token <access token> --pixel <pixel code> [--crm-event-set <id>]',
	);
	startTiktokStandIn({
		accessToken: cli.required('token', 'TIKTOK_STANDIN_TOKEN'),
		pixelCode: cli.required('pixel', 'TIKTOK_STANDIN_PIXEL'),
		crmEventSetId: cli.arg('crm-event-set'),
		port: cli.port(),
	}).then((standIn) => {
		console.log(`TikTok stand-in listening on ${standIn.url}`);
	});
}
