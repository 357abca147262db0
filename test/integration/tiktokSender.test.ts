import { createHash } from 'node:crypto';
import { credentialTestContext } from '../nodes/support/n8nHttp';
import { TiktokEvents } from '../../nodes/TiktokEvents/TiktokEvents.node';
import { Transport, type ItemResult, type PlatformAdapter } from '../../shared';
import { tiktokAdapter, type TiktokConfig, type TiktokEvent } from '../../shared/platforms/tiktok';
import { crmLead, webLead } from '../support/leads';
import { FAST_RETRY, leadItems, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startTiktokStandIn } = require('../standins/tiktok.js');

const TOKEN = 'tt-events-api-token-0123456789abcdef';
const PIXEL = 'C4TESTPIXEL0001';
const CRM_EVENT_SET = '7301234567890123456';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startTiktokStandIn>>;
interface Received {
	eventSource: string;
	eventSourceId: string;
	testEventCode?: string;
	event: TiktokEvent;
}
interface RequestLog {
	events: number;
	status: number;
	code?: number;
	eventSource?: string;
	eventSourceId?: string;
	testEventCode?: string;
}

function fastTransport(waits: number[] = []) {
	return new Transport({
		retry: FAST_RETRY,
		// Waits are recorded (and kept short) so Retry-After can be asserted without sleeping.
		sleep: async (ms) => {
			waits.push(ms);
			await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)));
		},
	});
}

