#!/usr/bin/env node
// @ts-check
/**
 * A loopback HTTP server that answers and validates like Meta's Conversions API
 * (POST /{version}/{pixel}/events) and the Graph object read the credential test uses
 * (GET /{version}/{pixel}). Used by the integration tests, the end-to-end suite in real n8n and
 * `npm run dev`. Plain JavaScript so it runs without a build step:
 *
 *   node test/standins/meta.js --port 18081 --token <access token> [--app-secret <secret>]
 *
 * It checks what Meta documents (platforms.md §1): access token and appsecret_proof, `data`
 * with 1..1000 events, event_time within 7 days, valid action_source, website events with
 * client_user_agent and event_source_url, hashed user_data fields as 64 lowercase hex, and it
 * rejects the whole request when one event is invalid, as Meta does. Faults can be scripted.
 * GET /__standin/received returns what was accepted; DELETE /__standin/received clears it.
 */
const crypto = require('node:crypto');
const net = require('node:net');
const { commandLine, sendJson: send, standInState, startStandInServer } = require('./http.js');

const HASHED_KEYS = ['em', 'ph', 'fn', 'ln', 'db', 'ge', 'ct', 'st', 'zp', 'country', 'external_id'];
const ACTION_SOURCES = new Set([
	'email',
	'website',
	'app',
	'phone_call',
	'chat',
	'physical_store',
	'system_generated',
	'business_messaging',
	'other',
]);
const WINDOW_SECONDS = 7 * 24 * 3600;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Each accepted event names the request that brought it (`request`, its index in the request log);
 * a request's `answeredAt` is set once its answer went out to a client still listening, so a
 * test can tell an acknowledged delivery from one whose answer was lost (the `accept-` faults).
 * @typedef {{ pixelId: string, event: any, receivedAt: number, request: number }} Received
 * @typedef {{ method: string, path: string, events: number, status: number, answeredAt?: number, testEventCode?: string, partnerAgent?: string }} RequestLog
 */

function traceId() {
	return crypto.randomBytes(8).toString('base64url');
}

/** @param {number} code @param {string} message @param {Record<string, unknown>} [extra] */
function graphError(code, message, extra = {}) {
	return {
		error: {
			message,
			type: code === 190 ? 'OAuthException' : 'OAuthException',
			code,
			fbtrace_id: traceId(),
			...extra,
		},
	};
}

/**
 * Validates one server event the way Meta does; returns a problem description or null.
 * @param {any} event
 * @param {number} nowSeconds
 * @returns {{ message: string, subcode?: number } | null}
 */
