#!/usr/bin/env node
// @ts-check
/**
 * A loopback HTTP server that answers and validates like Google's Data Manager API for Google Ads
 * conversions (docs/platforms/google-data-manager.md), plus the OAuth2 token endpoint n8n
 * refreshes tokens at. Used by the unit, integration and end-to-end tests and `npm run dev`.
 * Plain JavaScript so it runs without a build step:
 *
 *   node test/standins/googleDataManager.js --port 18086 \
 *     [--client-id <id> --client-secret <secret>] [--refresh-token <token>] \
 *     [--login-account-id <digits>]
 *
 * Endpoints:
 *  - POST /token: OAuth2 refresh (grant_type=refresh_token) → a new access token with the
 *    Data Manager scope.
 *  - POST /v1/events:ingest: IngestEventsRequest → `{ requestId }`.
 *  - GET /v1/requestStatus:retrieve?requestId=…: RetrieveRequestStatusResponse.
 * Every API call checks `Authorization: Bearer <token>` (401 UNAUTHENTICATED) and that the token
 * carries the scope https://www.googleapis.com/auth/datamanager (403 PERMISSION_DENIED,
 * ACCESS_TOKEN_SCOPE_INSUFFICIENT). No developer token is needed or looked at.
 *
 * Fast fail, as Google documents it: the request is validated as a whole (destinations: 1..10,
 * operatingAccount GOOGLE_ADS owning the conversion action in productDestinationId, loginAccount
 * when configured; events: 1..2,000; per event eventTimestamp, ≤ 10 user identifiers each
 * exactly one of emailAddress / phoneNumber (64 hex under encoding HEX) / address, a click id or
 * an identifier, consent enums, currency, eventSource); any violation fails the whole request
 * with 400 INVALID_ARGUMENT, google.rpc.BadRequest fieldViolations naming `events[i]…`, an
 * ErrorInfo with the first reason and a RequestInfo. Nothing of a failed request is recorded.
 * Events with a transactionId already recorded for the same destination are adjustments: the
 * same value is a no-op, a new value a restatement (no duplicate error, as Google documents).
 * validateOnly validates and records nothing; its request id cannot be retrieved.
 * Scripted rejections (`rejectEvents`) make chosen transaction ids invalid, with or without a
 * field path naming them (the latter for bisection tests).
 * GET /__standin/received returns what was recorded; DELETE /__standin/received clears it;
 * POST /__standin/expire-token expires every access token issued so far.
 */
const http = require('node:http');
const crypto = require('node:crypto');
const { commandLine, jsonSender, standInState, startStandInServer } = require('./http.js');

const SCOPE = 'https://www.googleapis.com/auth/datamanager';
const MAX_EVENTS = 2000;
const MAX_DESTINATIONS = 10;
const MAX_USER_IDENTIFIERS = 10;
const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
const CLICK_ID = /^[A-Za-z0-9_-]+$/;
const CONSENT = new Set(['CONSENT_GRANTED', 'CONSENT_DENIED', 'CONSENT_STATUS_UNSPECIFIED']);
const EVENT_SOURCES = new Set(['WEB', 'APP', 'IN_STORE', 'PHONE', 'OTHER']);
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const DOMAIN = 'datamanager.googleapis.com';

/**
 * @typedef {{ field: string, description: string, reason: string }} Violation
 * @typedef {{ requestId: string, destination: string, event: any, kind: 'new' | 'restatement' | 'same', receivedAt: number }} Received
 * @typedef {{ method: string, path: string, events: number, status: number, validateOnly?: boolean,
 *   requestId?: string, reason?: string, violations?: number }} RequestLog
 * @typedef {{ transactionId: string, reason?: string, description?: string, withoutIndex?: boolean, times?: number }} Rejection
 * @typedef {{ value?: number, currency?: string, adjustments: number, events: number }} Conversion
 */

const send = jsonSender('application/json; charset=UTF-8');

function newRequestId() {
	return crypto.randomUUID();
}

