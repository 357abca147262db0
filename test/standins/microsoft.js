#!/usr/bin/env node
// @ts-check
/**
 * A loopback HTTP server that answers and validates like Microsoft Advertising's UET
 * Conversions API (POST /v1/{uetTagId}/events). Used by the integration tests, the end-to-end
 * suite in real n8n and `npm run dev`. Plain JavaScript so it runs without a build step:
 *
 *   node test/standins/microsoft.js --port 18085 --token <api token> [--tag <uet tag id>]
 *
 * It checks what platforms.md §5 knows (mostly from 2nd-party integrations): the bearer token
 * (401 `{"error":{"code":"Unauthorized",…}}`), the token's tag (403), `data` with 1..1000
 * events, the request-level fields at the top level, each event's eventType, eventId, eventName
 * (custom), eventTime (within 7 days, the window we chose), eventSourceUrl (pageLoad),
 * adStorageConsent G/D, userData keys with em/ph as 64 lowercase hex, customData. Invalid
 * events are listed in `error.details` by index, with `attemptedValue` echoed as Microsoft
 * does; with `continueOnValidationError: true` the valid ones are accepted (HTTP 200), else
 * the whole request is refused (HTTP 400). Faults can be scripted.
 * GET /__standin/received returns what was accepted; DELETE /__standin/received clears it.
 */
const crypto = require('node:crypto');
const net = require('node:net');
const { commandLine, jsonSender, standInState, startStandInServer } = require('./http.js');

const MAX_EVENTS = 1000;
const WINDOW_SECONDS = 7 * 24 * 3600;
const FUTURE_TOLERANCE_SECONDS = 600;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const EVENT_TYPES = new Set(['pageLoad', 'custom']);
const CONSENT_VALUES = new Set(['G', 'D']);
const PAGE_TYPES = new Set([
	'home',
	'product',
	'category',
	'searchresults',
	'cart',
	'purchase',
	'other',
]);
const TOP_LEVEL_KEYS = new Set(['data', 'dataProvider', 'continueOnValidationError']);
const EVENT_KEYS = new Set([
	'eventType',
	'eventId',
	'eventName',
	'eventTime',
	'eventSourceUrl',
	'pageLoadId',
	'referrerUrl',
	'pageTitle',
	'keywords',
	'adStorageConsent',
	'userData',
	'customData',
]);
const USER_DATA_KEYS = new Set([
	'em',
	'ph',
	'msclkid',
	'anonymousId',
	'externalId',
	'clientIpAddress',
	'clientUserAgent',
	'idfa',
	'gaid',
]);
const HASHED_KEYS = ['em', 'ph'];
const CUSTOM_DATA_KEYS = new Set([
	'eventCategory',
	'eventLabel',
	'eventValue',
	'searchTerm',
	'transactionId',
	'value',
	'currency',
	'itemIds',
	'pageType',
	'ecommTotalValue',
	'ecommCategory',
	'items',
	'hotelData',
]);

/**
 * @typedef {{ propertyName: string, attemptedValue?: unknown, errorMessage: string }} Problem
 * @typedef {{ index: number } & Problem} Detail
 * @typedef {{ uetTagId: string, event: any, receivedAt: number }} Received
 * @typedef {{ method: string, path: string, events: number, status: number, authorization?: string, continueOnValidationError?: unknown, dataProvider?: unknown }} RequestLog
 */

/** Microsoft's API names its charset. */
const send = jsonSender('application/json; charset=utf-8');

function traceId() {
	return crypto.randomUUID();
}

/**
 * Microsoft's answer shape: `{ eventsReceived?, error: { code, message, details? }, traceId }`.
 * @param {string} code @param {string} message
 * @param {{ eventsReceived?: number, details?: Detail[] }} [extra]
 */
function errorBody(code, message, extra = {}) {
	/** @type {Record<string, unknown>} */
	const body = {};
	if (extra.eventsReceived !== undefined) body.eventsReceived = extra.eventsReceived;
	body.error = { code, message, ...(extra.details ? { details: extra.details } : {}) };
	body.traceId = traceId();
	return body;
}

