#!/usr/bin/env node
// @ts-check
/**
 * A loopback HTTP server that answers and validates like the Google Ads API for click
 * conversion uploads (platforms.md §4), plus the OAuth2 token endpoint n8n refreshes tokens at.
 * Used by the integration tests, the end-to-end suite in real n8n and `npm run dev`. Plain
 * JavaScript so it runs without a build step:
 *
 *   node test/standins/google.js --port 18083 --developer-token <token> \
 *     [--client-id <id> --client-secret <secret>] [--refresh-token <token>] \
 *     [--login-customer-id <digits>] [--time-zone America/New_York]
 *
 * Endpoints:
 *  - POST /token: OAuth2 refresh (grant_type=refresh_token) → a new access token (tokens issued
 *    earlier stay valid until they expire, as Google's do; expireAccessToken() expires them all).
 *  - POST /{version}/customers/{cid}/googleAds:search: `SELECT customer.time_zone FROM customer`
 *    and the conversion-action query (type/status equality filters).
 *  - GET /{version}/customers:listAccessibleCustomers: what a credential test can call.
 *  - POST /{version}/customers/{cid}:uploadClickConversions.
 *  - POST /{version}/customers/{cid}:uploadConversionAdjustments: RETRACTION and RESTATEMENT
 *    by orderId of a conversion uploaded here (or seeded with seedConversions), partialFailure
 *    required; per row CONVERSION_NOT_FOUND, CONVERSION_EXPIRED (over 54 days),
 *    ADJUSTMENT_PRECEDES_CONVERSION, CONVERSION_ALREADY_RETRACTED, RESTATEMENT_ALREADY_EXISTS,
 *    MORE_RECENT_RESTATEMENT_FOUND, DUPLICATE_ADJUSTMENT_IN_REQUEST, a restatement value required
 *    for restatements and refused for retractions; row errors located at
 *    `conversion_adjustments[i]`, results `{}` for failed rows, as for click uploads.
 * Every API call checks `Authorization: Bearer <current access token>` (401 UNAUTHENTICATED
 * in Google's RPC error shape otherwise), `developer-token`, and `login-customer-id` when
 * configured. Uploads check partialFailure true, 1..2,000 conversions, and per row: a known
 * UPLOAD_CLICKS action, `yyyy-mm-dd hh:mm:ss+hh:mm`, gbraid/wbraid not both, a click id or user
 * identifiers, ≤ 5 identifiers each holding exactly one hashedEmail/hashedPhoneNumber of 64
 * lowercase hex, consent enum, value/currency types, and orderId unique per conversion action
 * across requests (ORDER_ID_ALREADY_IN_USE). Row errors come back in `partialFailureError`
 * with `{}` in `results`, as Google does. TOO_RECENT_EVENT / CLICK_NOT_FOUND (or any code) can
 * be scripted per row; whole-request faults can be queued.
 * GET /__standin/received returns what was recorded; DELETE /__standin/received clears it;
 * POST /__standin/expire-token makes every access token issued so far expire.
 */
const http = require('node:http');
const crypto = require('node:crypto');
const { commandLine, jsonSender, standInState, startStandInServer } = require('./http.js');

const MAX_CONVERSIONS = 2000;
const MAX_USER_IDENTIFIERS = 5;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
const ACTION_NAME = /^customers\/(\d+)\/conversionActions\/(\d+)$/;
const CLICK_ID = /^[A-Za-z0-9_-]+$/;

/**
 * @typedef {{ id: string, name: string, type?: string, status?: string }} ConversionAction
 * @typedef {{ timeZone: string, conversionActions: ConversionAction[] }} Customer
 * @typedef {{ customerId: string, conversion: any, receivedAt: number }} Received
 * @typedef {{ method: string, path: string, customerId?: string, conversions: number, status: number,
 *   validateOnly?: boolean, partialFailure?: unknown, loginCustomerId?: string, query?: string, rowErrors?: number }} RequestLog
 * @typedef {{ orderId?: string, gclid?: string, error: string, message?: string, category?: string, times?: number }} ScriptedRow
 * @typedef {{ category: string, code: string, message: string, index: number, field?: string }} RowError
 * @typedef {{ customerId: string, adjustment: any, receivedAt: number }} ReceivedAdjustment
 * @typedef {{ conversionMs: number, retracted: boolean, restatements: number[] }} Adjustable
 */