/**
 * google.rpc.Status as Google's REST error body, with the standard detail payloads.
 * @param {number} code HTTP status
 * @param {string} status canonical code, e.g. INVALID_ARGUMENT
 * @param {string} message
 * @param {{ reason?: string, violations?: Violation[], requestId?: string }} [extra]
 */
function rpcError(code, status, message, extra = {}) {
	/** @type {unknown[]} */
	const details = [];
	if (extra.reason) {
		details.push({
			'@type': 'type.googleapis.com/google.rpc.ErrorInfo',
			reason: extra.reason,
			domain: DOMAIN,
			metadata: {},
		});
	}
	if (extra.violations && extra.violations.length) {
		details.push({
			'@type': 'type.googleapis.com/google.rpc.BadRequest',
			fieldViolations: extra.violations,
		});
	}
	details.push({
		'@type': 'type.googleapis.com/google.rpc.RequestInfo',
		requestId: extra.requestId || newRequestId(),
	});
	return { error: { code, message, status, details } };
}

/** @param {unknown} value */
const isObject = (value) => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/**
 * One hashed value under the request's encoding.
 * @param {unknown} value @param {string} encoding @param {string} field @param {Violation[]} out
 */
function checkHash(value, encoding, field, out) {
	if (typeof value !== 'string' || value === '') {
		out.push({
			field,
			description: 'A hashed value is required.',
			reason: 'REQUIRED_FIELD_MISSING',
		});
	} else if (encoding === 'HEX' && !HEX_SHA256.test(value)) {
		out.push({
			field,
			description: /^[0-9a-f]*$/i.test(value)
				? 'The SHA256 encoded value is malformed.'
				: 'The HEX encoded value is malformed.',
			reason: /^[0-9a-f]*$/i.test(value) ? 'INVALID_SHA256_FORMAT' : 'INVALID_HEX_ENCODING',
		});
	} else if (encoding === 'BASE64' && !BASE64_SHA256.test(value)) {
		out.push({
			field,
			description: 'The base64 encoded value is malformed.',
			reason: 'INVALID_BASE64_ENCODING',
		});
	}
}

/**
 * @param {any} identifier @param {string} encoding @param {string} path @param {Violation[]} out
 */
function checkIdentifier(identifier, encoding, path, out) {
	const keys = isObject(identifier)
		? Object.keys(identifier).filter((k) => ['emailAddress', 'phoneNumber', 'address'].includes(k))
		: [];
	if (keys.length !== 1) {
		out.push({
			field: path,
			description: 'Exactly one of email_address, phone_number or address must be set.',
			reason: 'INVALID_ARGUMENT',
		});
		return;
	}
	const key = keys[0];
	if (key === 'emailAddress')
		return checkHash(identifier.emailAddress, encoding, `${path}.email_address`, out);
	if (key === 'phoneNumber')
		return checkHash(identifier.phoneNumber, encoding, `${path}.phone_number`, out);
	const address = identifier.address;
	if (!isObject(address)) {
		out.push({
			field: `${path}.address`,
			description: 'Address must be an object.',
			reason: 'INVALID_FORMAT',
		});
		return;
	}
	checkHash(address.givenName, encoding, `${path}.address.given_name`, out);
	checkHash(address.familyName, encoding, `${path}.address.family_name`, out);
	if (typeof address.regionCode !== 'string' || !/^[A-Z]{2}$/.test(address.regionCode)) {
		out.push({
			field: `${path}.address.region_code`,
			description: 'Region code must be an ISO-3166-1 alpha-2 code.',
			reason: 'INVALID_COUNTRY_CODE',
		});
	}
	if (typeof address.postalCode !== 'string' || address.postalCode.trim() === '') {
		out.push({
			field: `${path}.address.postal_code`,
			description: 'Postal code is not valid.',
			reason: 'INVALID_POSTAL_CODE',
		});
	}
}

/**
 * Validates one Event as Data Manager's fast-fail checks do; returns its violations.
 * @param {any} event @param {number} index @param {string | undefined} encoding
 * @returns {Violation[]}
 */
