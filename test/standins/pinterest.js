#!/usr/bin/env node
// @ts-check
/**
 * A loopback HTTP server that answers and validates like Pinterest's Conversions API v5
 * (POST /v5/ad_accounts/{ad_account_id}/events). Used by the integration tests, the end-to-end
 * suite in real n8n and `npm run dev`. Plain JavaScript so it runs without a build step:
 *
 *   node test/standins/pinterest.js --port 18083 --token <conversion token> [--ad-account <id>]
 *
 * It checks what the official OpenAPI spec documents (platforms.md §2):
 *  - `Authorization: Bearer <token>` (401 code 2), an ad account the token may use (403 code 29);
 *  - the request schema, strictly: `additionalProperties: false` on the request, on each event
 *    and on custom_data, so an unknown key anywhere there is a 400 (code 4196), as are missing
 *    required keys (event_name, action_source, event_time, event_id, user_data), wrong types,
 *    an event_name or action_source outside the enum, and `data` outside 1..1000 events;
 *    user_data is held to its documented keys too (hashed keys are arrays of strings, the clear
 *    ones strings);
 *  - per event, answered in `events[]` in request order (200; or 422 when asked to): hashed
 *    values must be 64 lowercase hex, the event needs em, hashed_maids, or both
 *    client_ip_address and client_user_agent, event_time within 7 days and not in the future,
 *    value a decimal string, currency ISO 4217; web events without event_source_url get a
 *    warning_message;
 *  - `?test=true`: validated and answered as usual, nothing recorded.
 * Faults can be scripted. GET /__standin/received returns what was recorded (and the request
 * log); DELETE /__standin/received clears it.
 */
const net = require('node:net');
const { commandLine, sendJson: send, standInState, startStandInServer } = require('./http.js');

const HASHED_KEYS = [
	'em',
	'ph',
	'fn',
	'ln',
	'ge',
	'db',
	'ct',
	'st',
	'zp',
	'country',
	'external_id',
	'hashed_maids',
];
const CLEAR_KEYS = ['client_ip_address', 'client_user_agent', 'click_id', 'partner_id'];
const EVENT_NAMES = new Set([
	'add_payment_info',
	'add_to_cart',
	'add_to_wishlist',
	'app_install',
	'checkout',
	'custom',
	'initiate_checkout',
	'lead',
	'page_visit',
	'search',
	'signup',
	'subscribe',
	'view_category',
	'view_content',
	'watch_video',
]);
const ACTION_SOURCES = new Set(['app_android', 'app_ios', 'web', 'offline']);
/** Event keys of the spec (additionalProperties: false): name → JSON type. */
const EVENT_KEYS = {
	event_name: 'string',
	action_source: 'string',
	event_time: 'integer',
	event_id: 'string',
	user_data: 'object',
	custom_data: 'object',
	event_source_url: 'string',
	partner_name: 'string',
	opt_out: 'boolean',
	language: 'string',
	app_id: 'string',
	app_name: 'string',
	app_version: 'string',
	app_info: 'object',
	device_brand: 'string',
	device_carrier: 'string',
	device_info: 'object',
	device_model: 'string',
	device_type: 'string',
	os_version: 'string',
	wifi: 'boolean',
};
const REQUIRED_EVENT_KEYS = ['event_name', 'action_source', 'event_time', 'event_id', 'user_data'];
/** custom_data keys of the spec (additionalProperties: false). */
const CUSTOM_DATA_KEYS = {
	currency: 'string',
	value: 'string',
	content_ids: 'array',
	content_name: 'string',
	content_category: 'string',
	content_brand: 'string',
	contents: 'array',
	num_items: 'integer',
	order_id: 'string',
	predicted_ltv: 'string',
	search_string: 'string',
	opt_out_type: 'string',
	np: 'string',
	external_measurement_id: 'string',
	external_measurement_vendor_id: 'integer',
};
const WINDOW_SECONDS = 7 * 24 * 3600;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * @typedef {{ adAccountId: string, event: any, receivedAt: number }} Received
 * @typedef {{ method: string, path: string, events: number, status: number, test: boolean }} RequestLog
 */

/** @param {unknown} value @param {string} type */
function hasType(value, type) {
	switch (type) {
		case 'integer':
			return Number.isInteger(value);
		case 'array':
			return Array.isArray(value);
		case 'object':
			return typeof value === 'object' && value !== null && !Array.isArray(value);
		default:
			return value === null || typeof value === type;
	}
}

/**
 * Schema problems make the whole request invalid (400), as an OpenAPI-validated endpoint does.
 * @param {any} event @param {number} i
 * @returns {string | null}
 */