/** Google's messages for the codes the stand-in produces (paraphrased). */
const MESSAGES = /** @type {Record<string, string>} */ ({
	TOO_RECENT_EVENT:
		'The click associated with the given identifier or iOS URL parameter occurred less than 6 hours ago, please retry after 6 hours have passed.',
	TOO_RECENT_CONVERSION_ACTION:
		'The conversion action specified in the upload request was created less than 6 hours ago, please retry after 6 hours have passed.',
	CLICK_NOT_FOUND: 'The click associated with the given identifier could not be found.',
	ORDER_ID_ALREADY_IN_USE: 'The conversion with the given order ID was already uploaded.',
	DUPLICATE_ORDER_ID: 'The request contained more than one conversion with the same order ID.',
	CLICK_CONVERSION_ALREADY_EXISTS:
		'A click conversion with the same click and conversion time was already uploaded.',
	UNPARSEABLE_GCLID: 'The Google Click ID could not be decoded.',
	GBRAID_WBRAID_BOTH_SET: 'Both gbraid and wbraid were set; only one of them may be set.',
	NO_CONVERSION_ACTION_FOUND:
		'The conversion action specified in the upload request cannot be found.',
	INVALID_CONVERSION_ACTION_TYPE: 'The conversion action is not of type UPLOAD_CLICKS.',
	INVALID_USER_IDENTIFIER: 'The user identifier is not a SHA-256 hash in lowercase hexadecimal.',
	UNSUPPORTED_USER_IDENTIFIER:
		'Only hashed email and hashed phone number are supported as user identifiers for click conversions.',
	ORDER_ID_CONTAINS_PII: 'The order ID contains personally identifiable information.',
	TOO_MANY_CONVERSIONS_IN_REQUEST: 'Too many conversions in the request; upload fewer than 2001.',
	CONVERSION_NOT_FOUND:
		"The conversion for this conversion action and conversion identifier can't be found. Make sure your conversion identifiers are associated with the correct conversion action and try again.",
	CONVERSION_EXPIRED:
		"Adjustment can't be made to a conversion that occurred more than 54 days ago.",
	ADJUSTMENT_PRECEDES_CONVERSION:
		'Adjustment has an adjustment_date_time that occurred before the associated conversion. Make sure your adjustment_date_time is correct and try again.',
	CONVERSION_ALREADY_RETRACTED:
		'The conversion was already retracted. This adjustment was not processed.',
	RESTATEMENT_ALREADY_EXISTS:
		'The conversion has prior a restatement with the same adjustment_date_time. Make sure your adjustment has the correct and unique adjustment_date_time and try again.',
	MORE_RECENT_RESTATEMENT_FOUND:
		'More recent adjustment adjustment_date_time has already been reported for the associated conversion. Make sure your adjustment adjustment_date_time is correct and try again.',
	DUPLICATE_ADJUSTMENT_IN_REQUEST:
		'Imported adjustment has a duplicate conversion adjustment with same adjustment_date_time. Make sure your adjustment has the correct adjustment_date_time and try again.',
	TOO_MANY_ADJUSTMENTS_IN_REQUEST:
		'Try uploading fewer than 2001 adjustments in a single API request.',
});

/** CONVERSION_EXPIRED: "more than 54 days ago". */
const ADJUSTMENT_WINDOW_MS = 54 * 86_400_000;

/** `yyyy-mm-dd hh:mm:ss+hh:mm` → epoch ms (NaN when not that shape). @param {unknown} text */
function parseDateTime(text) {
	if (typeof text !== 'string' || !DATE_TIME.test(text)) return NaN;
	return Date.parse(text.replace(' ', 'T'));
}

/** Google's API names its charset. */
const send = jsonSender('application/json; charset=UTF-8');

/** @param {unknown} version */
function failureType(version) {
	return `type.googleapis.com/google.ads.googleads.${version}.errors.GoogleAdsFailure`;
}

function requestId() {
	return crypto.randomBytes(11).toString('base64url');
}

/**
 * google.rpc.Status as an RPC-level error body.
 * @param {number} code HTTP status
 * @param {string} status e.g. UNAUTHENTICATED
 * @param {string} message
 * @param {string} version
 * @param {Array<{ category: string, code: string, message: string }>} [errors] GoogleAdsFailure errors
 */
function rpcError(code, status, message, version, errors) {
	/** @type {Record<string, unknown>} */
	const error = { code, message, status };
	if (errors && errors.length) {
		error.details = [
			{
				'@type': failureType(version),
				errors: errors.map((e) => ({ errorCode: { [e.category]: e.code }, message: e.message })),
				requestId: requestId(),
			},
		];
	}
	return { error };
}

/**
 * The partialFailureError of an upload: google.rpc.Status with one GoogleAdsFailure whose errors
 * name their row as `<listField>[index]` (and the field, when known).
 * @param {RowError[]} rowErrors @param {string} version @param {string} listField
 */
function partialFailure(rowErrors, version, listField) {
	const first = rowErrors[0];
	const where = `${listField}[${first.index}]${first.field ? `.${first.field}` : ''}`;
	return {
		code: 3,
		message:
			rowErrors.length > 1
				? `Multiple errors in ‘details’. First error: ${first.message}, at ${where}`
				: `${first.message}, at ${where}`,
		details: [
			{
				'@type': failureType(version),
				errors: rowErrors.map((e) => ({
					errorCode: { [e.category]: e.code },
					message: e.message,
					location: {
						fieldPathElements: [
							{ fieldName: listField, index: e.index },
							...(e.field ? [{ fieldName: e.field }] : []),
						],
					},
				})),
				requestId: requestId(),
			},
		],
	};
}

/**
 * Validates one ConversionAdjustment's own fields (not yet against recorded conversions).
 * @param {any} adjustment @param {number} index @param {Customer | undefined} customer
 * @returns {RowError[]}
 */
