import { createHash } from 'node:crypto';
import axios from 'axios';
import { NodeApiError, type IExecuteFunctions, type IHttpRequestOptions } from 'n8n-workflow';
import { dedupKey, deriveEventId, dispatch, type HttpExecutor } from '../../shared';
import {
	fetchGoogleAdsTimeZone,
	googleAdapter,
	type GoogleAdsConfig,
	type GoogleClickConversion,
} from '../../shared/platforms/google';
import { googleAdsExecutor } from '../../nodes/GoogleAdsConversions/executor';
import { crmLead as germanCrmLead, webLead } from '../support/leads';
import { fastTransport, leadItems, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startGoogleStandIn } = require('../standins/google.js');

/**
 * A CRM lead in Germany that agreed to ad data use: Google's EU user consent policy withholds the
 * email and phone of EEA leads without a consent signal (issue 13.7), which these tests are not about.
 */
const crmLead: typeof germanCrmLead = (i, overrides = {}) =>
	germanCrmLead(i, { consent: { ad_user_data: 'granted' }, ...overrides });


const DEVELOPER_TOKEN = 'dev-token-e2e-0123456789abcdef';
const CUSTOMER = '1234567890';
const ACTION = `customers/${CUSTOMER}/conversionActions/987654321`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const orderIdOf = (recordId: string, eventName = 'lead') =>
	sha(`${ACTION}|${eventName}|${recordId}`);

type StandIn = Awaited<ReturnType<typeof startGoogleStandIn>>;
interface Received {
	customerId: string;
	conversion: GoogleClickConversion;
}

/** One HTTP attempt with axios, signed with whatever `token()` gives: the OAuth part is n8n's. */
function bearerExecutor(token: () => string): HttpExecutor {
	return async (request) => {
		const res = await axios.request({
			method: request.method,
			url: request.url,
			params: request.params,
			headers: {
				'content-type': 'application/json',
				...request.headers,
				authorization: `Bearer ${token()}`,
			},
			data: request.body === undefined ? undefined : JSON.stringify(request.body),
			timeout: request.timeoutMs,
			validateStatus: () => true,
			proxy: false,
		});
		const headers: Record<string, string> = {};
		for (const [k, v] of Object.entries(res.headers))
			if (v !== undefined) headers[k.toLowerCase()] = String(v);
		return { status: res.status, headers, data: res.data };
	};
}