/** @param {unknown} raw */
function isAbsoluteUrl(raw) {
	if (typeof raw !== 'string' || raw === '') return false;
	try {
		const url = new URL(raw);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

/** @param {unknown} value */
function isPlainObject(value) {
	return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Validates one event the way platforms.md §5 describes the API; returns its problems.
 * @param {any} event
 * @param {number} nowSeconds
 * @returns {Problem[]}
 */
function validateEvent(event, nowSeconds) {
	if (!isPlainObject(event))
		return [{ propertyName: '', errorMessage: 'The event must be an object' }];
	/** @type {Problem[]} */
	const problems = [];
	/** @param {string} propertyName @param {unknown} attemptedValue @param {string} errorMessage */
	const add = (propertyName, attemptedValue, errorMessage) =>
		problems.push({ propertyName, attemptedValue, errorMessage });
	for (const key of Object.keys(event)) {
		if (!EVENT_KEYS.has(key)) add(key, event[key], `'${key}' is not a known event property`);
	}
	if (!EVENT_TYPES.has(event.eventType)) {
		add('eventType', event.eventType, "eventType must be 'pageLoad' or 'custom'");
	}
	if (typeof event.eventId !== 'string' || event.eventId === '' || event.eventId.length > 100) {
		add('eventId', event.eventId, 'eventId must be a string of 1 to 100 characters');
	}
	if (
		event.eventType === 'custom' &&
		(typeof event.eventName !== 'string' || event.eventName === '')
	) {
		add('eventName', event.eventName, 'eventName is required for custom events');
	}
	if (!Number.isInteger(event.eventTime)) {
		add('eventTime', event.eventTime, 'eventTime must be a unix timestamp in seconds');
	} else if (event.eventTime < nowSeconds - WINDOW_SECONDS) {
		add('eventTime', event.eventTime, 'eventTime is too far in the past');
	} else if (event.eventTime > nowSeconds + FUTURE_TOLERANCE_SECONDS) {
		add('eventTime', event.eventTime, 'eventTime is in the future');
	}
	if (event.eventType === 'pageLoad' && event.eventSourceUrl === undefined) {
		add('eventSourceUrl', undefined, 'eventSourceUrl is required for pageLoad events');
	}
	if (event.eventSourceUrl !== undefined && !isAbsoluteUrl(event.eventSourceUrl)) {
		add('eventSourceUrl', event.eventSourceUrl, 'eventSourceUrl must be an absolute URL');
	}
	if (event.referrerUrl !== undefined && !isAbsoluteUrl(event.referrerUrl)) {
		add('referrerUrl', event.referrerUrl, 'referrerUrl must be an absolute URL');
	}
	if (event.adStorageConsent !== undefined && !CONSENT_VALUES.has(event.adStorageConsent)) {
		add('adStorageConsent', event.adStorageConsent, "adStorageConsent must be 'G' or 'D'");
	}
	const ud = event.userData;
	if (!isPlainObject(ud) || Object.keys(ud).length === 0) {
		add('userData', ud, 'userData is required and must carry at least one identifier');
	} else {
		for (const [key, value] of Object.entries(ud)) {
			if (!USER_DATA_KEYS.has(key)) {
				add(`userData.${key}`, value, `'${key}' is not a known userData property`);
			} else if (typeof value !== 'string' || value === '') {
				add(`userData.${key}`, value, `userData.${key} must be a non-empty string`);
			}
		}
		for (const key of HASHED_KEYS) {
			if (typeof ud[key] === 'string' && !SHA256_HEX.test(ud[key])) {
				add(
					`userData.${key}`,
					ud[key],
					`userData.${key} must be a SHA-256 hash (64 lowercase hex characters)`,
				);
			}
		}
		if (ud.clientIpAddress !== undefined && net.isIP(String(ud.clientIpAddress)) === 0) {
			add(
				'userData.clientIpAddress',
				ud.clientIpAddress,
				'clientIpAddress is not a valid IP address',
			);
		}
	}
	const cd = event.customData;
	if (cd !== undefined) {
		if (!isPlainObject(cd)) {
			add('customData', cd, 'customData must be an object');
		} else {
			for (const key of Object.keys(cd)) {
				if (!CUSTOM_DATA_KEYS.has(key))
					add(`customData.${key}`, cd[key], `'${key}' is not a known customData property`);
			}
			if (cd.value !== undefined && (typeof cd.value !== 'number' || !(cd.value >= 0))) {
				add('customData.value', cd.value, 'value must be a non-negative number');
			}
			if (
				cd.currency !== undefined &&
				(typeof cd.currency !== 'string' || !/^[A-Z]{3}$/.test(cd.currency))
			) {
				add('customData.currency', cd.currency, 'currency must be an ISO 4217 code');
			}
			if (cd.value !== undefined && cd.currency === undefined) {
				add('customData.currency', undefined, 'currency is required with value');
			}
			if (cd.pageType !== undefined && !PAGE_TYPES.has(cd.pageType)) {
				add(
					'customData.pageType',
					cd.pageType,
					`pageType must be one of ${[...PAGE_TYPES].join(', ')}`,
				);
			}
			if (
				cd.transactionId !== undefined &&
				(typeof cd.transactionId !== 'string' || cd.transactionId === '')
			) {
				add(
					'customData.transactionId',
					cd.transactionId,
					'transactionId must be a non-empty string',
				);
			}
		}
	}
	return problems;
}

/**
 * How many events a request body carries, for the request log (faulted requests too).
 * @param {string} raw
 */
function countEvents(raw) {
	try {
		const body = JSON.parse(raw);
		return body && Array.isArray(body.data) ? body.data.length : 0;
	} catch {
		return 0;
	}
}

/**
 * @param {{ apiToken: string, uetTagId?: string, port?: number, host?: string, now?: () => number }} options
 *   `uetTagId`: when set, the token is valid for this tag only (others answer 403).
 */
async function startMicrosoftStandIn(options) {
	const now = options.now || (() => Date.now());
	/** @type {import('./http.js').StandInState<Received, RequestLog>} */
	const state = standInState();
	const { received, requests } = state;
	/** Event ids Microsoft "finds invalid" beyond the built-in validation: listed in error.details. */
	/** @type {Map<string, { propertyName: string, errorMessage: string }>} */
	const poisoned = new Map();
	/** Event ids that make Microsoft refuse the whole request without details. */
	const refusing = new Set();

	/** @type {import('./http.js').Handler} */
	const handle = (req, res, raw, url) => {
		/** @type {RequestLog} */
		const log = {
			method: req.method || '',
			path: url.pathname,
			events: 0,
			status: 200,
			authorization: req.headers.authorization === undefined ? undefined : 'present',
		};
		requests.push(log);
		/** @param {number} status @param {unknown} body @param {Record<string,string>} [headers] */
		const answer = (status, body, headers) => {
			log.status = status;
			return send(res, status, body, headers);
		};
		log.events = countEvents(raw);
		const faulted = state.playFault(req, (fault) =>
			answer(
				fault.status || 500,
				fault.body ?? errorBody('InternalServerError', 'An internal error occurred'),
				fault.headers,
			),
		);
		if (faulted) return undefined;
		const match = /^\/v1\/([^/]+)\/events\/?$/.exec(url.pathname);
		if (!match) return answer(404, errorBody('NotFound', 'The requested resource does not exist'));
		if (req.method !== 'POST')
			return answer(405, errorBody('MethodNotAllowed', 'Only POST is supported'));
		const uetTagId = decodeURIComponent(match[1]);
		if (req.headers.authorization !== `Bearer ${options.apiToken}`) {
			return answer(
				401,
				errorBody('Unauthorized', 'Authorization failed: the bearer token is missing or invalid'),
			);
		}
		if (options.uetTagId && uetTagId !== options.uetTagId) {
			return answer(
				403,
				errorBody('Forbidden', `The token is not authorized for UET tag ${uetTagId}`),
			);
		}
		if (!String(req.headers['content-type'] || '').includes('application/json')) {
			return answer(
				415,
				errorBody('UnsupportedMediaType', 'Content-Type must be application/json'),
			);
		}
		/** @type {any} */
		let body;
		try {
			body = JSON.parse(raw);
		} catch {
			return answer(400, errorBody('InvalidRequest', 'The request body is not valid JSON'));
		}
		if (!isPlainObject(body))
			return answer(400, errorBody('InvalidRequest', 'The request body must be an object'));
		log.continueOnValidationError = body.continueOnValidationError;
		log.dataProvider = body.dataProvider;
		for (const key of Object.keys(body)) {
			if (!TOP_LEVEL_KEYS.has(key)) {
				return answer(400, errorBody('InvalidRequest', `'${key}' is not a known request property`));
			}
		}
		if (
			body.continueOnValidationError !== undefined &&
			typeof body.continueOnValidationError !== 'boolean'
		) {
			return answer(
				400,
				errorBody('InvalidRequest', 'continueOnValidationError must be a boolean'),
			);
		}
		if (body.dataProvider !== undefined && typeof body.dataProvider !== 'string') {
			return answer(400, errorBody('InvalidRequest', 'dataProvider must be a string'));
		}
		const data = body.data;
		if (!Array.isArray(data) || data.length === 0 || data.length > MAX_EVENTS) {
			return answer(
				400,
				errorBody('InvalidRequest', `data must contain between 1 and ${MAX_EVENTS} events`, {
					eventsReceived: 0,
				}),
			);
		}
		if (data.some((event) => event && refusing.has(event.eventId))) {
			return answer(400, errorBody('InvalidRequest', 'The request could not be processed'));
		}
		const nowSeconds = Math.floor(now() / 1000);
		/** @type {Detail[]} */
		const details = [];
		/** @type {Set<number>} */
		const invalid = new Set();
		data.forEach((event, index) => {
			const problems = validateEvent(event, nowSeconds);
			const injected = event && poisoned.get(event.eventId);
			if (injected) {
				problems.push({ ...injected, attemptedValue: event.userData && event.userData.em });
			}
			for (const problem of problems) details.push({ index, ...problem });
			if (problems.length > 0) invalid.add(index);
		});
		const accepted = data.filter((_, index) => !invalid.has(index));
		if (invalid.size > 0 && (body.continueOnValidationError !== true || accepted.length === 0)) {
			return answer(
				400,
				errorBody('InvalidEvents', 'One or more events failed validation', {
					eventsReceived: 0,
					details,
				}),
			);
		}
		const at = now();
		for (const event of accepted) received.push({ uetTagId, event, receivedAt: at });
		if (invalid.size > 0) {
			return answer(
				200,
				errorBody('PartialSuccess', 'Some events failed validation and were not received', {
					eventsReceived: accepted.length,
					details,
				}),
			);
		}
		return answer(200, { eventsReceived: accepted.length, traceId: traceId() });
	};
	const server = await startStandInServer(options, { state, handle, send });
	return {
		// url, port, received, requests, queueFaults and close, as every stand-in has
		...server,
		/**
		 * Makes Microsoft list this event in error.details (with its hashed email as attemptedValue).
		 * @param {string} eventId
		 * @param {{ propertyName?: string, errorMessage?: string }} [problem]
		 */
		poison: (eventId, problem = {}) =>
			poisoned.set(eventId, {
				propertyName: problem.propertyName || 'userData.em',
				errorMessage: problem.errorMessage || 'The hashed email is not a known format',
			}),
		/**
		 * Makes Microsoft refuse any request carrying this event with a bare 400 (no details).
		 * @param {string} eventId
		 */
		refuseRequestsWith: (eventId) => refusing.add(eventId),
		reset: () => {
			state.clear();
			poisoned.clear();
			refusing.clear();
		},
	};
}

module.exports = { startMicrosoftStandIn, validateEvent, HASHED_KEYS };

if (require.main === module) {
	const cli = commandLine('microsoft.js --port <port> --token <api token> [--tag <uet tag id>]');
	startMicrosoftStandIn({
		apiToken: cli.required('token', 'MICROSOFT_STANDIN_TOKEN'),
		uetTagId: cli.arg('tag'),
		port: cli.port(),
	}).then((standIn) => {
		console.log(`Microsoft UET CAPI stand-in listening on ${standIn.url}`);
	});
}