function validateAdjustment(adjustment, index, customer) {
	/** @type {RowError[]} */
	const errors = [];
	/** @param {string} category @param {string} code @param {string} [message] @param {string} [field] */
	const add = (category, code, message, field) =>
		errors.push({ category, code, message: message || MESSAGES[code] || code, index, field });
	if (!adjustment || typeof adjustment !== 'object') {
		add('requestError', 'REQUIRED_FIELD_MISSING', 'The adjustment is not an object.');
		return errors;
	}
	const action = ACTION_NAME.exec(String(adjustment.conversionAction || ''));
	if (!action)
		add('fieldError', 'REQUIRED', 'The required field was not present.', 'conversion_action');
	else if (customer) {
		const found = customer.conversionActions.find((a) => a.id === action[2]);
		if (!found)
			add(
				'conversionAdjustmentUploadError',
				'NO_CONVERSION_ACTION_FOUND',
				MESSAGES.NO_CONVERSION_ACTION_FOUND,
				'conversion_action',
			);
		else if (!['UPLOAD_CLICKS', 'WEBPAGE', 'SALESFORCE'].includes(found.type || 'UPLOAD_CLICKS'))
			add(
				'conversionAdjustmentUploadError',
				'INVALID_CONVERSION_ACTION_TYPE',
				'RETRACTION and RESTATEMENT are only permitted for conversion actions of type SALESFORCE, UPLOAD_CLICKS or WEBPAGE.',
				'conversion_action',
			);
	}
	if (!['RETRACTION', 'RESTATEMENT'].includes(adjustment.adjustmentType))
		add(
			'fieldError',
			'INVALID_VALUE',
			'The stand-in takes adjustmentType RETRACTION or RESTATEMENT.',
			'adjustment_type',
		);
	if (Number.isNaN(parseDateTime(adjustment.adjustmentDateTime)))
		add(
			'dateError',
			'INVALID_STRING_DATE_TIME_SECONDS_WITH_OFFSET',
			"The string date time's format should be yyyy-mm-dd hh:mm:ss+|-hh:mm.",
			'adjustment_date_time',
		);
	if (typeof adjustment.orderId !== 'string' || adjustment.orderId === '')
		add(
			'fieldError',
			'REQUIRED',
			'The stand-in identifies conversions by orderId only.',
			'order_id',
		);
	const value = adjustment.restatementValue;
	if (adjustment.adjustmentType === 'RESTATEMENT') {
		if (!value || typeof value.adjustedValue !== 'number' || value.adjustedValue < 0)
			add(
				'fieldError',
				'REQUIRED',
				'restatementValue.adjustedValue is required for restatements.',
				'restatement_value',
			);
		else if (value.currencyCode !== undefined && !/^[A-Z]{3}$/.test(String(value.currencyCode)))
			add(
				'conversionAdjustmentUploadError',
				'INVALID_CURRENCY_CODE',
				'The currency code is not a valid ISO 4217 code.',
				'restatement_value',
			);
	} else if (adjustment.adjustmentType === 'RETRACTION' && value !== undefined) {
		add(
			'fieldError',
			'VALUE_MUST_BE_UNSET',
			'restatementValue must not be set for a retraction.',
			'restatement_value',
		);
	}
	return errors;
}

/**
 * Validates one ClickConversion like Google does; returns the row's errors.
 * @param {any} conversion
 * @param {number} index
 * @param {{ customerId: string, customer: Customer | undefined }} context
 * @returns {RowError[]}
 */