function schemaProblem(event, i) {
	const at = `data[${i}]`;
	if (!hasType(event, 'object')) return `${at} is not an object`;
	for (const key of Object.keys(event)) {
		if (!(key in EVENT_KEYS)) return `${at}: additional property "${key}" is not allowed`;
		if (!hasType(event[key], EVENT_KEYS[/** @type {keyof typeof EVENT_KEYS} */ (key)])) {
			return `${at}.${key} must be of type ${EVENT_KEYS[/** @type {keyof typeof EVENT_KEYS} */ (key)]}`;
		}
	}
	for (const key of REQUIRED_EVENT_KEYS) {
		if (event[key] === undefined || event[key] === null) return `${at}.${key} is required`;
	}
	if (!EVENT_NAMES.has(event.event_name))
		return `${at}.event_name "${event.event_name}" is not a valid event name`;
	if (!ACTION_SOURCES.has(event.action_source)) {
		return `${at}.action_source "${event.action_source}" is not one of app_android, app_ios, web, offline`;
	}
	const ud = event.user_data;
	for (const key of Object.keys(ud)) {
		if (HASHED_KEYS.includes(key)) {
			if (
				!Array.isArray(ud[key]) ||
				!ud[key].every((/** @type {unknown} */ v) => typeof v === 'string')
			) {
				return `${at}.user_data.${key} must be an array of strings`;
			}
		} else if (CLEAR_KEYS.includes(key)) {
			if (typeof ud[key] !== 'string') return `${at}.user_data.${key} must be a string`;
		} else {
			return `${at}.user_data: unknown property "${key}"`;
		}
	}
	const cd = event.custom_data;
	if (cd !== undefined) {
		for (const key of Object.keys(cd)) {
			if (!(key in CUSTOM_DATA_KEYS))
				return `${at}.custom_data: additional property "${key}" is not allowed`;
			if (!hasType(cd[key], CUSTOM_DATA_KEYS[/** @type {keyof typeof CUSTOM_DATA_KEYS} */ (key)])) {
				return `${at}.custom_data.${key} must be of type ${CUSTOM_DATA_KEYS[/** @type {keyof typeof CUSTOM_DATA_KEYS} */ (key)]}`;
			}
		}
	}
	return null;
}

/**
 * Per-event validation, reported in events[] without failing the others.
 * @param {any} event @param {number} nowSeconds
 * @returns {{ error?: string, warning?: string }}
 */
function eventProblem(event, nowSeconds) {
	const ud = event.user_data;
	for (const key of HASHED_KEYS) {
		if (ud[key] === undefined) continue;
		if (ud[key].length === 0 || !ud[key].every((/** @type {string} */ v) => SHA256_HEX.test(v))) {
			return {
				error: `user_data.${key}: values must be SHA-256 hashes (64 lowercase hex characters)`,
			};
		}
	}
	const hasIdentity =
		ud.em !== undefined ||
		ud.hashed_maids !== undefined ||
		(ud.client_ip_address !== undefined && ud.client_user_agent !== undefined);
	if (!hasIdentity) {
		return {
			error: 'user_data requires em, hashed_maids, or both client_ip_address and client_user_agent',
		};
	}
	if (ud.client_ip_address !== undefined && net.isIP(ud.client_ip_address) === 0) {
		return { error: 'user_data.client_ip_address is not a valid IP address' };
	}
	if (event.event_time < nowSeconds - WINDOW_SECONDS)
		return { error: 'event_time is older than 7 days' };
	if (event.event_time > nowSeconds + 600) return { error: 'event_time is in the future' };
	const cd = event.custom_data || {};
	if (cd.value !== undefined && !/^\d+(\.\d+)?$/.test(cd.value)) {
		return { error: 'custom_data.value must be a decimal number given as a string' };
	}
	if (cd.currency !== undefined && !/^[A-Z]{3}$/.test(cd.currency)) {
		return { error: 'custom_data.currency must be an ISO-4217 code' };
	}
	if (event.action_source === 'web' && !event.event_source_url) {
		return { warning: 'event_source_url is recommended for web events' };
	}
	return {};
}

/**
 * @param {{
 *   accessToken: string,
 *   adAccountIds?: string[],
 *   partialFailureStatus?: 200 | 422,
 *   port?: number,
 *   host?: string,
 *   now?: () => number,
 * }} options
 *   adAccountIds: the accounts the token may use (default: any); partialFailureStatus: 422
 *   answers a request with failed events as "Not all events were successfully processed"
 *   carrying the per-event list in `details` (default 200).
 */