function validateEvent(event, index, encoding) {
	const path = `events[${index}]`;
	/** @type {Violation[]} */
	const out = [];
	if (!isObject(event)) {
		return [{ field: path, description: 'This event is not valid.', reason: 'INVALID_EVENT' }];
	}
	if (event.eventTimestamp === undefined) {
		out.push({
			field: `${path}.event_timestamp`,
			description: 'Required field is missing.',
			reason: 'REQUIRED_FIELD_MISSING',
		});
	} else if (
		typeof event.eventTimestamp !== 'string' ||
		!RFC3339.test(event.eventTimestamp) ||
		Number.isNaN(Date.parse(event.eventTimestamp))
	) {
		out.push({
			field: `${path}.event_timestamp`,
			description: 'Invalid timestamp: RFC 3339 expected.',
			reason: 'INVALID_FORMAT',
		});
	}
	if (
		event.lastUpdatedTimestamp !== undefined &&
		(typeof event.lastUpdatedTimestamp !== 'string' ||
			!RFC3339.test(event.lastUpdatedTimestamp) ||
			Number.isNaN(Date.parse(event.lastUpdatedTimestamp)))
	) {
		out.push({
			field: `${path}.last_updated_timestamp`,
			description: 'Invalid timestamp: RFC 3339 expected.',
			reason: 'INVALID_FORMAT',
		});
	}
	if (
		event.transactionId !== undefined &&
		(typeof event.transactionId !== 'string' || event.transactionId === '')
	) {
		out.push({
			field: `${path}.transaction_id`,
			description: 'Format is invalid.',
			reason: 'INVALID_FORMAT',
		});
	}
	const ads = event.adIdentifiers;
	let clickIds = 0;
	if (ads !== undefined) {
		if (!isObject(ads))
			out.push({
				field: `${path}.ad_identifiers`,
				description: 'Format is invalid.',
				reason: 'INVALID_FORMAT',
			});
		else {
			for (const key of ['gclid', 'gbraid', 'wbraid']) {
				if (ads[key] === undefined) continue;
				clickIds++;
				if (typeof ads[key] !== 'string' || !CLICK_ID.test(ads[key])) {
					out.push({
						field: `${path}.ad_identifiers.${key}`,
						description: 'Format is invalid.',
						reason: 'INVALID_FORMAT',
					});
				}
			}
		}
	}
	const identifiers = event.userData?.userIdentifiers;
	let identifierCount = 0;
	if (event.userData !== undefined) {
		if (!Array.isArray(identifiers) || identifiers.length === 0) {
			out.push({
				field: `${path}.user_data.user_identifiers`,
				description: 'At least one user identifier is required.',
				reason: 'REQUIRED_FIELD_MISSING',
			});
		} else if (identifiers.length > MAX_USER_IDENTIFIERS) {
			out.push({
				field: `${path}.user_data.user_identifiers`,
				description: `Maximum number of user identifiers allowed per event is ${MAX_USER_IDENTIFIERS}.`,
				reason: 'TOO_MANY_USER_IDENTIFIERS',
			});
		} else {
			identifierCount = identifiers.length;
			if (!encoding) {
				out.push({
					field: 'encoding',
					description: 'Encoding is required for UserData uploads.',
					reason: 'REQUIRED_FIELD_MISSING',
				});
			} else {
				identifiers.forEach((identifier, i) =>
					checkIdentifier(identifier, encoding, `${path}.user_data.user_identifiers[${i}]`, out),
				);
			}
		}
	}
	if (clickIds === 0 && identifierCount === 0 && out.length === 0) {
		out.push({
			field: path,
			description: 'Events data contains no user identifiers or ad identifiers.',
			reason: 'NO_IDENTIFIERS_PROVIDED',
		});
	}
	if (event.consent !== undefined) {
		for (const key of ['adUserData', 'adPersonalization']) {
			const value = event.consent?.[key];
			if (value !== undefined && !CONSENT.has(value)) {
				out.push({
					field: `${path}.consent.${key === 'adUserData' ? 'ad_user_data' : 'ad_personalization'}`,
					description: 'Enum value cannot be used.',
					reason: 'INVALID_ENUM_VALUE',
				});
			}
		}
	}
	if (
		event.conversionValue !== undefined &&
		(typeof event.conversionValue !== 'number' || !Number.isFinite(event.conversionValue))
	) {
		out.push({
			field: `${path}.conversion_value`,
			description: 'Invalid number format.',
			reason: 'INVALID_NUMBER_FORMAT',
		});
	}
	if (
		event.currency !== undefined &&
		(typeof event.currency !== 'string' || !/^[A-Z]{3}$/.test(event.currency))
	) {
		out.push({
			field: `${path}.currency`,
			description: 'The currency code is not supported.',
			reason: 'INVALID_CURRENCY_CODE',
		});
	}
	if (event.eventSource !== undefined && !EVENT_SOURCES.has(event.eventSource)) {
		out.push({
			field: `${path}.event_source`,
			description: 'Enum value cannot be used.',
			reason: 'INVALID_ENUM_VALUE',
		});
	}
	return out;
}