function validateConversion(conversion, index, context) {
	/** @type {RowError[]} */
	const errors = [];
	/** @param {string} category @param {string} code @param {string} [message] @param {string} [field] */
	const add = (category, code, message, field) =>
		errors.push({ category, code, message: message || MESSAGES[code] || code, index, field });
	if (!conversion || typeof conversion !== 'object') {
		add('requestError', 'REQUIRED_FIELD_MISSING', 'The conversion is not an object.');
		return errors;
	}
	const action = ACTION_NAME.exec(String(conversion.conversionAction || ''));
	if (!action) {
		add('fieldError', 'REQUIRED', 'The required field was not present.', 'conversion_action');
	} else if (context.customer) {
		// Google validates only the action ID, looked up in the customer of the request.
		const found = context.customer.conversionActions.find((a) => a.id === action[2]);
		if (!found)
			add('conversionUploadError', 'NO_CONVERSION_ACTION_FOUND', undefined, 'conversion_action');
		else if (
			(found.type || 'UPLOAD_CLICKS') !== 'UPLOAD_CLICKS' ||
			(found.status || 'ENABLED') !== 'ENABLED'
		) {
			add(
				'conversionUploadError',
				'INVALID_CONVERSION_ACTION_TYPE',
				undefined,
				'conversion_action',
			);
		}
	}
	if (
		typeof conversion.conversionDateTime !== 'string' ||
		!DATE_TIME.test(conversion.conversionDateTime)
	) {
		add(
			'dateError',
			'INVALID_STRING_DATE_TIME_SECONDS_WITH_OFFSET',
			"The string date time's format should be yyyy-mm-dd hh:mm:ss+|-hh:mm.",
			'conversion_date_time',
		);
	}
	if (conversion.gbraid !== undefined && conversion.wbraid !== undefined) {
		add('conversionUploadError', 'GBRAID_WBRAID_BOTH_SET', undefined, 'gbraid');
	}
	for (const key of ['gclid', 'gbraid', 'wbraid']) {
		if (
			conversion[key] !== undefined &&
			!(typeof conversion[key] === 'string' && CLICK_ID.test(conversion[key]))
		) {
			add(
				'conversionUploadError',
				key === 'gclid' ? 'UNPARSEABLE_GCLID' : `UNPARSEABLE_${key.toUpperCase()}`,
				undefined,
				key,
			);
		}
	}
	const identifiers = conversion.userIdentifiers;
	if (identifiers !== undefined) {
		if (!Array.isArray(identifiers)) {
			add('fieldError', 'INVALID_VALUE', 'userIdentifiers must be a list.', 'user_identifiers');
		} else {
			if (identifiers.length > MAX_USER_IDENTIFIERS) {
				add(
					'collectionSizeError',
					'TOO_MANY',
					'Too many elements for the given field.',
					'user_identifiers',
				);
			}
			for (const identifier of identifiers) {
				const keys = identifier && typeof identifier === 'object' ? Object.keys(identifier) : [];
				const known = keys.filter(
					(k) => k === 'hashedEmail' || k === 'hashedPhoneNumber' || k === 'userIdentifierSource',
				);
				const values = keys.filter((k) => k !== 'userIdentifierSource');
				if (values.length !== 1 || known.length !== keys.length) {
					add(
						'conversionUploadError',
						'UNSUPPORTED_USER_IDENTIFIER',
						undefined,
						'user_identifiers',
					);
					break;
				}
				if (typeof identifier[values[0]] !== 'string' || !SHA256_HEX.test(identifier[values[0]])) {
					add('conversionUploadError', 'INVALID_USER_IDENTIFIER', undefined, 'user_identifiers');
					break;
				}
			}
		}
	}
	const hasClick = ['gclid', 'gbraid', 'wbraid'].some((k) => typeof conversion[k] === 'string');
	if (!hasClick && !(Array.isArray(identifiers) && identifiers.length > 0)) {
		add(
			'fieldError',
			'REQUIRED',
			'A click identifier (gclid, gbraid or wbraid) or user identifiers are required.',
			'gclid',
		);
	}
	if (conversion.orderId !== undefined) {
		if (typeof conversion.orderId !== 'string' || conversion.orderId === '') {
			add('fieldError', 'INVALID_VALUE', 'orderId must be a non-empty string.', 'order_id');
		} else if (
			/@|\+?\d[\d\s-]{7,}\d/.test(conversion.orderId) &&
			!SHA256_HEX.test(conversion.orderId)
		) {
			add('conversionUploadError', 'ORDER_ID_CONTAINS_PII', undefined, 'order_id');
		}
	}
	if (conversion.consent !== undefined) {
		const value = conversion.consent && conversion.consent.adUserData;
		const keys =
			conversion.consent && typeof conversion.consent === 'object'
				? Object.keys(conversion.consent)
				: [];
		if (!['GRANTED', 'DENIED'].includes(value) || keys.some((k) => k !== 'adUserData')) {
			add(
				'fieldError',
				'INVALID_VALUE',
				'consent.adUserData must be GRANTED or DENIED (adPersonalization is not settable on click conversions).',
				'consent',
			);
		}
	}
	if (conversion.conversionValue !== undefined && typeof conversion.conversionValue !== 'number') {
		add('fieldError', 'INVALID_VALUE', 'conversionValue must be a number.', 'conversion_value');
	}
	if (
		conversion.currencyCode !== undefined &&
		!/^[A-Z]{3}$/.test(String(conversion.currencyCode))
	) {
		add(
			'conversionUploadError',
			'INVALID_CURRENCY_CODE',
			'The currency code is not a valid ISO 4217 code.',
			'currency_code',
		);
	}
	return errors;
}

/**
 * Reads the equality filters of a GAQL WHERE clause (`a.b = 'X' AND c.d = 'Y'`).
 * @param {string} query
 */
function whereEquals(query) {
	/** @type {Record<string, string>} */
	const filters = {};
	const where = /\bWHERE\b([\s\S]*)$/i.exec(query);
	if (!where) return filters;
	for (const condition of where[1].split(/\bAND\b/i)) {
		const match = /^\s*([a-z_.]+)\s*=\s*'([^']*)'\s*$/i.exec(condition);
		if (match) filters[match[1].toLowerCase()] = match[2];
	}
	return filters;
}

/**
 * @param {{
 *   developerToken: string,
 *   clientId?: string,
 *   clientSecret?: string,
 *   refreshToken?: string,
 *   accessToken?: string,
 *   loginCustomerId?: string,
 *   timeZone?: string,
 *   customers?: Record<string, Partial<Customer>>,
 *   port?: number,
 *   host?: string,
 *   now?: () => number,
 * }} options
 */