function validateEvent(event, nowSeconds) {
	if (!event || typeof event !== 'object') return { message: 'event is not an object' };
	if (typeof event.event_name !== 'string' || !event.event_name) {
		return { message: 'The parameter event_name is required' };
	}
	if (!Number.isInteger(event.event_time)) {
		return { message: 'event_time must be a unix timestamp in seconds', subcode: 2804003 };
	}
	if (event.event_time < nowSeconds - WINDOW_SECONDS) {
		return {
			message:
				'The timestamp for this event is too far in the past. Events need to be sent from your server within 7 days of when they occurred.',
			subcode: 2804003,
		};
	}
	if (event.event_time > nowSeconds + 600) {
		return { message: 'The timestamp for this event is in the future.', subcode: 2804004 };
	}
	if (event.event_id !== undefined && typeof event.event_id !== 'string') {
		return { message: 'event_id must be a string' };
	}
	if (!ACTION_SOURCES.has(event.action_source)) {
		return { message: `Invalid action_source: ${String(event.action_source)}`, subcode: 2804008 };
	}
	const ud = event.user_data;
	if (!ud || typeof ud !== 'object' || Object.keys(ud).length === 0) {
		return { message: 'The parameter user_data is required', subcode: 2804007 };
	}
	if (event.action_source === 'website') {
		if (typeof ud.client_user_agent !== 'string' || !ud.client_user_agent) {
			return {
				message: 'The parameter client_user_agent is required for events with action_source website',
				subcode: 2804050,
			};
		}
		if (typeof event.event_source_url !== 'string' || !event.event_source_url) {
			return {
				message: 'The parameter event_source_url is required for events with action_source website',
				subcode: 2804050,
			};
		}
	}
	for (const key of HASHED_KEYS) {
		if (!(key in ud)) continue;
		const values = Array.isArray(ud[key]) ? ud[key] : [ud[key]];
		for (const value of values) {
			if (typeof value !== 'string' || !SHA256_HEX.test(value)) {
				return {
					message: `The parameter user_data.${key} must be hashed with SHA-256 (lowercase hex): unhashed or improperly hashed value`,
					subcode: 2804019,
				};
			}
		}
	}
	if (ud.client_ip_address !== undefined && net.isIP(String(ud.client_ip_address)) === 0) {
		return { message: 'client_ip_address is not a valid IP address' };
	}
	if (ud.fbc !== undefined && !/^fb\.\d\.\d+\.\S+$/.test(String(ud.fbc))) {
		return { message: 'fbc is malformed' };
	}
	if (event.data_processing_options !== undefined && !Array.isArray(event.data_processing_options)) {
		return { message: 'data_processing_options must be an array' };
	}
	if (Array.isArray(event.data_processing_options) && event.data_processing_options.includes('LDU')) {
		if (
			!Number.isInteger(event.data_processing_options_country) ||
			!Number.isInteger(event.data_processing_options_state)
		) {
			return { message: 'Limited Data Use Selection Required', subcode: 2804030 };
		}
	}
	const crm = validateCrmEvent(event);
	if (crm) return crm;
	if (event.event_name === 'Purchase') {
		const cd = event.custom_data || {};
		if (typeof cd.value !== 'number' || typeof cd.currency !== 'string') {
			return { message: 'Purchase events require custom_data.value and custom_data.currency' };
		}
	}
	return null;
}

/**
 * Conversion Leads (CRM) events, per Meta's payload specification: an event carrying
 * custom_data.event_source "crm" or user_data.lead_id must have action_source system_generated,
 * custom_data.event_source "crm", a custom_data.lead_event_source (the CRM's name), and a valid
 * lead_id (15–17 digits; Meta rejects invalid lead ids) or hashed customer information.
 * @param {any} event
 * @returns {{ message: string, subcode?: number } | null}
 */
function validateCrmEvent(event) {
	const cd = event.custom_data && typeof event.custom_data === 'object' ? event.custom_data : {};
	const ud = event.user_data;
	if (cd.event_source !== 'crm' && ud.lead_id === undefined) return null;
	if (event.action_source !== 'system_generated') {
		return { message: 'CRM events must have action_source system_generated', subcode: 2804008 };
	}
	if (cd.event_source !== 'crm') {
		return { message: 'The parameter custom_data.event_source must be crm for CRM events' };
	}
	if (typeof cd.lead_event_source !== 'string' || cd.lead_event_source.trim() === '') {
		return { message: 'The parameter custom_data.lead_event_source is required for CRM events' };
	}
	if (ud.lead_id !== undefined && !/^\d{15,17}$/.test(String(ud.lead_id))) {
		return { message: 'Invalid lead_id: the lead ID must be the 15-17 digit ID of a Meta lead' };
	}
	if (ud.lead_id === undefined && !['em', 'ph', 'fbc', 'external_id'].some((k) => k in ud)) {
		return { message: 'CRM events need user_data.lead_id or customer information (em, ph)' };
	}
	return null;
}

/**
 * @param {{ accessToken: string, appSecret?: string, port?: number, host?: string, now?: () => number }} options
 */