describe('TikTok sender through dispatch, against a loopback TikTok and a real Redis', () => {
	const h = senderHarness('tiktok');
	let standIn: StandIn;

	const config = (overrides: Partial<TiktokConfig> = {}): TiktokConfig => ({
		pixelCode: PIXEL,
		accessToken: TOKEN,
		crmEventSetId: CRM_EVENT_SET,
		baseUrl: standIn.url,
		eventSource: 'web',
		limitedDataUse: 'auto',
		...overrides,
	});

	const run = h.runner(tiktokAdapter, config, fastTransport);
	const leads = (n: number, make = webLead) => leadItems(n, make, 'SubmitForm');
	const received = (): Received[] => standIn.received;
	const requests = (): RequestLog[] => standIn.requests;
	const statuses = (results: ItemResult[]) => results.map((r) => r.status);

	/** Our adapter with one event spoiled on purpose, to see TikTok's own validation answer. */
	const spoiling = (
		recordId: string,
		spoil: (event: TiktokEvent) => void,
	): PlatformAdapter<TiktokConfig, TiktokEvent> => ({
		...tiktokAdapter,
		buildEvent: (context, cfg) => {
			const built = tiktokAdapter.buildEvent(context, cfg);
			if (built.ok && context.record.record_id === recordId) spoil(built.payload);
			return built;
		},
	});

	beforeAll(async () => {
		standIn = await startTiktokStandIn({
			accessToken: TOKEN,
			pixelCode: PIXEL,
			crmEventSetId: CRM_EVENT_SET,
		});
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('sends each lead once with the hashed identity TikTok validates; a re-run sends nothing', async () => {
		const first = await run(leads(3));
		expect(statuses(first)).toEqual(['sent', 'sent', 'sent']);
		expect(received()).toHaveLength(3);
		expect(requests()).toEqual([
			expect.objectContaining({ events: 3, code: 0, eventSource: 'web', eventSourceId: PIXEL }),
		]);
		expect(received()[0].event).toEqual({
			event: 'SubmitForm',
			event_time: expect.any(Number),
			event_id: sha(`${PIXEL}|SubmitForm|sub_0`),
			user: {
				email: [sha('lead.0@example.com')],
				phone: [sha('+16505551212')],
				first_name: sha('mary'),
				last_name: sha('oneil'),
				zip_code: sha('94105'),
				city: 'sanfrancisco',
				state: 'ca',
				country: 'us',
				ip: '203.0.113.7',
				user_agent: webLead(0).client!.user_agent,
			},
			page: { url: 'https://example.com/pricing?utm_source=fb' },
			limited_data_use: true,
		});
		expect(first[0]).toMatchObject({
			platform: 'tiktok',
			destination: PIXEL,
			event_name: 'SubmitForm',
			event_id: sha(`${PIXEL}|SubmitForm|sub_0`),
			dedup: 'claimed',
			warnings: [],
			match_keys: [
				'email',
				'phone',
				'first_name',
				'last_name',
				'zip_code',
				'city',
				'state',
				'country',
				'ip',
				'user_agent',
			],
			response: { code: 0, message: 'OK', request_id: expect.any(String) },
		});

		const second = await run(leads(3));
		expect(statuses(second)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(second[0]).toMatchObject({ dedup: 'sent_before', event_id: first[0].event_id });
		expect(received()).toHaveLength(3);
		expect(requests()).toHaveLength(1);
	});

	it('batches 120 events into requests of at most 50, whatever batch size is asked for', async () => {
		const results = await run(leads(120, crmLead), { batchSize: 1000 });
		expect(results.every((r) => r.status === 'sent')).toBe(true);
		// Chunks go out a few at a time, so their order of arrival varies.
		expect(
			requests()
				.map((r) => r.events)
				.sort((a, b) => a - b),
		).toEqual([20, 50, 50]);
		expect(new Set(received().map((r) => r.event.event_id)).size).toBe(120);
	});

	it('honours a smaller batch size', async () => {
		await run(leads(5, crmLead), { batchSize: 2 });
		expect(
			requests()
				.map((r) => r.events)
				.sort(),
		).toEqual([1, 2, 2]);
	});

	it("isolates one invalid lead in a full batch: 49 delivered, 1 failed with TikTok's message; a re-run sends only it", async () => {
		const items = leads(50, crmLead);
		const badIndex = 31;
		const badId = sha(`${PIXEL}|SubmitForm|deal-${badIndex}`);
		standIn.poison(badId);
		const results = await run(items);
		expect(results.filter((r) => r.status === 'sent')).toHaveLength(49);
		expect(results[badIndex]).toMatchObject({
			status: 'failed',
			retryable: false,
			error: expect.stringMatching(
				/^TikTok: data\[0\]: Invalid value for this event: refused\. \[code 40002, request_id \w+\]$/,
			),
			response: { status: 200, code: 40002 },
		});
		expect(received()).toHaveLength(49);
		expect(received().some((r) => r.event.event_id === badId)).toBe(false);
		// The failed event was released: once fixed, a re-run sends it, and only it.
		standIn.reset();
		const retry = await run(items);
		expect(retry.filter((r) => r.status === 'duplicate')).toHaveLength(49);
		expect(retry[badIndex].status).toBe('sent');
		expect(received()).toHaveLength(1);
		expect(requests()).toHaveLength(1);
	});

	it('fails only the event TikTok finds unhashed (40062 PII_NOT_HASHED)', async () => {
		const adapter = spoiling('deal-2', (event) => {
			event.user.email = ['Buyer2@Example.de'];
		});
		const results = await run(leads(4, crmLead), { adapter });
		expect(statuses(results)).toEqual(['sent', 'sent', 'failed', 'sent']);
		expect(results[2].error).toMatch(
			/^TikTok: data\[0\]: PII_NOT_HASHED: user\.email must be hashed with SHA256 .*\[code 40062, request_id \w+\]$/,
		);
		expect(received()).toHaveLength(3);
	});

	it('fails only an event whose event_id is not a string (40002), as TikTok answered it', async () => {
		const adapter = spoiling('deal-1', (event) => {
			(event as unknown as { event_id: number }).event_id = 1234567;
		});
		const results = await run(leads(3, crmLead), { adapter });
		expect(statuses(results)).toEqual(['sent', 'failed', 'sent']);
		expect(results[1].error).toMatch(
			/Invalid value for event_id: not a valid string\. \[code 40002/,
		);
	});

	it('isolates an event TikTok refuses by its own rules (here: our window check widened on purpose)', async () => {
		const stale = {
			record: crmLead(99, { occurred_at: new Date(Date.now() - 40 * 86400_000).toISOString() }),
			eventName: 'SubmitForm',
		};
		const mixed = await run([...leads(3, crmLead), stale], {
			adapter: {
				...tiktokAdapter,
				eventTimeWindow: { ...tiktokAdapter.eventTimeWindow, seconds: 60 * 24 * 3600 },
			},
		});
		expect(statuses(mixed)).toEqual(['sent', 'sent', 'sent', 'failed']);
		expect(mixed[3].error).toMatch(/too far in the past/);
		expect(received()).toHaveLength(3);
	});

	it('CRM events are timed by the one stage rule: one older than the window is expired with the reason, never clamped, with or without a stage', async () => {
		const at = (d: number) => new Date(Date.now() - d * 86400_000).toISOString();
		const crm = config({ eventSource: 'crm', leadEventSource: 'HubSpot' });
		for (const [i, policy] of [undefined, 'clamp'].entries()) {
			const [noStage] = await run(
				[{ record: crmLead(20 + i, { occurred_at: at(30) }), eventName: 'SubmitForm' }],
				{ config: crm, eventWindowPolicy: policy as 'clamp' | undefined },
			);
			expect(noStage).toMatchObject({ status: 'expired' });
			expect(noStage.error).toMatch(/^event "SubmitForm" expired: occurred_at is 30\.0 days old/);
			expect(noStage.warnings.join(' ')).not.toMatch(/clamped/);
		}
		const [stage] = await run(
			[{ record: crmLead(22, { stage: 'Qualified', stage_at: at(29) }), eventName: 'Qualified' }],
			{ config: crm },
		);
		expect(stage).toMatchObject({ status: 'expired' });
		expect(stage.error).toMatch(/^stage "Qualified" expired: stage_at is 29\.0 days old/);
		expect(received()).toHaveLength(0);
		const [inside] = await run([{ record: crmLead(23, { occurred_at: at(20) }), eventName: 'SubmitForm' }], {
			config: crm,
		});
		expect(inside).toMatchObject({ status: 'sent', event_time: Math.floor(Date.parse(at(20)) / 1000) });
	});

	it('skips events older than TikTok\'s own window (28 days, a figure TikTok does not document), even under Clamp to Window', async () => {
		const at = (d: number) => new Date(Date.now() - d * 86400_000).toISOString();
		const old = { record: crmLead(7, { occurred_at: at(30) }), eventName: 'SubmitForm' };
		for (const [i, policy] of [undefined, 'clamp', 'skip'].entries()) {
			const [skipped] = await run([{ ...old, record: { ...old.record, record_id: `deal-old-${i}` } }], {
				eventWindowPolicy: policy as 'clamp' | 'skip' | undefined,
			});
			expect(skipped).toMatchObject({
				status: 'skipped',
				error: expect.stringContaining('outside the 28-day window applied for TikTok (TikTok documents none)'),
			});
		}
		const [inside] = await run([{ record: crmLead(8, { occurred_at: at(20) }), eventName: 'SubmitForm' }]);
		expect(inside.status).toBe('sent');
		expect(received()).toHaveLength(1);
	});

	it("reports a partial success (20001) as sent, with TikTok's message as a warning", async () => {
		standIn.dropPartly(sha(`${PIXEL}|SubmitForm|deal-1`));
		const results = await run(leads(3, crmLead));
		expect(statuses(results)).toEqual(['sent', 'sent', 'sent']);
		for (const r of results) {
			expect(r.warnings).toEqual([
				expect.stringMatching(
					/^TikTok accepted the request only in part \(code 20001\): Partial success: 1 of 3 events were not processed\./,
				),
			]);
			expect(r.response).toMatchObject({ code: 20001, data: { failed_events: 1 } });
		}
	});

	it('retries a 429 honouring Retry-After, a throttle code on HTTP 200, a 5xxxx code and a 503, then delivers once', async () => {
		standIn.queueFaults([
			{
				status: 429,
				headers: { 'retry-after': '2' },
				body: { code: 40100, message: 'Requests made too frequently.' },
			},
			{
				status: 200,
				body: { code: 40132, message: 'Request frequency limited.', request_id: 'r1' },
			},
			{ status: 200, body: { code: 50002, message: 'System timeout.', request_id: 'r2' } },
		]);
		const waits: number[] = [];
		const results = await run(leads(4, crmLead), { transport: fastTransport(waits) });
		expect(statuses(results)).toEqual(['sent', 'sent', 'sent', 'sent']);
		expect(waits[0]).toBe(2000);
		expect(waits).toHaveLength(3);
		expect(requests()).toHaveLength(4);
		expect(received()).toHaveLength(4);

		standIn.reset();
		standIn.queueFaults([{ status: 503 }, { kind: 'reset' }]);
		const again = await run(leads(2, webLead));
		expect(statuses(again)).toEqual(['sent', 'sent']);
		expect(received()).toHaveLength(2);
	});

	it('does not mark an undeliverable event as sent: after the outage a retry delivers', async () => {
		standIn.queueFaults(
			Array.from({ length: 4 }, () => ({
				status: 200,
				body: { code: 50000, message: 'System error.' },
			})),
		);
		const failed = await run(leads(3, crmLead));
		expect(failed.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
			['failed', true],
		]);
		expect(failed[0].error).toMatch(
			/^TikTok: System error\. \[code 50000\] \(gave up after 4 attempts\)$/,
		);
		expect(received()).toHaveLength(0);
		const retried = await run(leads(3, crmLead));
		expect(statuses(retried)).toEqual(['sent', 'sent', 'sent']);
		expect(received()).toHaveLength(3);
	});

	it("fails every item of a request with a wrong token in TikTok's words, without splitting", async () => {
		const results = await run(leads(10, crmLead), {
			config: config({ accessToken: 'not-the-right-token' }),
		});
		expect(results.every((r) => r.status === 'failed' && r.retryable === false)).toBe(true);
		expect(results[0].error).toMatch(
			/^TikTok: Access token is incorrect or has been revoked\. \(the access token is expired, empty or invalid: generate a new one in Events Manager and update the TikTok Events credential\) \[code 40105, request_id \w+\]$/,
		);
		expect(requests()).toHaveLength(1);
		expect(received()).toHaveLength(0);
		// Released, not recorded: with the right token the same events go out.
		const fixed = await run(leads(10, crmLead));
		expect(fixed.every((r) => r.status === 'sent')).toBe(true);
	});

	it('fails a whole request on an empty-bodied 401 or a permission error, without splitting', async () => {
		standIn.queueFaults([{ status: 401 }]);
		const unauthorized = await run(leads(6, crmLead));
		expect(unauthorized[0]).toMatchObject({
			status: 'failed',
			error: 'TikTok answered HTTP 401 without a result code',
		});
		expect(requests()).toHaveLength(1);
		standIn.reset();
		const wrongSet = await run(leads(6, crmLead), {
			config: config({ eventSource: 'crm', crmEventSetId: '999' }),
		});
		expect(wrongSet[0].error).toMatch(
			/^TikTok: No permission to operate event source 999\. \(the access token may not send events/,
		);
		expect(requests()).toHaveLength(1);
	});

	it('never leaks the access token, even when TikTok echoes it', async () => {
		standIn.queueFaults([
			{
				status: 200,
				body: { code: 40105, message: 'Access token {{token}} is incorrect or has been revoked.' },
			},
			{ status: 503, body: { code: 50000, message: 'System error for Access-Token: {{token}}' } },
			{ status: 503, body: { code: 50000, message: 'System error for Access-Token: {{token}}' } },
			{ status: 503, body: { code: 50000, message: 'System error for Access-Token: {{token}}' } },
			{ status: 503, body: { code: 50000, message: 'System error for Access-Token: {{token}}' } },
		]);
		const rejected = await run(leads(2, crmLead));
		expect(statuses(rejected)).toEqual(['failed', 'failed']);
		expect(rejected[0].error).toMatch(/^TikTok: Access token \[redacted\] is incorrect/);
		const exhausted = await run(leads(2, crmLead));
		expect(exhausted[0].error).toMatch(/Access-Token: \[redacted\]/);
		const text = JSON.stringify([rejected, exhausted]);
		expect(text).not.toContain(TOKEN);
		expect(text).toContain('[redacted]');
	});

	it('sends CRM events to the CRM event set with the TikTok lead ID, deduplicated apart from web', async () => {
		const record = crmLead(9, { attributes: { tiktok_lead_id: '7312345678901234' } });
		const [crm] = await run([{ record, eventName: 'SubmitForm' }], {
			config: config({ eventSource: 'crm', leadEventSource: 'HubSpot' }),
		});
		expect(crm).toMatchObject({
			status: 'sent',
			destination: CRM_EVENT_SET,
			event_id: sha(`${CRM_EVENT_SET}|SubmitForm|deal-9`),
		});
		expect(received()[0]).toMatchObject({
			eventSource: 'crm',
			eventSourceId: CRM_EVENT_SET,
			event: {
				event_id: sha(`${CRM_EVENT_SET}|SubmitForm|deal-9`),
				user: { email: [sha('buyer9@example.de')], phone: [sha('+49301234567')], country: 'de' },
				lead: { lead_id: '7312345678901234', lead_event_source: 'HubSpot' },
				limited_data_use: false,
			},
		});
		const [web] = await run([{ record, eventName: 'SubmitForm' }]);
		expect(web).toMatchObject({ status: 'sent', destination: PIXEL });
		expect(received()[1].event.lead).toBeUndefined();
	});

	it('carries test_event_code and honours Limited Data Use always / never', async () => {
		await run(leads(1, crmLead), {
			config: config({ testEventCode: 'TEST123', limitedDataUse: 'always' }),
		});
		expect(requests()[0].testEventCode).toBe('TEST123');
		expect(received()[0].event.limited_data_use).toBe(true);
		standIn.reset();
		await run(leads(1, webLead), { config: config({ limitedDataUse: 'never' }) });
		expect(requests()[0].testEventCode).toBeUndefined();
		expect(received()[0].event.limited_data_use).toBe(false);
	});

	it('skips leads whose consent denies ad data, fails leads with nothing to match, sends the rest', async () => {
		const results = await run([
			{ record: crmLead(1, { consent: { ad_user_data: 'denied' } }), eventName: 'SubmitForm' },
			{
				record: { record_id: 'x1', contact: { first_name: 'Ann', city: 'Berlin', country: 'DE' } },
				eventName: 'SubmitForm',
			},
			{ record: crmLead(2), eventName: 'SubmitForm' },
			{ record: crmLead(2), eventName: 'SubmitForm' },
		]);
		expect(statuses(results)).toEqual(['skipped', 'failed', 'sent', 'duplicate']);
		expect(results[1].error).toMatch(
			/nothing TikTok can match this lead with \(only first_name, city, country\)/,
		);
		expect(results[3]).toMatchObject({ dedup: 'in_batch' });
		expect(received()).toHaveLength(1);
	});

	it('dry run returns the exact payloads and claims and sends nothing', async () => {
		const results = await run(leads(2, crmLead), { mode: { kind: 'dryRun' } });
		expect(results.map((r) => [r.status, r.dry_run])).toEqual([
			['skipped', true],
			['skipped', true],
		]);
		expect(results[0].payload).toMatchObject({
			event: 'SubmitForm',
			user: { email: [sha('buyer0@example.de')] },
		});
		expect(results[0].response).toMatchObject({
			request_preview: {
				body: {
					event_source: 'web',
					event_source_id: PIXEL,
					data: [expect.any(Object), expect.any(Object)],
				},
			},
		});
		expect(JSON.stringify(results)).not.toContain(TOKEN);
		expect(requests()).toHaveLength(0);
		const real = await run(leads(2, crmLead));
		expect(statuses(real)).toEqual(['sent', 'sent']);
	});
});

describe("the TikTok Events API credential test (the TikTok Events node's), against the stand-in", () => {
	let standIn: StandIn;

	/** What n8n's credential tester calls: the function the node names in testedBy. */
	function credentialTest(credentials: Record<string, unknown>) {
		const node = new TiktokEvents();
		const testedBy = node.description.credentials?.find((c) => c.name === 'leadCapiTiktokApi')
			?.testedBy as string;
		return node.methods.credentialTest[testedBy as 'leadCapiTiktokApiTest'].call(
			credentialTestContext(),
			{ id: '1', name: 'TikTok', type: 'leadCapiTiktokApi', data: credentials as never },
		);
	}

	beforeAll(async () => {
		standIn = await startTiktokStandIn({ accessToken: TOKEN, pixelCode: PIXEL });
	});
	afterAll(() => standIn.close());

	it('passes with the right token and pixel, without recording anything', async () => {
		const result = await credentialTest({
			pixelCode: PIXEL,
			accessToken: TOKEN,
			baseUrl: `${standIn.url}/`,
		});
		expect(result).toEqual({
			status: 'OK',
			message: expect.stringMatching(
				new RegExp(
					`^TikTok accepted the access token for pixel ${PIXEL}; the probe without events was refused as expected \\(Invalid value for data.*\\), nothing was recorded$`,
				),
			),
		});
		expect(standIn.requests).toEqual([
			expect.objectContaining({
				eventSourceId: PIXEL,
				testEventCode: 'N8N_CREDENTIAL_TEST',
				events: 0,
			}),
		]);
		expect(standIn.received).toHaveLength(0);
	});

	it.each([
		[
			'a wrong token',
			{ accessToken: 'wrong-token-123456' },
			/^TikTok: Access token is incorrect or has been revoked\. \(the access token is expired, empty or invalid: generate a new one in Events Manager.*\) \[code 40105, request_id \w+/,
		],
		['an empty token', { accessToken: '' }, /^The Access Token is empty$/],
		[
			'a pixel the token may not send to',
			{ pixelCode: 'C4OTHERPIXEL' },
			/^TikTok: No permission to operate event source C4OTHERPIXEL\. \(the access token may not send events to this pixel.*\) \[code 40001/,
		],
	])('fails with %s, saying why', async (_label, overrides, message) => {
		const result = await credentialTest({
			pixelCode: PIXEL,
			accessToken: TOKEN,
			baseUrl: standIn.url,
			...overrides,
		});
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(message) });
	});
});