/**
 * @param {{
 *   port?: number, host?: string, now?: () => number,
 *   clientId?: string, clientSecret?: string, refreshToken?: string, accessToken?: string,
 *   scopes?: string[], loginAccountId?: string,
 *   accounts?: Record<string, string[]>, processingMs?: number,
 * }} options `accounts`: Google Ads account id → the conversion action ids it owns
 *   (default: 1234567890 owning 987654321, 987654322, 987654323).
 */
async function startGoogleDataManagerStandIn(options = {}) {
	const now = options.now || (() => Date.now());
	const clientId = options.clientId || 'standin-client-id.apps.googleusercontent.com';
	const clientSecret = options.clientSecret || 'standin-client-secret';
	const refreshToken =
		options.refreshToken || `1//standin-refresh-${crypto.randomBytes(6).toString('hex')}`;
	const scopes = options.scopes || [SCOPE];
	const accounts = options.accounts || { 1234567890: ['987654321', '987654322', '987654323'] };
	const newAccessToken = () => `ya29.standin-${crypto.randomBytes(9).toString('base64url')}`;
	let accessToken = options.accessToken || newAccessToken();
	const validTokens = new Set([accessToken]);
	let refreshes = 0;

	/** @type {import('./http.js').StandInState<Received, RequestLog>} */
	const state = standInState();
	const { received, requests } = state;
	/** @type {Rejection[]} */
	const rejections = [];
	/** destination/transactionId → what Google counts for it. */
	/** @type {Map<string, Conversion>} */
	const conversions = new Map();
	/** @type {Map<string, { destinations: any[], recordCount: number, at: number }>} */
	const statuses = new Map();

	/** @param {http.IncomingMessage} req */
	const checkAuth = (req) => {
		const bearer = /^Bearer (\S+)$/.exec(String(req.headers.authorization || ''));
		if (!bearer || !validTokens.has(bearer[1])) {
			return {
				status: 401,
				body: rpcError(
					401,
					'UNAUTHENTICATED',
					'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
					{ reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED' },
				),
			};
		}
		if (!scopes.includes(SCOPE)) {
			return {
				status: 403,
				body: rpcError(
					403,
					'PERMISSION_DENIED',
					'Request had insufficient authentication scopes.',
					{
						reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
					},
				),
			};
		}
		return null;
	};

	/** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} raw */
	const handleToken = (req, res, raw) => {
		const form = Object.fromEntries(new URLSearchParams(raw).entries());
		let id = form.client_id;
		let secret = form.client_secret;
		const basic = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization || ''));
		if (basic) {
			const [user, pass] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
			id = decodeURIComponent(user || '');
			secret = decodeURIComponent(pass || '');
		}
		if (id !== clientId || secret !== clientSecret) {
			return send(res, 401, {
				error: 'invalid_client',
				error_description: 'The OAuth client was not found.',
			});
		}
		if (form.grant_type !== 'refresh_token') {
			return send(res, 400, {
				error: 'unsupported_grant_type',
				error_description: `Invalid grant_type: ${form.grant_type || ''}`,
			});
		}
		if (form.refresh_token !== refreshToken) {
			return send(res, 400, {
				error: 'invalid_grant',
				error_description: 'Token has been expired or revoked.',
			});
		}
		refreshes++;
		accessToken = newAccessToken();
		validTokens.add(accessToken);
		return send(res, 200, {
			access_token: accessToken,
			expires_in: 3599,
			scope: scopes.join(' '),
			token_type: 'Bearer',
		});
	};

	/**
	 * The request-level checks: destinations and the number of events. Null when they pass.
	 * @param {any} body
	 * @returns {{ status: number, reason: string, message: string, violations?: Violation[] } | null}
	 */
	const checkRequest = (body) => {
		const destinations = body.destinations;
		if (!Array.isArray(destinations) || destinations.length === 0) {
			return {
				status: 400,
				reason: 'REQUIRED_FIELD_MISSING',
				message: 'Required field is missing.',
				violations: [
					{
						field: 'destinations',
						description: 'At least one destination is required.',
						reason: 'REQUIRED_FIELD_MISSING',
					},
				],
			};
		}
		if (destinations.length > MAX_DESTINATIONS) {
			return {
				status: 400,
				reason: 'TOO_MANY_DESTINATIONS',
				message: 'Maximum number of destinations allowed per request is 10.',
			};
		}
		for (const [i, d] of destinations.entries()) {
			const operating = d?.operatingAccount;
			const type = operating?.accountType ?? operating?.product;
			if (
				!operating ||
				typeof operating.accountId !== 'string' ||
				!/^\d+$/.test(operating.accountId) ||
				type !== 'GOOGLE_ADS'
			) {
				return {
					status: 400,
					reason: 'INVALID_DESTINATION',
					message: 'This Destination is not valid.',
					violations: [
						{
							field: `destinations[${i}].operating_account`,
							description:
								'An operating account of type GOOGLE_ADS with a numeric account_id is required.',
							reason: 'INVALID_DESTINATION',
						},
					],
				};
			}
			const login = d.loginAccount?.accountId;
			if (options.loginAccountId && login !== options.loginAccountId) {
				return {
					status: 403,
					reason: 'PERMISSION_DENIED',
					message: 'The caller does not have permission',
				};
			}
			const actions = accounts[operating.accountId];
			if (!actions) {
				return {
					status: 403,
					reason: 'PERMISSION_DENIED',
					message: 'The user does not have permission or the resource is not found.',
				};
			}
			if (typeof d.productDestinationId !== 'string' || !actions.includes(d.productDestinationId)) {
				return {
					status: 400,
					reason: 'INVALID_CONVERSION_ACTION_ID',
					message: 'Conversion action ID is not valid.',
					violations: [
						{
							field: `destinations[${i}].product_destination_id`,
							description: 'Conversion action ID is not valid.',
							reason: 'INVALID_CONVERSION_ACTION_ID',
						},
					],
				};
			}
		}
		if (!Array.isArray(body.events) || body.events.length === 0) {
			return {
				status: 400,
				reason: 'REQUIRED_FIELD_MISSING',
				message: 'Required field is missing.',
				violations: [
					{
						field: 'events',
						description: 'At least one event is required.',
						reason: 'REQUIRED_FIELD_MISSING',
					},
				],
			};
		}
		if (body.events.length > MAX_EVENTS) {
			return {
				status: 400,
				reason: 'TOO_MANY_EVENTS',
				message: `Maximum number of events allowed per request is ${MAX_EVENTS}.`,
			};
		}
		if (body.encoding !== undefined && !['HEX', 'BASE64'].includes(body.encoding)) {
			return {
				status: 400,
				reason: 'INVALID_ENUM_VALUE',
				message: 'Enum value cannot be used.',
				violations: [
					{
						field: 'encoding',
						description: 'Enum value cannot be used.',
						reason: 'INVALID_ENUM_VALUE',
					},
				],
			};
		}
		return null;
	};

	/** Scripted rejections that hit this event (and use one of their `times`). @param {any} event */
	const rejectionFor = (event) => {
		const i = rejections.findIndex((r) => r.transactionId === event?.transactionId);
		if (i < 0) return undefined;
		const rejection = rejections[i];
		if (rejection.times !== undefined && --rejection.times <= 0) rejections.splice(i, 1);
		return rejection;
	};

	/** @param {http.ServerResponse} res @param {any} body @param {RequestLog} log */
	const handleIngest = (res, body, log) => {
		log.events = Array.isArray(body.events) ? body.events.length : 0;
		log.validateOnly = body.validateOnly === true;
		const problem = checkRequest(body);
		if (problem) {
			log.status = problem.status;
			log.reason = problem.reason;
			const status = problem.status === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT';
			return send(
				res,
				problem.status,
				rpcError(problem.status, status, problem.message, {
					reason: problem.reason,
					violations: problem.violations,
				}),
			);
		}
		/** @type {Violation[]} */
		const violations = [];
		body.events.forEach((/** @type {any} */ event, /** @type {number} */ i) => {
			violations.push(...validateEvent(event, i, body.encoding));
			const rejection = rejectionFor(event);
			if (rejection) {
				violations.push({
					field: rejection.withoutIndex ? '' : `events[${i}]`,
					description: rejection.description || 'This event is not valid.',
					reason: rejection.reason || 'INVALID_EVENT',
				});
			}
		});
		if (violations.length > 0) {
			log.status = 400;
			log.reason = violations[0].reason;
			log.violations = violations.length;
			const anonymous = violations.every((v) => v.field === '');
			return send(
				res,
				400,
				rpcError(400, 'INVALID_ARGUMENT', 'There was a problem with the request.', {
					reason: violations[0].reason,
					violations: anonymous ? undefined : violations.filter((v) => v.field !== ''),
				}),
			);
		}
		const requestId = newRequestId();
		log.requestId = requestId;
		if (body.validateOnly === true) return send(res, 200, { requestId });
		const at = now();
		for (const event of body.events) {
			// event.proto: destination_references picks destinations by their `reference`; an
			// event without references goes to every destination of the request.
			const refs = Array.isArray(event.destinationReferences) ? event.destinationReferences : [];
			const targets = refs.length
				? body.destinations.filter((/** @type {any} */ d) => refs.includes(d.reference))
				: body.destinations;
			for (const d of targets) {
				const destination = `${d.operatingAccount.accountId}/${d.productDestinationId}`;
				/** @type {Received['kind']} */
				let kind = 'new';
				if (event.transactionId) {
					const key = `${destination}/${event.transactionId}`;
					const known = conversions.get(key);
					if (!known) {
						conversions.set(key, {
							value: event.conversionValue,
							currency: event.currency,
							adjustments: 0,
							events: 1,
						});
					} else {
						known.events++;
						if (known.value !== event.conversionValue || known.currency !== event.currency) {
							kind = 'restatement';
							known.adjustments++;
							known.value = event.conversionValue;
							known.currency = event.currency;
						} else kind = 'same';
					}
				}
				received.push({ requestId, destination, event, kind, receivedAt: at });
			}
		}
		statuses.set(requestId, {
			destinations: body.destinations,
			recordCount: body.events.length,
			at,
		});
		return send(res, 200, { requestId });
	};

	/** @param {http.ServerResponse} res @param {URL} url @param {RequestLog} log */
	const handleStatus = (res, url, log) => {
		const id = url.searchParams.get('requestId') || url.searchParams.get('request_id') || '';
		log.requestId = id;
		const known = statuses.get(id);
		if (!known) {
			log.status = 400;
			log.reason = 'INVALID_REQUEST_ID';
			return send(
				res,
				400,
				rpcError(
					400,
					'INVALID_ARGUMENT',
					'The request ID used to retrieve the status of a request is not valid.',
					{
						reason: 'INVALID_REQUEST_ID',
						violations: [
							{
								field: 'request_id',
								description: 'The request ID is not valid.',
								reason: 'INVALID_REQUEST_ID',
							},
						],
					},
				),
			);
		}
		const processing = now() - known.at < (options.processingMs || 0);
		return send(res, 200, {
			requestStatusPerDestination: known.destinations.map((destination) => ({
				destination,
				requestStatus: processing ? 'PROCESSING' : 'SUCCESS',
				eventsIngestionStatus: { recordCount: String(known.recordCount) },
			})),
		});
	};

	/** @type {import('./http.js').Handler} */
	const handle = (req, res, raw, url) => {
		if (url.pathname === '/token' && req.method === 'POST') return handleToken(req, res, raw);
		if (url.pathname === '/__standin/expire-token' && req.method === 'POST') {
			validTokens.clear();
			accessToken = newAccessToken();
			return send(res, 200, { ok: true });
		}
		const faulted = state.playFault(req, (fault) => {
			const status = fault.status || 500;
			requests.push({ method: req.method || '', path: url.pathname, events: 0, status });
			const body =
				fault.body ??
				rpcError(
					status,
					status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL',
					status === 429 ? 'Quota exceeded.' : 'Internal error encountered.',
				);
			send(res, status, body, fault.headers);
		});
		if (faulted) return undefined;
		const ingest = url.pathname === '/v1/events:ingest' && req.method === 'POST';
		const status = url.pathname === '/v1/requestStatus:retrieve' && req.method === 'GET';
		if (!ingest && !status) {
			return send(
				res,
				404,
				rpcError(404, 'NOT_FOUND', `Method not found: ${req.method} ${url.pathname}`),
			);
		}
		/** @type {RequestLog} */
		const log = { method: req.method || '', path: url.pathname, events: 0, status: 200 };
		requests.push(log);
		const authProblem = checkAuth(req);
		if (authProblem) {
			log.status = authProblem.status;
			return send(res, authProblem.status, authProblem.body);
		}
		if (status) return handleStatus(res, url, log);
		let body;
		try {
			body = JSON.parse(raw || '{}');
		} catch {
			log.status = 400;
			return send(res, 400, rpcError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
		}
		return handleIngest(res, body, log);
	};

	const server = await startStandInServer(options, {
		state,
		handle,
		send,
		report: () => ({ received, requests, refreshes, conversions: Object.fromEntries(conversions) }),
	});
	return {
		...server,
		tokenUrl: `${server.url}/token`,
		clientId,
		clientSecret,
		refreshToken,
		accessToken: () => accessToken,
		refreshes: () => refreshes,
		expireAccessToken: () => {
			validTokens.clear();
			accessToken = newAccessToken();
		},
		/** What Google counts per `account/action/transactionId`: value, adjustments, events. */
		conversions: () => Object.fromEntries(conversions),
		/** @param {Rejection[]} list Transaction ids to reject (`times` limits how often). */
		rejectEvents: (list) => rejections.push(...list.map((r) => ({ ...r }))),
		reset: () => {
			state.clear();
			rejections.length = 0;
			conversions.clear();
			statuses.clear();
		},
	};
}

module.exports = { startGoogleDataManagerStandIn, validateEvent, DATA_MANAGER_SCOPE: SCOPE };

if (require.main === module) {
	const cli = commandLine(
		'googleDataManager.js --port <port> [--client-id <id> --client-secret <secret>] [--refresh-token <token>] [--login-account-id <digits>]',
	);
	startGoogleDataManagerStandIn({
		clientId: cli.arg('client-id'),
		clientSecret: cli.arg('client-secret'),
		refreshToken: cli.arg('refresh-token'),
		loginAccountId: cli.arg('login-account-id'),
		port: cli.port(),
	}).then((standIn) => {
		console.log(`Google Data Manager stand-in listening on ${standIn.url}`);
		console.log(`  Access Token URL: ${standIn.tokenUrl}`);
		console.log(`  client id / secret: ${standIn.clientId} / ${standIn.clientSecret}`);
		console.log(
			`  oauthTokenData: ${JSON.stringify({ access_token: standIn.accessToken(), refresh_token: standIn.refreshToken, token_type: 'Bearer', expires_in: 3599 })}`,
		);
	});
}