async function startMetaStandIn(options) {
	const now = options.now || (() => Date.now());
	/** @type {import('./http.js').StandInState<Received, RequestLog>} */
	const state = standInState();
	const { received, requests } = state;
	/** Which event ids make a batch invalid (beyond the built-in validation). */
	const poisonEventIds = new Set();

	const checkAuth = (/** @type {Record<string, any>} */ params) => {
		if (params.access_token !== options.accessToken) {
			return graphError(190, 'Invalid OAuth access token - Cannot parse access token');
		}
		if (options.appSecret) {
			const proof = crypto
				.createHmac('sha256', options.appSecret)
				.update(String(params.access_token))
				.digest('hex');
			if (params.appsecret_proof !== proof) {
				return graphError(100, 'Invalid appsecret_proof provided in the API argument');
			}
		}
		return null;
	};

	/** @type {import('./http.js').Handler} */
	const handle = (req, res, raw, url) => {
		const faulted = state.playFault(req, (fault) => {
			const status = fault.status || 500;
			requests.push({ method: req.method || '', path: url.pathname, events: 0, status });
			send(res, status, fault.body ?? { error: { message: 'fault', code: 2 } }, fault.headers);
		});
		if (faulted) return undefined;
		const match = /^\/(v\d+\.\d+)\/([^/]+)(\/events)?\/?$/.exec(url.pathname);
		if (!match) return send(res, 404, graphError(803, 'Unknown path components'));
		const pixelId = decodeURIComponent(match[2]);
		/** @type {Record<string, any>} */
		let params = Object.fromEntries(url.searchParams.entries());
		if (raw) {
			const type = String(req.headers['content-type'] || '');
			try {
				if (type.includes('application/x-www-form-urlencoded')) {
					const form = Object.fromEntries(new URLSearchParams(raw).entries());
					if (typeof form.data === 'string') form.data = JSON.parse(form.data);
					params = { ...params, ...form };
				} else {
					params = { ...params, ...JSON.parse(raw) };
				}
			} catch {
				return send(res, 400, graphError(100, 'Invalid JSON in request body'));
			}
		}
		const authError = checkAuth(params);
		if (!match[3]) {
			// Object read: what the credential test calls.
			if (req.method !== 'GET') return send(res, 400, graphError(100, 'Unsupported request'));
			if (authError) return send(res, 400, authError);
			return send(res, 200, { id: pixelId, name: `Stand-in dataset ${pixelId}` });
		}
		if (req.method !== 'POST') return send(res, 400, graphError(100, 'Unsupported get request'));
		/** @type {RequestLog} */
		const log = {
			method: 'POST',
			path: url.pathname,
			events: Array.isArray(params.data) ? params.data.length : 0,
			status: 200,
			testEventCode: params.test_event_code,
			partnerAgent: params.partner_agent,
		};
		const request = requests.push(log) - 1;
		res.once('finish', () => {
			log.answeredAt = now();
		});
		if (authError) {
			log.status = 400;
			return send(res, 400, authError);
		}
		const data = params.data;
		if (!Array.isArray(data) || data.length === 0) {
			log.status = 400;
			return send(res, 400, graphError(100, 'The parameter data is required', { error_subcode: 2804019 }));
		}
		if (data.length > 1000) {
			log.status = 400;
			return send(res, 400, graphError(100, 'Too many events in one request: the maximum is 1000'));
		}
		const nowSeconds = Math.floor(now() / 1000);
		for (let i = 0; i < data.length; i++) {
			const problem = poisonEventIds.has(data[i] && data[i].event_id)
				? { message: 'Invalid parameter value for this event', subcode: 2804001 }
				: validateEvent(data[i], nowSeconds);
			if (problem) {
				log.status = 400;
				return send(
					res,
					400,
					graphError(100, 'Invalid parameter', {
						error_subcode: problem.subcode ?? 2804001,
						error_user_title: 'Invalid event',
						error_user_msg: `data[${i}]: ${problem.message}`,
					}),
				);
			}
		}
		const at = now();
		for (const event of data) received.push({ pixelId, event, receivedAt: at, request });
		return send(res, 200, { events_received: data.length, messages: [], fbtrace_id: traceId() });
	};
	const server = await startStandInServer(options, { state, handle });
	return {
		// url, port, received, requests, queueFaults and close, as every stand-in has
		...server,
		/** @param {string} eventId */
		poison: (eventId) => poisonEventIds.add(eventId),
		reset: () => {
			state.clear();
			poisonEventIds.clear();
		},
	};
}

module.exports = { startMetaStandIn, validateEvent, HASHED_KEYS };

if (require.main === module) {
	const cli = commandLine('meta.js --port <port> --token <access token> [--app-secret <secret>]');
	startMetaStandIn({
		accessToken: cli.required('token', 'META_STANDIN_TOKEN'),
		appSecret: cli.arg('app-secret'),
		port: cli.port(),
	}).then((standIn) => {
		console.log(`Meta stand-in listening on ${standIn.url}`);
	});
}