async function startPinterestStandIn(options) {
	const now = options.now || (() => Date.now());
	/** @type {import('./http.js').StandInState<Received, RequestLog>} */
	const state = standInState();
	const { received, requests } = state;
	/** Event ids Pinterest "fails" (beyond the built-in validation). */
	const poisonEventIds = new Set();
	let partialFailureStatus = options.partialFailureStatus || 200;

	/** @type {import('./http.js').Handler} */
	const handle = (req, res, raw, url) => {
		const test = url.searchParams.get('test') === 'true';
		/** @type {RequestLog} */
		const log = { method: req.method || '', path: url.pathname, events: 0, status: 0, test };
		const faulted = state.playFault(req, (fault) => {
			log.status = fault.status || 500;
			requests.push(log);
			send(res, log.status, fault.body ?? { code: 1, message: 'fault' }, fault.headers);
		});
		if (faulted) return undefined;
		requests.push(log);
		const answer = (/** @type {number} */ status, /** @type {unknown} */ body) => {
			log.status = status;
			return send(res, status, body);
		};
		const match = /^\/v5\/ad_accounts\/([^/]+)\/events\/?$/.exec(url.pathname);
		if (!match) return answer(404, { code: 404, message: 'Resource not found.' });
		if (req.method !== 'POST') return answer(405, { code: 405, message: 'Method not allowed.' });
		const authorization = String(req.headers.authorization || '');
		if (authorization !== `Bearer ${options.accessToken}`) {
			return answer(401, { code: 2, message: 'Authentication failed.' });
		}
		const adAccountId = decodeURIComponent(match[1]);
		if (
			!/^\d+$/.test(adAccountId) ||
			(options.adAccountIds && !options.adAccountIds.includes(adAccountId))
		) {
			return answer(403, { code: 29, message: 'You are not permitted to access that resource.' });
		}
		if (!String(req.headers['content-type'] || '').includes('application/json')) {
			return answer(400, {
				code: 4196,
				message: 'The request was invalid. Content-Type must be application/json',
			});
		}
		/** @type {any} */
		let body;
		try {
			body = JSON.parse(raw);
		} catch {
			return answer(400, {
				code: 4196,
				message: 'The request was invalid. Body is not valid JSON',
			});
		}
		const invalid = (/** @type {string} */ why) =>
			answer(400, { code: 4196, message: `The request was invalid. ${why}` });
		if (!hasType(body, 'object')) return invalid('Body must be an object');
		for (const key of Object.keys(body)) {
			if (key !== 'data') return invalid(`additional property "${key}" is not allowed`);
		}
		const data = body.data;
		if (!Array.isArray(data)) return invalid('data is required');
		log.events = data.length;
		if (data.length < 1 || data.length > 1000) return invalid('data must hold 1 to 1000 events');
		for (let i = 0; i < data.length; i++) {
			const problem = schemaProblem(data[i], i);
			if (problem) return invalid(problem);
		}
		const nowSeconds = Math.floor(now() / 1000);
		const at = now();
		const events = data.map((event) => {
			const problem = poisonEventIds.has(event.event_id)
				? { error: 'Invalid event: rejected by the stand-in on request' }
				: eventProblem(event, nowSeconds);
			if (problem.error)
				return { status: 'failed', error_message: problem.error, warning_message: null };
			if (!test) received.push({ adAccountId, event, receivedAt: at });
			return { status: 'processed', error_message: null, warning_message: problem.warning || null };
		});
		const processed = events.filter((e) => e.status === 'processed').length;
		const ack = { num_events_received: data.length, num_events_processed: processed, events };
		if (processed < data.length && partialFailureStatus === 422) {
			return answer(422, {
				code: 4198,
				message: 'Not all events were successfully processed',
				details: ack,
			});
		}
		return answer(200, ack);
	};
	const server = await startStandInServer(options, { state, handle });
	return {
		// url, port, received, requests, queueFaults and close, as every stand-in has
		...server,
		/** @param {string} eventId */
		poison: (eventId) => poisonEventIds.add(eventId),
		/** @param {200 | 422} status */
		answerPartialFailuresWith: (status) => {
			partialFailureStatus = status;
		},
		reset: () => {
			state.clear();
			poisonEventIds.clear();
			partialFailureStatus = options.partialFailureStatus || 200;
		},
	};
}

module.exports = { startPinterestStandIn, schemaProblem, eventProblem, HASHED_KEYS };

if (require.main === module) {
	const cli = commandLine(
		'pinterest.js --port <port> --token <conversion token> [--ad-account <id>]',
	);
	const adAccount = cli.arg('ad-account');
	startPinterestStandIn({
		accessToken: cli.required('token', 'PINTEREST_STANDIN_TOKEN'),
		adAccountIds: adAccount ? [adAccount] : undefined,
		port: cli.port(),
	}).then((standIn) => {
		console.log(`Pinterest stand-in listening on ${standIn.url}`);
	});
}