describe('Google Ads sender through dispatch, against a loopback Google Ads and a real Redis', () => {
	const h = senderHarness('google');
	let standIn: StandIn;

	const config = (overrides: Partial<GoogleAdsConfig> = {}): GoogleAdsConfig => ({
		developerToken: DEVELOPER_TOKEN,
		customerId: CUSTOMER,
		conversionAction: ACTION,
		timeZone: 'America/Chicago',
		apiVersion: 'v26',
		baseUrl: standIn.url,
		...overrides,
	});
	const transport = (token: () => string = () => standIn.accessToken()) =>
		fastTransport({ executor: bearerExecutor(token) });

	const run = h.runner(googleAdapter, config, transport);
	const leads = (n: number, make = crmLead) => leadItems(n, make, 'lead');
	const received = (): Received[] => standIn.received;
	const keyOf = (recordId: string) => dedupKey(h.prefix, 'google', ACTION, orderIdOf(recordId));

	beforeAll(async () => {
		standIn = await startGoogleStandIn({
			developerToken: DEVELOPER_TOKEN,
			timeZone: 'America/Chicago',
		});
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('uploads each lead once with its click id and hashed identifiers; a re-run sends nothing', async () => {
		const items = [
			{
				record: webLead(0, {
					click: { gclid: 'Cj0KCQiA-lead0' },
					consent: { ad_user_data: 'granted' },
				}),
				eventName: 'lead',
			},
			{ record: webLead(1), eventName: 'lead' },
			{ record: crmLead(2, { value: { amount: 1200, currency: 'usd' } }), eventName: 'lead' },
		];
		const first = await run(items);
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(standIn.requests).toHaveLength(1);
		expect(received().map((r) => r.conversion.orderId)).toEqual([
			orderIdOf('sub_0'),
			orderIdOf('sub_1'),
			orderIdOf('deal-2'),
		]);
		const [web, plain, crm] = received().map((r) => r.conversion);
		expect(web).toEqual({
			conversionAction: ACTION,
			conversionDateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}-0[56]:00$/),
			orderId: orderIdOf('sub_0'),
			gclid: 'Cj0KCQiA-lead0',
			userIdentifiers: [
				{ hashedEmail: sha('lead.0@example.com') },
				{ hashedPhoneNumber: sha('+16505551212') },
			],
			consent: { adUserData: 'GRANTED' },
		});
		expect(plain.gclid).toBeUndefined();
		expect(plain.consent).toBeUndefined();
		expect(crm).toMatchObject({
			userIdentifiers: [
				{ hashedEmail: sha('buyer2@example.de') },
				{ hashedPhoneNumber: sha('+49301234567') },
			],
			conversionValue: 1200,
			currencyCode: 'USD',
		});
		expect(first[0]).toMatchObject({
			platform: 'google',
			destination: ACTION,
			event_name: 'lead',
			event_id: orderIdOf('sub_0'),
			match_keys: ['gclid', 'hashedEmail', 'hashedPhoneNumber'],
			dedup: 'claimed',
			response: {
				job_id: expect.any(String),
				result: expect.objectContaining({ gclid: 'Cj0KCQiA-lead0' }),
			},
		});

		const second = await run(items);
		expect(second.map((r) => [r.status, r.dedup])).toEqual([
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
		]);
		expect(standIn.requests).toHaveLength(1);
	});

	it('reads the account time zone once through the transport, and times carry its offset', async () => {
		const found = await fetchGoogleAdsTimeZone(config(), CUSTOMER, transport());
		expect(found).toEqual({ ok: true, timeZone: 'America/Chicago' });
		expect(standIn.requests[0]).toMatchObject({
			path: `/v26/customers/${CUSTOMER}/googleAds:search`,
			query: 'SELECT customer.time_zone FROM customer',
		});
		const occurredAt = '2026-07-04T15:30:00Z';
		await run([{ record: crmLead(1, { occurred_at: occurredAt }), eventName: 'lead' }], {
			clock: () => Date.parse('2026-07-05T00:00:00Z'),
		});
		expect(received()[0].conversion.conversionDateTime).toBe('2026-07-04 10:30:00-05:00');
	});

	it('says why the time zone could not be read (token problems are permanent)', async () => {
		const found = await fetchGoogleAdsTimeZone(
			config(),
			CUSTOMER,
			transport(() => 'ya29.stale'),
		);
		expect(found).toMatchObject({
			ok: false,
			message: expect.stringMatching(
				/^Google Ads: Request had invalid authentication credentials\..*\[UNAUTHENTICATED\]$/,
			),
		});
		expect(standIn.requests).toHaveLength(1);
	});

	it('uploads 4,001 conversions in requests of at most 2,000', async () => {
		const results = await run(leads(4001));
		// Any item not sent, with what it said.
		expect(results.filter((r) => r.status !== 'sent').slice(0, 3)).toEqual([]);
		expect(
			standIn.requests
				.map((r: { conversions: number }) => r.conversions)
				.sort((a: number, b: number) => a - b),
		).toEqual([1, 2000, 2000]);
		expect(new Set(received().map((r) => r.conversion.orderId)).size).toBe(4001);
	});

	it('honours the batch size option', async () => {
		await run(leads(5), { batchSize: 2 });
		expect(standIn.requests.map((r: { conversions: number }) => r.conversions).sort()).toEqual([
			1, 2, 2,
		]);
	});

	it('maps per-row partial failures to their items; a re-run sends only the failed and skipped ones', async () => {
		// Item 4 was uploaded before (say, by a run whose dedup record has expired).
		await run([{ record: crmLead(4), eventName: 'lead' }], { keyPrefix: `${h.prefix}:earlier` });
		standIn.scriptRows([
			{ gclid: 'G-too-recent', error: 'TOO_RECENT_EVENT', times: 1 },
			{ gclid: 'G-not-found', error: 'CLICK_NOT_FOUND' },
		]);
		const items = [
			{ record: crmLead(0, { click: { gclid: 'G-fine' } }), eventName: 'lead' },
			{ record: crmLead(1, { click: { gclid: 'G-too-recent' } }), eventName: 'lead' },
			{ record: crmLead(2, { click: { gclid: 'G-not-found' } }), eventName: 'lead' },
			{ record: crmLead(3, { click: { gclid: 'G.not.parseable' } }), eventName: 'lead' },
			{ record: crmLead(4), eventName: 'lead' },
		];
		const results = await run(items);
		expect(results.map((r) => r.status)).toEqual([
			'sent',
			'skipped',
			'sent',
			'failed',
			'duplicate',
		]);
		expect(results[1]).toMatchObject({
			retryable: true,
			error: expect.stringMatching(
				/^Google Ads: The click associated with .*less than 6 hours ago.* \[conversionUploadError: TOO_RECENT_EVENT, request_id \S+\]: .*retry after 6 hours/,
			),
		});
		expect(results[2].warnings.join()).toMatch(
			/CLICK_NOT_FOUND.*expected for leads that did not come from a Google Ads click/,
		);
		expect(results[3]).toMatchObject({
			retryable: false,
			error: expect.stringMatching(
				/^Google Ads: The Google Click ID could not be decoded\. \[conversionUploadError: UNPARSEABLE_GCLID, request_id \S+\]$/,
			),
		});
		expect(results[4]).toMatchObject({
			dedup: 'claimed',
			warnings: [expect.stringMatching(/ORDER_ID_ALREADY_IN_USE/)],
		});
		// Only what was not recorded at Google is released.
		expect(await h.admin.get(keyOf('deal-0'))).toBe('s');
		expect(await h.admin.get(keyOf('deal-1'))).toBeNull();
		expect(await h.admin.get(keyOf('deal-2'))).toBe('s');
		expect(await h.admin.get(keyOf('deal-3'))).toBeNull();
		expect(await h.admin.get(keyOf('deal-4'))).toBe('s');

		standIn.requests.length = 0;
		items[3] = { record: crmLead(3, { click: { gclid: 'G-fixed' } }), eventName: 'lead' };
		const retry = await run(items);
		expect(retry.map((r) => r.status)).toEqual([
			'duplicate',
			'sent',
			'duplicate',
			'sent',
			'duplicate',
		]);
		expect(standIn.requests).toHaveLength(1);
		expect(standIn.requests[0].conversions).toBe(2);
	});

	it('retries 429 with Retry-After and 503, then delivers once', async () => {
		standIn.queueFaults([
			{
				status: 429,
				headers: { 'retry-after': '0' },
				body: {
					error: {
						code: 429,
						message: 'Resource has been exhausted (e.g. check quota).',
						status: 'RESOURCE_EXHAUSTED',
						details: [
							{
								'@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure',
								errors: [
									{
										errorCode: { quotaError: 'RESOURCE_EXHAUSTED' },
										message: 'Too many requests. Retry in 0 seconds.',
									},
								],
							},
						],
					},
				},
			},
			{
				status: 503,
				body: {
					error: {
						code: 503,
						message: 'The service is currently unavailable.',
						status: 'UNAVAILABLE',
					},
				},
			},
		]);
		const results = await run(leads(3));
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(standIn.requests.map((r: { status: number }) => r.status)).toEqual([429, 503, 200]);
		expect(received()).toHaveLength(3);
	});

	it('fails retryably when an outage outlasts the retries, and a later run delivers', async () => {
		standIn.queueFaults(Array.from({ length: 4 }, () => ({ status: 500 })));
		const failed = await run(leads(2));
		expect(failed.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
		]);
		expect(failed[0].error).toMatch(
			/^Google Ads: Internal error encountered\. \[INTERNAL\] \(gave up after 4 attempts\)$/,
		);
		const retried = await run(leads(2));
		expect(retried.map((r) => r.status)).toEqual(['sent', 'sent']);
	});

	it("reports a rejected access token or developer token in Google's words, permanently", async () => {
		const stale = await run(leads(2), { transport: transport(() => 'ya29.expired') });
		expect(stale.map((r) => [r.status, r.retryable])).toEqual([
			['failed', false],
			['failed', false],
		]);
		expect(stale[0].error).toBe(
			'Google Ads: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project. [UNAUTHENTICATED]',
		);
		const wrongDeveloperToken = await run(leads(1), {
			config: config({ developerToken: 'not-the-developer-token' }),
		});
		expect(wrongDeveloperToken[0]).toMatchObject({
			status: 'failed',
			error: expect.stringMatching(
				/^Google Ads: The developer token is not valid\. \[UNAUTHENTICATED, authenticationError: DEVELOPER_TOKEN_INVALID, request_id \S+\]$/,
			),
		});
		expect(received()).toHaveLength(0);
		// Nothing was recorded: once the credential is fixed, the same leads go out.
		expect((await run(leads(2))).map((r) => r.status)).toEqual(['sent', 'sent']);
	});

	it('never leaks the developer token, even when Google echoes it', async () => {
		standIn.queueFaults([
			{
				status: 401,
				body: {
					error: {
						code: 401,
						message: `Developer token ${DEVELOPER_TOKEN} is not approved for this account.`,
						status: 'UNAUTHENTICATED',
					},
				},
			},
		]);
		const results = await run(leads(2), { includePayload: true });
		expect(results.map((r) => r.status)).toEqual(['failed', 'failed']);
		expect(results[0].error).toBe(
			'Google Ads: Developer token [redacted] is not approved for this account. [UNAUTHENTICATED]',
		);
		expect(JSON.stringify(results)).not.toContain(DEVELOPER_TOKEN);
		expect(standIn.requests).toHaveLength(1);
	});

	it('sends login-customer-id when the account is reached through a manager account', async () => {
		const managed = await startGoogleStandIn({
			developerToken: DEVELOPER_TOKEN,
			loginCustomerId: '9998887776',
		});
		try {
			const viaManager = (loginCustomerId?: string) =>
				dispatch(leads(1), {
					adapter: googleAdapter,
					config: config({ baseUrl: managed.url, loginCustomerId }),
					transport: transport(() => managed.accessToken()),
					store: null,
				});
			const [without] = await viaManager();
			expect(without).toMatchObject({
				status: 'failed',
				error: expect.stringMatching(
					/^Google Ads: User doesn't have permission to access customer\..*login-customer-id.*\[PERMISSION_DENIED, authorizationError: USER_PERMISSION_DENIED/,
				),
			});
			const [withHeader] = await viaManager('9998887776');
			expect(withHeader.status).toBe('sent');
			expect(managed.requests[1].loginCustomerId).toBe('9998887776');
		} finally {
			await managed.close();
		}
	});

	it('sends only the click id when the lead denied ad_user_data, and skips the lead that has none', async () => {
		const results = await run([
			{
				record: crmLead(1, { click: { wbraid: 'WB-1' }, consent: { ad_user_data: 'denied' } }),
				eventName: 'lead',
			},
			{ record: crmLead(2, { consent: { ad_user_data: false } }), eventName: 'lead' },
			{ record: { record_id: 'empty-1', contact: { first_name: 'Ann' } }, eventName: 'lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['sent', 'skipped', 'skipped']);
		expect(received()[0].conversion).toEqual({
			conversionAction: ACTION,
			conversionDateTime: expect.any(String),
			orderId: orderIdOf('deal-1'),
			wbraid: 'WB-1',
			consent: { adUserData: 'DENIED' },
		});
		expect(results[1].error).toMatch(/consent\.ad_user_data is denied/);
		expect(results[2].error).toMatch(/^nothing Google can match/);
		expect(standIn.requests).toHaveLength(1);
	});

	it('dry run returns the exact request without the developer token, and claims and sends nothing', async () => {
		const results = await run(leads(2), { mode: { kind: 'dryRun' } });
		expect(results.map((r) => [r.status, r.dry_run])).toEqual([
			['skipped', true],
			['skipped', true],
		]);
		expect(results[0].response).toEqual({
			request_preview: {
				method: 'POST',
				url: `${standIn.url}/v26/customers/${CUSTOMER}:uploadClickConversions`,
				body: { conversions: [results[0].payload, results[1].payload], partialFailure: true },
			},
		});
		expect(JSON.stringify(results)).not.toContain(DEVELOPER_TOKEN);
		expect(standIn.requests).toHaveLength(0);
		expect(await h.admin.get(keyOf('deal-0'))).toBeNull();
	});

	it('validate only: Google checks the rows, records nothing, and a later real run sends them', async () => {
		const items = [
			{ record: crmLead(0, { click: { gclid: 'G-ok' } }), eventName: 'lead' },
			{ record: crmLead(1, { click: { gclid: 'G bad' } }), eventName: 'lead' },
			{ record: crmLead(2, { click: { gclid: 'G.bad' } }), eventName: 'lead' },
		];
		const tested = await run(items, { config: config({ validateOnly: true }) });
		// 'G bad' has a space: our normalizer drops it, and the lead goes by email and phone.
		expect(tested.map((r) => r.status)).toEqual(['skipped', 'skipped', 'failed']);
		expect(tested[0].error).toMatch(/^validate only: /);
		expect(tested[2].error).toMatch(/UNPARSEABLE_GCLID/);
		expect(standIn.requests[0]).toMatchObject({ validateOnly: true, conversions: 3 });
		expect(received()).toHaveLength(0);
		const real = await run(items);
		expect(real.map((r) => r.status)).toEqual(['sent', 'sent', 'failed']);
		expect(received()).toHaveLength(2);
	});

	it('a partial lead goes only to the partial-lead action, or is skipped without one; completed leads keep theirs', async () => {
		const mixed = [
			{ record: crmLead(70, { state: 'partial', click: { gclid: 'G-partial' } }), eventName: 'partial_lead' },
			{ record: crmLead(71, { click: { gclid: 'G-lead' } }), eventName: 'lead' },
		];
		const without = await run(mixed);
		expect(without.map((r) => r.status)).toEqual(['skipped', 'sent']);
		expect(received().map((r) => [r.conversion.conversionAction, r.conversion.gclid])).toEqual([
			[ACTION, 'G-lead'],
		]);
		standIn.reset();
		const partialAction = `customers/${CUSTOMER}/conversionActions/987654322`;
		const withAction = await run(mixed, { config: config({ partialConversionAction: partialAction }) });
		expect(withAction.map((r) => r.status)).toEqual(['sent', 'duplicate']);
		expect(received().map((r) => [r.conversion.conversionAction, r.conversion.gclid])).toEqual([
			[partialAction, 'G-partial'],
		]);
	});

	it('fails items without a record id and sends the rest', async () => {
		const results = await run([
			{ record: crmLead(1, { record_id: undefined }), eventName: 'lead' },
			{ record: crmLead(2), eventName: 'lead' },
			{ record: crmLead(2), eventName: 'lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['failed', 'sent', 'duplicate']);
		expect(results[0].error).toMatch(/record_id is missing/);
		expect(received()).toHaveLength(1);
	});
});

/**
 * The node's executor refreshes OAuth2 tokens through n8n's helpers. n8n-core is not a dependency
 * of this package, so its two helpers are played here by a minimal model of what n8n 1.123 does
 * (sign with the stored token; `ignoreHttpStatusErrors` returns any status; otherwise a 401 makes
 * n8n refresh and resend, and other errors throw a NodeApiError); the end-to-end suite runs the
 * real ones.
 */
describe("the node's HTTP executor with n8n's OAuth2 helpers", () => {
	let standIn: StandIn;

	beforeAll(async () => {
		standIn = await startGoogleStandIn({ developerToken: DEVELOPER_TOKEN });
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	const node = {
		id: 'n1',
		name: 'Google Ads Conversions',
		type: 'n8n-nodes-lead-capi.googleAdsConversions',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};

	/** n8n with a connected credential: a valid access token stored (as after signing in). */
	async function n8nModel(options: { refreshToken?: string; withRefreshHelper?: boolean } = {}) {
		const stored = { access_token: '', refresh_token: standIn.refreshToken as string };
		let refreshCalls = 0;
		const requestToken = async () => {
			const res = await axios.post(
				standIn.tokenUrl,
				new URLSearchParams({
					grant_type: 'refresh_token',
					refresh_token: stored.refresh_token,
					client_id: standIn.clientId,
					client_secret: standIn.clientSecret,
				}).toString(),
				{
					headers: { 'content-type': 'application/x-www-form-urlencoded' },
					validateStatus: () => true,
					proxy: false,
				},
			);
			if (res.status >= 400)
				throw Object.assign(new Error(res.data.error_description), { code: 'EAUTH' });
			stored.access_token = res.data.access_token;
		};
		await requestToken();
		if (options.refreshToken) stored.refresh_token = options.refreshToken;
		const refresh = async () => {
			refreshCalls++;
			await requestToken();
		};
		const call = (options: IHttpRequestOptions, validate: boolean) =>
			axios.request({
				method: options.method,
				url: options.url,
				params: options.qs,
				headers: {
					...(options.headers as Record<string, string>),
					Authorization: `Bearer ${stored.access_token}`,
				},
				data: options.body,
				timeout: options.timeout,
				proxy: false,
				...(validate ? {} : { validateStatus: () => true }),
			});
		const helpers = {
			async httpRequestWithAuthentication(_credential: string, options: IHttpRequestOptions) {
				try {
					let res;
					try {
						res = await call(options, !options.ignoreHttpStatusErrors);
					} catch (error) {
						if ((error as { response?: { status?: number } }).response?.status !== 401) throw error;
						await refresh();
						res = await call(options, true);
					}
					return {
						body: res.data,
						headers: res.headers,
						statusCode: res.status,
						statusMessage: res.statusText,
					};
				} catch (error) {
					throw new NodeApiError(node, error as never);
				}
			},
			...(options.withRefreshHelper === false ? {} : { refreshOAuth2Token: refresh }),
		};
		const ctx = { helpers, getNode: () => node } as unknown as IExecuteFunctions;
		return { ctx, refreshCalls: () => refreshCalls };
	}

	const send = (ctx: IExecuteFunctions, overrides: Partial<GoogleAdsConfig> = {}) =>
		dispatch(
			Array.from({ length: 3 }, (_, i) => ({ record: crmLead(i), eventName: 'lead' })),
			{
				adapter: googleAdapter,
				config: {
					developerToken: DEVELOPER_TOKEN,
					customerId: CUSTOMER,
					conversionAction: ACTION,
					timeZone: 'UTC',
					baseUrl: standIn.url,
					...overrides,
				},
				transport: fastTransport({ executor: googleAdsExecutor(ctx) }),
				store: null,
				batchSize: 1,
			},
		);

	it('refreshes an expired token once per run (three requests in flight) and resends', async () => {
		const model = await n8nModel();
		standIn.expireAccessToken();
		const results = await send(model.ctx);
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(model.refreshCalls()).toBe(1);
		expect(standIn.requests.map((r: { status: number }) => r.status).sort()).toEqual([
			200, 200, 200, 401, 401, 401,
		]);
	});

	it('lets n8n refresh on its own where it has no refreshOAuth2Token helper', async () => {
		const model = await n8nModel({ withRefreshHelper: false });
		standIn.expireAccessToken();
		const results = await send(model.ctx);
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
	});

	it('says the credential must be reconnected when the refresh token is revoked', async () => {
		const model = await n8nModel({ refreshToken: '1//revoked' });
		standIn.expireAccessToken();
		const results = await send(model.ctx);
		expect(results.map((r) => [r.status, r.retryable])).toEqual([
			['failed', false],
			['failed', false],
			['failed', false],
		]);
		expect(results[0].error).toMatch(
			/^Google Ads: Request had invalid authentication credentials\..* n8n could not refresh the OAuth2 access token \(Token has been expired or revoked\.\); reconnect the Google Ads Conversions credential\. \[UNAUTHENTICATED\]$/,
		);
		expect(model.refreshCalls()).toBe(1);
	});

	it("does not refresh for a developer-token 401, and keeps Google's message", async () => {
		const model = await n8nModel();
		const [result] = await send(model.ctx, { developerToken: 'wrong-developer-token' });
		expect(result.error).toMatch(/DEVELOPER_TOKEN_INVALID/);
		expect(model.refreshCalls()).toBe(0);
	});

	it('hands network failures to the transport with their code, so they are retried', async () => {
		const model = await n8nModel();
		const [result] = await send(model.ctx, { baseUrl: 'http://127.0.0.1:1' });
		expect(result).toMatchObject({
			status: 'failed',
			retryable: true,
			error: expect.stringMatching(/^network error ECONNREFUSED: .*\(gave up after 4 attempts\)$/),
		});
	});

	it('event ids are the order ids Google dedups on', () => {
		expect(deriveEventId(ACTION, 'lead', 'deal-0')).toBe(orderIdOf('deal-0'));
	});
});
