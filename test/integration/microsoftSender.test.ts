import { createHash } from 'node:crypto';
import { MemoryDedupStore } from '../../shared';
import {
	microsoftAdapter,
	probeMicrosoftCredential,
	type MicrosoftConfig,
	type MicrosoftEvent,
} from '../../shared/platforms/microsoft';
import { crmLead, webLead } from '../support/leads';
import { fastTransport, leadItems, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMicrosoftStandIn } = require('../standins/microsoft.js');

const TOKEN = 'uet-capi-auth-key-0123456789abcdef';
const TAG = '187072955';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startMicrosoftStandIn>>;
interface Received {
	uetTagId: string;
	event: MicrosoftEvent;
}

describe('Microsoft sender through dispatch, against a loopback UET CAPI and a real Redis', () => {
	const h = senderHarness('microsoft');
	let standIn: StandIn;

	const config = (overrides: Partial<MicrosoftConfig> = {}): MicrosoftConfig => ({
		uetTagId: TAG,
		apiToken: TOKEN,
		baseUrl: standIn.url,
		eventType: 'custom',
		...overrides,
	});

	const run = h.runner(microsoftAdapter, config);
	const leads = (n: number, make = webLead, eventName = 'lead') => leadItems(n, make, eventName);
	const received = (): Received[] => standIn.received;
	const eventId = (eventName: string, recordId: string) => sha(`${TAG}|${eventName}|${recordId}`);

	beforeAll(async () => {
		standIn = await startMicrosoftStandIn({ apiToken: TOKEN, uetTagId: TAG });
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('sends each lead once with the hashed identity payload; a re-run sends nothing', async () => {
		const items = leads(3).map((item, i) => ({
			...item,
			record: { ...item.record, click: { msclkid: `clk${i}` }, attributes: { uetvid: `vid${i}` } },
		}));
		const first = await run(items);
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(received()).toHaveLength(3);
		const { uetTagId, event } = received()[0];
		expect(uetTagId).toBe(TAG);
		expect(event).toEqual({
			eventType: 'custom',
			eventId: eventId('lead', 'sub_0'),
			eventName: 'lead',
			eventTime: expect.any(Number),
			eventSourceUrl: 'https://example.com/pricing?utm_source=fb',
			// A US lead without a consent signal: Microsoft's consent-mode default there is granted.
			adStorageConsent: 'G',
			userData: {
				em: sha('lead.0@example.com'),
				ph: sha('+16505551212'),
				msclkid: 'clk0',
				anonymousId: 'vid0',
				clientIpAddress: '203.0.113.7',
				clientUserAgent: webLead(0).client!.user_agent,
			},
		});
		expect(standIn.requests[0]).toMatchObject({
			authorization: 'present',
			continueOnValidationError: true,
			dataProvider: 'n8n-nodes-lead-capi',
			events: 3,
			status: 200,
		});
		expect(first[0]).toMatchObject({
			platform: 'microsoft',
			destination: TAG,
			event_name: 'lead',
			event_id: eventId('lead', 'sub_0'),
			dedup: 'claimed',
			match_keys: ['em', 'ph', 'msclkid', 'anonymousId', 'clientIpAddress', 'clientUserAgent'],
			response: { eventsReceived: 3, traceId: expect.any(String) },
		});

		const second = await run(items);
		expect(second.map((r) => [r.status, r.dedup])).toEqual([
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
		]);
		expect(second[0].event_id).toBe(first[0].event_id);
		expect(received()).toHaveLength(3);
	});

	it('keeps partial and completed leads of one record apart: two names, two event ids', async () => {
		const results = await run([
			{ record: webLead(5, { state: 'partial' }), eventName: 'partial_lead' },
			{ record: webLead(5), eventName: 'lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(received().map((r) => [r.event.eventName, r.event.eventId])).toEqual([
			['partial_lead', eventId('partial_lead', 'sub_5')],
			['lead', eventId('lead', 'sub_5')],
		]);
	});

	it('batches 2,500 events into requests of at most 1,000', async () => {
		const results = await run(leads(2500, crmLead));
		expect(results.every((r) => r.status === 'sent')).toBe(true);
		// Chunks go out a few at a time, so their order of arrival varies.
		expect(standIn.requests.map((r: { events: number }) => r.events).sort()).toEqual([
			1000, 1000, 500,
		]);
		expect(new Set(received().map((r) => r.event.eventId)).size).toBe(2500);
	});

	it('honours the batch size option', async () => {
		await run(leads(5, crmLead), { batchSize: 2 });
		expect(standIn.requests.map((r: { events: number }) => r.events).sort()).toEqual([1, 2, 2]);
	});

	it('maps per-event validation errors to their items: only they fail, only they are released', async () => {
		const items = leads(1000, crmLead);
		const bad = [137, 862];
		for (const i of bad) standIn.poison(eventId('lead', `deal-${i}`));
		const results = await run(items);
		expect(standIn.requests).toHaveLength(1);
		expect(results.filter((r) => r.status === 'sent')).toHaveLength(998);
		for (const i of bad) {
			expect(results[i]).toMatchObject({
				status: 'failed',
				retryable: false,
				error: expect.stringMatching(
					/^Microsoft: userData\.em: The hashed email is not a known format \[traceId [0-9a-f-]{36}\]$/,
				),
				response: {
					status: 200,
					error: { details: [{ index: expect.any(Number), propertyName: 'userData.em' }] },
				},
			});
		}
		expect(results[0].response).toMatchObject({ eventsReceived: 998 });
		// Microsoft echoes the rejected value (here the hashed email): it never reaches an output.
		const text = JSON.stringify(results);
		for (const i of bad) expect(text).not.toContain(sha(`buyer${i}@example.de`));
		expect(received()).toHaveLength(998);

		// Once fixed, a re-run sends the two failed events, and only them.
		standIn.reset();
		const retry = await run(items);
		expect(retry.filter((r) => r.status === 'duplicate')).toHaveLength(998);
		expect(bad.map((i) => retry[i].status)).toEqual(['sent', 'sent']);
		expect(
			received()
				.map((r) => r.event.eventId)
				.sort(),
		).toEqual(bad.map((i) => eventId('lead', `deal-${i}`)).sort());
	});

	it('on a 400 that names bad events and received nothing, fails those and resends the others', async () => {
		standIn.queueFaults([
			{
				status: 400,
				body: {
					eventsReceived: 0,
					error: {
						code: 'InvalidEvents',
						message: 'One or more events failed validation',
						details: [
							{
								index: 1,
								propertyName: 'userData.ph',
								attemptedValue: sha('+491234'),
								errorMessage: 'Invalid phone hash',
							},
						],
					},
					traceId: 'trace-400',
				},
			},
		]);
		const results = await run(leads(3, crmLead));
		expect(results.map((r) => r.status)).toEqual(['sent', 'failed', 'sent']);
		expect(results[1].error).toBe('Microsoft: userData.ph: Invalid phone hash [traceId trace-400]');
		expect(JSON.stringify(results)).not.toContain(sha('+491234'));
		expect(standIn.requests.map((r: { events: number }) => r.events)).toEqual([3, 2]);
		expect(received().map((r) => r.event.eventId)).toEqual([
			eventId('lead', 'deal-0'),
			eventId('lead', 'deal-2'),
		]);
	});

	it('on a 400 that names bad events but received the others, fails only those, without resending', async () => {
		standIn.queueFaults([
			{
				status: 400,
				body: {
					eventsReceived: 2,
					error: {
						code: 'InvalidEvents',
						message: 'One or more events failed validation',
						details: [
							{ index: 0, propertyName: 'eventTime', attemptedValue: 1, errorMessage: 'Too old' },
						],
					},
					traceId: 'trace-2',
				},
			},
		]);
		const results = await run(leads(3, crmLead));
		expect(results.map((r) => r.status)).toEqual(['failed', 'sent', 'sent']);
		expect(results[0].error).toBe('Microsoft: eventTime: Too old [traceId trace-2]');
		expect(results[1].response).toEqual({ eventsReceived: 2, traceId: 'trace-2' });
		expect(standIn.requests).toHaveLength(1);
	});

	it("passes Microsoft's warnings and a short acknowledgement on to the sent items", async () => {
		standIn.queueFaults([
			{
				status: 200,
				body: {
					eventsReceived: 3,
					error: {
						code: 'PartialSuccess',
						message: 'Accepted with warnings',
						details: [
							{
								index: 1,
								propertyName: 'customData.currency',
								attemptedValue: 'XXX',
								errorMessage: 'Unknown currency XXX ignored',
								isWarning: true,
							},
						],
					},
					traceId: 'trace-w',
				},
			},
			{ status: 200, body: { eventsReceived: 1, traceId: 'trace-short' } },
		]);
		const warned = await run(leads(3, crmLead));
		expect(warned.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(warned[1].warnings).toContain(
			'Microsoft: customData.currency: Unknown currency [value] ignored',
		);
		expect(warned[0].warnings.join()).not.toMatch(/Microsoft/);
		const short = await run(leads(2, webLead));
		expect(short.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(short[0].warnings).toContain(
			'Microsoft acknowledged 1 of the 2 events it did not reject in this request',
		);
	});

	it('does not record events Microsoft says it did not receive, even on HTTP 200', async () => {
		standIn.queueFaults([{ status: 200, body: { eventsReceived: 0, traceId: 'trace-0' } }]);
		const results = await run(leads(2, crmLead));
		expect(results.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
		]);
		expect(results[0].error).toBe(
			'Microsoft answered HTTP 200 but received none of the 2 events [traceId trace-0]',
		);
		const again = await run(leads(2, crmLead));
		expect(again.map((r) => r.status)).toEqual(['sent', 'sent']);
	});

	it('on a 400 that names no event, splits the batch until the bad event stands alone', async () => {
		standIn.refuseRequestsWith(eventId('lead', 'deal-2'));
		const results = await run(leads(4, crmLead));
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'failed', 'sent']);
		expect(results[2].error).toMatch(
			/^Microsoft: The request could not be processed \[code InvalidRequest, HTTP 400, traceId \S+\]$/,
		);
		expect(received()).toHaveLength(3);
	});

	it('retries 429 (honouring Retry-After) and 500, then delivers once', async () => {
		standIn.queueFaults([
			{
				status: 429,
				headers: { 'retry-after': '1' },
				body: { error: { code: 'TooManyRequests', message: 'Rate limit exceeded' } },
			},
			{ status: 500 },
		]);
		const started = Date.now();
		const results = await run(leads(4, crmLead));
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
		expect(standIn.requests.map((r: { status: number }) => r.status)).toEqual([429, 500, 200]);
		expect(received()).toHaveLength(4);
	});

	it('fails retryable after an outage that outlives the retries, and a later run delivers', async () => {
		standIn.queueFaults(Array.from({ length: 4 }, () => ({ status: 503 })));
		const failed = await run(leads(3, crmLead));
		expect(failed.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
			['failed', true],
		]);
		expect(failed[0].error).toMatch(
			/^Microsoft: An internal error occurred \[code InternalServerError, HTTP 503, traceId \S+\] \(gave up after 4 attempts\)$/,
		);
		expect(received()).toHaveLength(0);
		const retried = await run(leads(3, crmLead));
		expect(retried.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
	});

	it("fails the whole request on a refused token with Microsoft's message and what to check", async () => {
		const results = await run(leads(3, crmLead), {
			config: config({ apiToken: 'not-the-right-token' }),
		});
		expect(results.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
		expect(results[0]).toMatchObject({
			retryable: false,
			error: expect.stringMatching(
				/^Microsoft: Authorization failed: the bearer token is missing or invalid \[code Unauthorized, HTTP 401, traceId \S+\]\. Check the API token \(the UET tag's Conversions API auth key\) and that it belongs to this UET tag ID$/,
			),
			response: { status: 401, error: { code: 'Unauthorized' } },
		});
		// A token error is about the request as a whole: no splitting, one request.
		expect(standIn.requests).toHaveLength(1);
		expect(JSON.stringify(results)).not.toContain('not-the-right-token');
		// Released: with the right token the same events go out.
		const fixed = await run(leads(3, crmLead));
		expect(fixed.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
	});

	it('fails with 403 when the token belongs to another UET tag', async () => {
		const [r] = await run(leads(1, crmLead), { config: config({ uetTagId: '999' }) });
		expect(r).toMatchObject({
			status: 'failed',
			destination: '999',
			error: expect.stringMatching(
				/^Microsoft: The token is not authorized for UET tag 999 \[code Forbidden, HTTP 403/,
			),
		});
	});

	it('never leaks the API token, even when Microsoft echoes it', async () => {
		standIn.queueFaults([
			{
				status: 401,
				body: {
					error: { code: 'Unauthorized', message: `Token ${TOKEN} has expired` },
					traceId: 't',
				},
			},
		]);
		const results = await run(leads(2, crmLead));
		const text = JSON.stringify(results);
		expect(text).not.toContain(TOKEN);
		expect(results[0].error).toMatch(/^Microsoft: Token \[redacted\] has expired/);
	});

	it('sends Page Load events with their page URL; a lead without one fails on its own', async () => {
		const results = await run([...leads(1, webLead), ...leads(1, crmLead)], {
			config: config({ eventType: 'pageLoad' }),
		});
		expect(results.map((r) => r.status)).toEqual(['sent', 'failed']);
		expect(results[1].error).toMatch(/Page Load events need the page URL/);
		expect(received()[0].event).toMatchObject({
			eventType: 'pageLoad',
			eventSourceUrl: 'https://example.com/pricing?utm_source=fb',
		});
		expect(received()[0].event.eventName).toBeUndefined();
	});

	it("sets adStorageConsent from the lead's consent and skips a lead that denied ad data", async () => {
		const results = await run([
			{ record: crmLead(1, { consent: { ad_user_data: 'denied' } }), eventName: 'lead' },
			{
				record: crmLead(2, { consent: { ad_user_data: 'granted', ad_personalization: 'denied' } }),
				eventName: 'lead',
			},
			{ record: crmLead(3, { consent: { ad_user_data: true } }), eventName: 'lead' },
			{ record: crmLead(4), eventName: 'lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['skipped', 'sent', 'sent', 'sent']);
		expect(results[0].error).toMatch(/ad_user_data is denied/);
		expect(received().map((r) => r.event.adStorageConsent)).toEqual(['D', 'G', 'D']);
		standIn.reset();
		await run([{ record: crmLead(5), eventName: 'lead' }], {
			config: config({ unknownConsent: 'G' }),
		});
		expect(received()[0].event.adStorageConsent).toBe('G');
	});

	it('sends purchases with value, currency, transaction id and pageType', async () => {
		const [r] = await run([
			{
				record: crmLead(1, {
					state: 'purchase',
					value: { amount: 1200, currency: 'usd' },
					attributes: { transaction_id: 'inv-1' },
				}),
				eventName: 'purchase',
			},
		]);
		expect(r.status).toBe('sent');
		expect(received()[0].event.customData).toEqual({
			value: 1200,
			currency: 'USD',
			transactionId: 'inv-1',
			pageType: 'purchase',
		});
	});

	it('skips events older than Microsoft\'s own window (7 days, a figure Microsoft does not document), even under Clamp to Window', async () => {
		const at = (d: number) => new Date(Date.now() - d * 86400_000).toISOString();
		const old = { record: crmLead(7, { occurred_at: at(10) }), eventName: 'lead' };
		for (const [i, policy] of [undefined, 'clamp', 'skip'].entries()) {
			const [skipped] = await run([{ ...old, record: { ...old.record, record_id: `deal-old-${i}` } }], {
				eventWindowPolicy: policy as 'clamp' | 'skip' | undefined,
			});
			expect(skipped).toMatchObject({
				status: 'skipped',
				error: expect.stringContaining('outside the 7-day window applied for Microsoft (Microsoft documents none)'),
			});
		}
		const [inside] = await run([{ record: crmLead(8, { occurred_at: at(6) }), eventName: 'lead' }]);
		expect(inside.status).toBe('sent');
		expect(received()).toHaveLength(1);
	});

	it('fails items without a record id or an identifier, and sends the rest once', async () => {
		const results = await run([
			{ record: crmLead(1, { record_id: undefined }), eventName: 'lead' },
			{
				record: { record_id: 'x1', client: { ip: '203.0.113.9', user_agent: 'UA/1.0' } },
				eventName: 'lead',
			},
			{ record: crmLead(2), eventName: 'lead' },
			{ record: crmLead(2), eventName: 'lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['failed', 'failed', 'sent', 'duplicate']);
		expect(results[0].error).toMatch(/record_id is missing/);
		expect(results[1].error).toMatch(/no customer information Microsoft can match/);
		expect(results[3]).toMatchObject({ dedup: 'in_batch' });
		expect(received()).toHaveLength(1);
	});

	it('dry run returns the exact request and claims and sends nothing', async () => {
		const results = await run(leads(2, crmLead), { mode: { kind: 'dryRun' } });
		expect(results.map((r) => [r.status, r.dry_run])).toEqual([
			['skipped', true],
			['skipped', true],
		]);
		expect(results[0].response).toMatchObject({
			request_preview: {
				method: 'POST',
				url: `${standIn.url}/v1/${TAG}/events`,
				body: {
					continueOnValidationError: true,
					data: [{ eventName: 'lead', userData: { em: sha('buyer0@example.de') } }, {}],
				},
			},
		});
		expect(JSON.stringify(results)).not.toContain(TOKEN);
		expect(standIn.requests).toHaveLength(0);
		const real = await run(leads(2, crmLead));
		expect(real.map((r) => r.status)).toEqual(['sent', 'sent']);
	});

	it('keeps dedup within one process with the in-memory store; off sends again and says so', async () => {
		const store = new MemoryDedupStore();
		await run(leads(2, crmLead), {}, store);
		const again = await run(leads(2, crmLead), {}, store);
		expect(again.map((r) => r.status)).toEqual(['duplicate', 'duplicate']);
		const off = await run(leads(1, crmLead), {}, null);
		expect(off[0]).toMatchObject({
			status: 'sent',
			dedup: 'off',
			warnings: [expect.stringMatching(/dedup is off/)],
		});
		expect(received()).toHaveLength(3);
	});

	describe('the credential test', () => {
		const probe = (overrides: Partial<MicrosoftConfig> = {}) =>
			probeMicrosoftCredential(
				{ uetTagId: TAG, apiToken: TOKEN, baseUrl: standIn.url, ...overrides },
				fastTransport(),
			);

		it('accepts the right token and tag without recording anything', async () => {
			const result = await probe();
			expect(result).toEqual({
				ok: true,
				message: `Microsoft accepted the API token for UET tag ${TAG} (probe with an empty batch, HTTP 400: nothing was recorded)`,
			});
			expect(received()).toHaveLength(0);
		});

		it.each([
			[
				'a wrong token',
				{ apiToken: 'wrong-token-123456' },
				/^Microsoft: Authorization failed.*HTTP 401.*Check the API token/,
			],
			[
				'another tag',
				{ uetTagId: '42' },
				/^Microsoft: The token is not authorized for UET tag 42 .*HTTP 403/,
			],
			[
				'a wrong base URL',
				{ baseUrl: 'BASE/api' },
				/HTTP 404.*Check the UET tag ID and the Base URL$/,
			],
			['spaces around the token', { apiToken: ` ${TOKEN}` }, /starts or ends with spaces/],
			['an empty tag', { uetTagId: ' ' }, /UET Tag ID is empty/],
		] as const)('refuses %s, saying why', async (_label, overrides, message) => {
			const resolved = { ...overrides } as Partial<MicrosoftConfig>;
			if (resolved.baseUrl) resolved.baseUrl = resolved.baseUrl.replace('BASE', standIn.url);
			const result = await probe(resolved);
			expect(result.ok).toBe(false);
			expect(result.message).toMatch(message);
			expect(result.message).not.toContain(TOKEN);
		});
	});
});