async function startGoogleStandIn(options) {
	const now = options.now || (() => Date.now());
	const clientId = options.clientId || 'standin-client-id.apps.googleusercontent.com';
	const clientSecret = options.clientSecret || 'standin-client-secret';
	const refreshToken =
		options.refreshToken || `1//standin-refresh-${crypto.randomBytes(6).toString('hex')}`;
	const newAccessToken = () => `ya29.standin-${crypto.randomBytes(9).toString('base64url')}`;
	/** The latest token issued; API calls may carry any token in `validTokens`. */
	let accessToken = options.accessToken || newAccessToken();
	const validTokens = new Set([accessToken]);
	const expireAll = () => {
		validTokens.clear();
		accessToken = newAccessToken();
	};
	let refreshes = 0;
	/** Default actions for customers not configured explicitly. */
	const defaultActions = [
		{ id: '987654321', name: 'Lead (offline)', type: 'UPLOAD_CLICKS', status: 'ENABLED' },
		{ id: '987654322', name: 'Partial lead (offline)', type: 'UPLOAD_CLICKS', status: 'ENABLED' },
		{ id: '987654323', name: 'Purchase (offline)', type: 'UPLOAD_CLICKS', status: 'ENABLED' },
		{ id: '555000111', name: 'Website purchase (tag)', type: 'WEBPAGE', status: 'ENABLED' },
		{ id: '555000112', name: 'Old import', type: 'UPLOAD_CLICKS', status: 'REMOVED' },
	];
	/** @param {string} customerId @returns {Customer | undefined} */
	const customerOf = (customerId) => {
		if (options.customers) {
			const configured = options.customers[customerId];
			if (!configured) return undefined;
			return {
				timeZone: configured.timeZone || options.timeZone || 'America/New_York',
				conversionActions: configured.conversionActions || defaultActions,
			};
		}
		return { timeZone: options.timeZone || 'America/New_York', conversionActions: defaultActions };
	};

	/** @type {import('./http.js').StandInState<Received, RequestLog>} */
	const state = standInState();
	const { received, requests } = state;
	/** @type {ScriptedRow[]} */
	const scripted = [];
	/** Order ids recorded per conversion action (resource name → ids). */
	const orderIds = new Map();
	/** click + conversion time recorded per conversion action. */
	const clickConversions = new Set();
	/** Conversions adjustments can find: `<action id>|<order id>` → their state. */
	/** @type {Map<string, Adjustable>} */
	const adjustable = new Map();
	/** @type {ReceivedAdjustment[]} */
	const adjustments = [];
	/** @param {string} action resource name @param {string} orderId */
	const adjustableKey = (action, orderId) => {
		const match = ACTION_NAME.exec(action);
		return `${match ? match[2] : action}|${orderId}`;
	};
	let jobId = 1000;

	/** @param {http.IncomingMessage} req @param {string} version @returns {{ status: number, body: unknown } | null} */
	const checkAuth = (req, version) => {
		const authorization = String(req.headers.authorization || '');
		if (!authorization) {
			return {
				status: 401,
				body: rpcError(
					401,
					'UNAUTHENTICATED',
					'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
					version,
				),
			};
		}
		const bearer = /^Bearer (\S+)$/.exec(authorization);
		if (!bearer || !validTokens.has(bearer[1])) {
			return {
				status: 401,
				body: rpcError(
					401,
					'UNAUTHENTICATED',
					'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
					version,
				),
			};
		}
		if (req.headers['developer-token'] !== options.developerToken) {
			return {
				status: 401,
				body: rpcError(
					401,
					'UNAUTHENTICATED',
					'Request is missing or has an invalid developer token.',
					version,
					[
						{
							category: 'authenticationError',
							code: 'DEVELOPER_TOKEN_INVALID',
							message: 'The developer token is not valid.',
						},
					],
				),
			};
		}
		return null;
	};

	/** @param {http.IncomingMessage} req @param {string} version @param {string} customerId */
	const checkCustomer = (req, version, customerId) => {
		if (options.loginCustomerId && req.headers['login-customer-id'] !== options.loginCustomerId) {
			return {
				status: 403,
				body: rpcError(403, 'PERMISSION_DENIED', 'The caller does not have permission', version, [
					{
						category: 'authorizationError',
						code: 'USER_PERMISSION_DENIED',
						message:
							"User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer id must be set in the 'login-customer-id' header.",
					},
				]),
			};
		}
		if (!customerOf(customerId)) {
			return {
				status: 400,
				body: rpcError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', version, [
					{
						category: 'authenticationError',
						code: 'CUSTOMER_NOT_FOUND',
						message: 'No customer found for the provided customer id.',
					},
				]),
			};
		}
		return null;
	};

	/**
	 * @param {any} conversion
	 * @returns {ScriptedRow | undefined}
	 */
	const scriptedFor = (conversion) => {
		const row = scripted.find(
			(s) =>
				(s.times === undefined || s.times > 0) &&
				((s.orderId !== undefined && s.orderId === conversion.orderId) ||
					(s.gclid !== undefined && s.gclid === conversion.gclid)),
		);
		if (row && row.times !== undefined) row.times--;
		return row;
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
			scope: 'https://www.googleapis.com/auth/adwords',
			token_type: 'Bearer',
		});
	};

	/**
	 * @param {http.ServerResponse} res @param {string} version @param {string} customerId @param {any} params @param {RequestLog} log
	 */
	const handleSearch = (res, version, customerId, params, log) => {
		const customer = /** @type {Customer} */ (customerOf(customerId));
		const query = typeof params.query === 'string' ? params.query : '';
		log.query = query;
		if (/\bFROM\s+customer\b/i.test(query) && /\bcustomer\.time_zone\b/i.test(query)) {
			return send(res, 200, {
				results: [
					{ customer: { resourceName: `customers/${customerId}`, timeZone: customer.timeZone } },
				],
				fieldMask: 'customer.timeZone',
				requestId: requestId(),
			});
		}
		if (/\bFROM\s+conversion_action\b/i.test(query)) {
			const filters = whereEquals(query);
			const rows = customer.conversionActions
				.filter(
					(a) =>
						!filters['conversion_action.type'] ||
						(a.type || 'UPLOAD_CLICKS') === filters['conversion_action.type'],
				)
				.filter(
					(a) =>
						!filters['conversion_action.status'] ||
						(a.status || 'ENABLED') === filters['conversion_action.status'],
				)
				.map((a) => ({
					conversionAction: {
						resourceName: `customers/${customerId}/conversionActions/${a.id}`,
						name: a.name,
						id: a.id,
					},
				}));
			return send(res, 200, {
				results: rows,
				fieldMask: 'conversionAction.resourceName,conversionAction.name,conversionAction.id',
				requestId: requestId(),
			});
		}
		log.status = 400;
		return send(
			res,
			400,
			rpcError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', version, [
				{
					category: 'queryError',
					code: 'PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE',
					message: 'The stand-in answers only the time zone and conversion action queries.',
				},
			]),
		);
	};

	/**
	 * @param {http.ServerResponse} res @param {string} version @param {string} customerId @param {any} params @param {RequestLog} log
	 */
	const handleUpload = (res, version, customerId, params, log) => {
		const conversions = params.conversions;
		log.conversions = Array.isArray(conversions) ? conversions.length : 0;
		log.partialFailure = params.partialFailure;
		log.validateOnly = params.validateOnly === true;
		/** @param {number} status @param {string} rpcStatus @param {string} message @param {string} category @param {string} code */
		const reject = (status, rpcStatus, message, category, code) => {
			log.status = status;
			return send(
				res,
				status,
				rpcError(status, rpcStatus, message, version, [{ category, code, message }]),
			);
		};
		if (params.partialFailure !== true) {
			return reject(
				400,
				'INVALID_ARGUMENT',
				'The partial failure field was false in the request. This method requires this field be set to true.',
				'partialFailureError',
				'PARTIAL_FAILURE_MODE_REQUIRED',
			);
		}
		if (!Array.isArray(conversions) || conversions.length === 0) {
			return reject(
				400,
				'INVALID_ARGUMENT',
				'The required field was not present.',
				'fieldError',
				'REQUIRED',
			);
		}
		if (conversions.length > MAX_CONVERSIONS) {
			return reject(
				400,
				'INVALID_ARGUMENT',
				MESSAGES.TOO_MANY_CONVERSIONS_IN_REQUEST,
				'conversionUploadError',
				'TOO_MANY_CONVERSIONS_IN_REQUEST',
			);
		}
		const customer = customerOf(customerId);
		const validateOnly = params.validateOnly === true;
		/** @type {RowError[]} */
		const rowErrors = [];
		/** @type {unknown[]} */
		const results = [];
		const seenInRequest = new Set();
		const at = now();
		conversions.forEach((conversion, index) => {
			const errors = validateConversion(conversion, index, { customerId, customer });
			const action = errors.length === 0 ? String(conversion.conversionAction) : '';
			if (errors.length === 0 && conversion.orderId !== undefined) {
				const recorded = orderIds.get(action) || new Set();
				const key = `${action}|${conversion.orderId}`;
				if (recorded.has(conversion.orderId)) {
					errors.push({
						category: 'conversionUploadError',
						code: 'ORDER_ID_ALREADY_IN_USE',
						message: MESSAGES.ORDER_ID_ALREADY_IN_USE,
						index,
						field: 'order_id',
					});
				} else if (seenInRequest.has(key)) {
					errors.push({
						category: 'conversionUploadError',
						code: 'DUPLICATE_ORDER_ID',
						message: MESSAGES.DUPLICATE_ORDER_ID,
						index,
						field: 'order_id',
					});
				}
				seenInRequest.add(key);
			}
			const click = conversion && (conversion.gclid || conversion.gbraid || conversion.wbraid);
			const clickKey = click ? `${action}|${click}|${conversion.conversionDateTime}` : undefined;
			if (errors.length === 0 && clickKey && clickConversions.has(clickKey)) {
				errors.push({
					category: 'conversionUploadError',
					code: 'CLICK_CONVERSION_ALREADY_EXISTS',
					message: MESSAGES.CLICK_CONVERSION_ALREADY_EXISTS,
					index,
					field: 'gclid',
				});
			}
			const script = errors.length === 0 ? scriptedFor(conversion) : undefined;
			if (script) {
				errors.push({
					category: script.category || 'conversionUploadError',
					code: script.error,
					message: script.message || MESSAGES[script.error] || script.error,
					index,
				});
			}
			rowErrors.push(...errors);
			if (errors.length > 0) {
				results.push({});
				return;
			}
			if (!validateOnly) {
				if (conversion.orderId !== undefined) {
					if (!orderIds.has(action)) orderIds.set(action, new Set());
					orderIds.get(action).add(conversion.orderId);
					adjustable.set(adjustableKey(action, conversion.orderId), {
						conversionMs: parseDateTime(conversion.conversionDateTime),
						retracted: false,
						restatements: [],
					});
				}
				if (clickKey) clickConversions.add(clickKey);
				received.push({ customerId, conversion, receivedAt: at });
			}
			/** @type {Record<string, unknown>} */
			const result = {
				conversionAction: conversion.conversionAction,
				conversionDateTime: conversion.conversionDateTime,
			};
			for (const key of ['gclid', 'gbraid', 'wbraid'])
				if (conversion[key]) result[key] = conversion[key];
			if (Array.isArray(conversion.userIdentifiers) && conversion.userIdentifiers.length) {
				result.userIdentifiers = conversion.userIdentifiers;
			}
			results.push(result);
		});
		log.rowErrors = rowErrors.length;
		/** @type {Record<string, unknown>} */
		const body = { jobId: String(jobId++) };
		if (!validateOnly) body.results = results;
		if (rowErrors.length > 0)
			body.partialFailureError = partialFailure(rowErrors, version, 'conversions');
		return send(res, 200, body);
	};

	/**
	 * The adjustment against the conversion it names; records it unless validateOnly.
	 * @param {any} adjustment @param {number} index @param {Set<string>} seen @param {boolean} validateOnly
	 * @returns {RowError[]}
	 */
	const applyAdjustment = (adjustment, index, seen, validateOnly) => {
		/** @param {string} code */
		const error = (code) => [
			{ category: 'conversionAdjustmentUploadError', code, message: MESSAGES[code] || code, index },
		];
		const key = adjustableKey(String(adjustment.conversionAction), adjustment.orderId);
		const conversion = adjustable.get(key);
		if (!conversion) return error('CONVERSION_NOT_FOUND');
		const at = parseDateTime(adjustment.adjustmentDateTime);
		if (now() - conversion.conversionMs > ADJUSTMENT_WINDOW_MS) return error('CONVERSION_EXPIRED');
		if (at <= conversion.conversionMs) return error('ADJUSTMENT_PRECEDES_CONVERSION');
		if (seen.has(`${key}|${at}`)) return error('DUPLICATE_ADJUSTMENT_IN_REQUEST');
		seen.add(`${key}|${at}`);
		if (conversion.retracted) return error('CONVERSION_ALREADY_RETRACTED');
		if (adjustment.adjustmentType === 'RESTATEMENT') {
			if (conversion.restatements.includes(at)) return error('RESTATEMENT_ALREADY_EXISTS');
			if (conversion.restatements.some((t) => t > at))
				return error('MORE_RECENT_RESTATEMENT_FOUND');
		}
		const script = scriptedFor(adjustment);
		if (script) {
			return [
				{
					category: script.category || 'conversionAdjustmentUploadError',
					code: script.error,
					message: script.message || MESSAGES[script.error] || script.error,
					index,
				},
			];
		}
		if (!validateOnly) {
			if (adjustment.adjustmentType === 'RETRACTION') conversion.retracted = true;
			else conversion.restatements.push(at);
		}
		return [];
	};

	/**
	 * @param {http.ServerResponse} res @param {string} version @param {string} customerId @param {any} params @param {RequestLog} log
	 */
	const handleAdjustments = (res, version, customerId, params, log) => {
		const list = params.conversionAdjustments;
		log.conversions = Array.isArray(list) ? list.length : 0;
		log.partialFailure = params.partialFailure;
		log.validateOnly = params.validateOnly === true;
		/** @param {string} message @param {string} category @param {string} code */
		const reject = (message, category, code) => {
			log.status = 400;
			return send(
				res,
				400,
				rpcError(400, 'INVALID_ARGUMENT', message, version, [{ category, code, message }]),
			);
		};
		if (params.partialFailure !== true)
			return reject(
				'The partial failure field was false in the request. This method requires this field be set to true.',
				'partialFailureError',
				'PARTIAL_FAILURE_MODE_REQUIRED',
			);
		if (!Array.isArray(list) || list.length === 0)
			return reject('The required field was not present.', 'fieldError', 'REQUIRED');
		if (list.length > MAX_CONVERSIONS)
			return reject(
				MESSAGES.TOO_MANY_ADJUSTMENTS_IN_REQUEST,
				'conversionAdjustmentUploadError',
				'TOO_MANY_ADJUSTMENTS_IN_REQUEST',
			);
		const customer = customerOf(customerId);
		const validateOnly = params.validateOnly === true;
		/** @type {RowError[]} */
		const rowErrors = [];
		/** @type {unknown[]} */
		const results = [];
		const seen = new Set();
		const at = now();
		list.forEach((adjustment, index) => {
			let errors = validateAdjustment(adjustment, index, customer);
			if (errors.length === 0) errors = applyAdjustment(adjustment, index, seen, validateOnly);
			rowErrors.push(...errors);
			if (errors.length > 0) return void results.push({});
			if (!validateOnly) adjustments.push({ customerId, adjustment, receivedAt: at });
			results.push({
				orderId: adjustment.orderId,
				conversionAction: adjustment.conversionAction,
				adjustmentDateTime: adjustment.adjustmentDateTime,
				adjustmentType: adjustment.adjustmentType,
			});
		});
		log.rowErrors = rowErrors.length;
		/** @type {Record<string, unknown>} */
		const body = { jobId: String(jobId++) };
		if (!validateOnly) body.results = results;
		if (rowErrors.length > 0)
			body.partialFailureError = partialFailure(rowErrors, version, 'conversion_adjustments');
		return send(res, 200, body);
	};

	/** @type {import('./http.js').Handler} */
	const handle = (req, res, raw, url) => {
		if (url.pathname === '/__standin/expire-token' && req.method === 'POST') {
			expireAll();
			return send(res, 200, { ok: true });
		}
		if (url.pathname === '/token' && req.method === 'POST') return handleToken(req, res, raw);

		const faulted = state.playFault(req, (fault) => {
			const status = fault.status || 500;
			requests.push({ method: req.method || '', path: url.pathname, conversions: 0, status });
			const body = fault.body ?? rpcError(status, 'INTERNAL', 'Internal error encountered.', 'v26');
			send(res, status, body, fault.headers);
		});
		if (faulted) return undefined;

		const list = /^\/(v\d+)\/customers:listAccessibleCustomers$/.exec(url.pathname);
		const search = /^\/(v\d+)\/customers\/([^/]+)\/googleAds:search$/.exec(url.pathname);
		const upload = /^\/(v\d+)\/customers\/([^/:]+):uploadClickConversions$/.exec(url.pathname);
		const adjust = /^\/(v\d+)\/customers\/([^/:]+):uploadConversionAdjustments$/.exec(url.pathname);
		const match = list || search || upload || adjust;
		if (!match) {
			return send(
				res,
				404,
				rpcError(404, 'NOT_FOUND', `Method not found: ${req.method} ${url.pathname}`, 'v26'),
			);
		}
		const version = match[1];
		const customerId = list ? '' : decodeURIComponent(match[2]);
		/** @type {RequestLog} */
		const log = {
			method: req.method || '',
			path: url.pathname,
			customerId: customerId || undefined,
			conversions: 0,
			status: 200,
			loginCustomerId: req.headers['login-customer-id']
				? String(req.headers['login-customer-id'])
				: undefined,
		};
		requests.push(log);
		const authProblem = checkAuth(req, version);
		if (authProblem) {
			log.status = authProblem.status;
			return send(res, authProblem.status, authProblem.body);
		}
		if (list) {
			if (req.method !== 'GET')
				return send(res, 404, rpcError(404, 'NOT_FOUND', 'Use GET', version));
			const ids = options.customers ? Object.keys(options.customers) : ['1234567890'];
			return send(res, 200, { resourceNames: ids.map((id) => `customers/${id}`) });
		}
		if (req.method !== 'POST')
			return send(res, 404, rpcError(404, 'NOT_FOUND', 'Use POST', version));
		if (!/^\d+$/.test(customerId)) {
			log.status = 400;
			return send(
				res,
				400,
				rpcError(
					400,
					'INVALID_ARGUMENT',
					'Invalid customer ID: digits only, without dashes.',
					version,
					[
						{
							category: 'requestError',
							code: 'INVALID_CUSTOMER_ID',
							message: 'Customer ID is invalid.',
						},
					],
				),
			);
		}
		const customerProblem = checkCustomer(req, version, customerId);
		if (customerProblem) {
			log.status = customerProblem.status;
			return send(res, customerProblem.status, customerProblem.body);
		}
		let params;
		try {
			params = JSON.parse(raw || '{}');
		} catch {
			log.status = 400;
			return send(
				res,
				400,
				rpcError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.', version),
			);
		}
		if (search) return handleSearch(res, version, customerId, params, log);
		if (adjust) return handleAdjustments(res, version, customerId, params, log);
		return handleUpload(res, version, customerId, params, log);
	};
	const server = await startStandInServer(options, {
		state,
		handle,
		send,
		report: () => ({ received, adjustments, requests, refreshes }),
	});
	return {
		// url, port, received, requests, queueFaults and close, as every stand-in has
		...server,
		/** Where n8n's OAuth2 credential refreshes tokens (its Access Token URL). */
		tokenUrl: `${server.url}/token`,
		clientId,
		clientSecret,
		refreshToken,
		/** The latest access token issued (valid unless expireAccessToken() was called since). */
		accessToken: () => accessToken,
		/** How many refreshes the token endpoint answered. */
		refreshes: () => refreshes,
		/** Every access token issued so far expires; the next call needs a refresh. */
		expireAccessToken: expireAll,
		/** Adjustments recorded (retractions and restatements Google would apply). */
		adjustments,
		/**
		 * Conversions adjustments can find without uploading them here (e.g. sent through Data
		 * Manager, or older than the window). @param {Array<{ conversionAction: string, orderId: string, conversionDateTime: string }>} list
		 */
		seedConversions: (list) => {
			for (const c of list)
				adjustable.set(adjustableKey(c.conversionAction, c.orderId), {
					conversionMs: parseDateTime(c.conversionDateTime),
					retracted: false,
					restatements: [],
				});
		},
		/** @param {ScriptedRow[]} rows Row errors by orderId or gclid (`times` limits how often). */
		scriptRows: (rows) => scripted.push(...rows.map((r) => ({ ...r }))),
		/** Forget what was recorded (order ids too), scripted rows and queued faults. */
		reset: () => {
			state.clear();
			scripted.length = 0;
			orderIds.clear();
			clickConversions.clear();
			adjustable.clear();
			adjustments.length = 0;
		},
	};
}

module.exports = { startGoogleStandIn, validateConversion };

if (require.main === module) {
	const cli = commandLine(
		'google.js --port <port> --developer-token <token> [--client-id <id> --client-secret <secret>] [--refresh-token <token>] [--login-customer-id <digits>] [--time-zone <IANA zone>]',
	);
	startGoogleStandIn({
		developerToken: cli.required('developer-token', 'GOOGLE_STANDIN_DEVELOPER_TOKEN'),
		clientId: cli.arg('client-id'),
		clientSecret: cli.arg('client-secret'),
		refreshToken: cli.arg('refresh-token'),
		loginCustomerId: cli.arg('login-customer-id'),
		timeZone: cli.arg('time-zone'),
		port: cli.port(),
	}).then((standIn) => {
		console.log(`Google Ads stand-in listening on ${standIn.url}`);
		console.log(`  Access Token URL: ${standIn.tokenUrl}`);
		console.log(`  client id / secret: ${standIn.clientId} / ${standIn.clientSecret}`);
		console.log(
			`  oauthTokenData: ${JSON.stringify({ access_token: standIn.accessToken(), refresh_token: standIn.refreshToken, token_type: 'Bearer', expires_in: 3599 })}`,
		);
	});
}
