import { createHash } from 'node:crypto';
import {
	dispatch,
	metaAdapter,
	MemoryDedupStore,
	RedisDedupStore,
	createRedisClient,
	type meta,
} from '../../shared';
import { crmLead, webLead } from '../support/leads';
import { fastTransport, leadItems, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'EAAG-test-access-token-0123456789';
const APP_SECRET = 'app-secret-abcdef-987';
const PIXEL = '1234567890';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

describe('Meta sender through dispatch, against a loopback Meta and a real Redis', () => {
	const h = senderHarness('meta');
	let standIn: StandIn;

	const config = (overrides: Partial<meta.MetaConfig> = {}): meta.MetaConfig => ({
		pixelId: PIXEL,
		accessToken: TOKEN,
		appSecret: APP_SECRET,
		apiVersion: 'v26.0',
		baseUrl: standIn.url,
		actionSource: 'auto',
		limitedDataUse: 'auto',
		...overrides,
	});

	const run = h.runner(metaAdapter, config);
	const leads = (n: number, make = webLead) => leadItems(n, make, 'Lead');

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN, appSecret: APP_SECRET });
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('sends each lead once with the full, correctly hashed identity payload; a re-run sends nothing', async () => {
		const first = await run(leads(3));
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(standIn.received).toHaveLength(3);
		const { event } = standIn.received[0];
		expect(event).toMatchObject({
			event_name: 'Lead',
			event_id: sha(`${PIXEL}|Lead|sub_0`),
			action_source: 'website',
			event_source_url: 'https://example.com/pricing?utm_source=fb',
			data_processing_options: ['LDU'],
			data_processing_options_country: 1,
			data_processing_options_state: 1000,
		});
		expect(event.user_data).toEqual({
			em: sha('lead.0@example.com'),
			ph: sha('16505551212'),
			fn: sha('mary'),
			ln: sha('oneil'),
			ct: sha('sanfrancisco'),
			st: sha('ca'),
			zp: sha('94105'),
			country: sha('us'),
			client_ip_address: '203.0.113.7',
			client_user_agent: webLead(0).client!.user_agent,
			fbc: expect.stringMatching(/^fb\.1\.\d{13}\.IwAR0AbCdEf$/),
			fbp: 'fb.1.1596403881668.1116446470',
		});
		expect(first[0]).toMatchObject({
			platform: 'meta',
			destination: PIXEL,
			event_name: 'Lead',
			event_id: sha(`${PIXEL}|Lead|sub_0`),
			dedup: 'claimed',
			match_keys: expect.arrayContaining(['em', 'ph', 'fbc', 'fbp', 'client_ip_address']),
			response: { events_received: 3 },
		});
		expect(standIn.requests[0]).toMatchObject({ partnerAgent: 'n8n-nodes-lead-capi' });

		const second = await run(leads(3));
		expect(second.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(second[0]).toMatchObject({ dedup: 'sent_before', event_id: first[0].event_id });
		expect(standIn.received).toHaveLength(3);
	});

	it('sends a CRM lead as system_generated, phone read with the lead\'s own country', async () => {
		const [r] = await run([{ record: crmLead(1), eventName: 'Lead' }]);
		expect(r.status).toBe('sent');
		const { event } = standIn.received[0];
		expect(event.action_source).toBe('system_generated');
		expect(event.user_data.ph).toBe(sha('49301234567'));
		expect(event.user_data.country).toBe(sha('de'));
		expect(event.data_processing_options).toBeUndefined();
	});

	it('batches 2,500 events into requests of at most 1,000', async () => {
		const results = await run(leads(2500, crmLead));
		expect(results.every((r) => r.status === 'sent')).toBe(true);
		// Chunks go out a few at a time, so their order of arrival varies.
		expect(standIn.requests.map((r: { events: number }) => r.events).sort()).toEqual([1000, 1000, 500]);
		expect(new Set(standIn.received.map((r: { event: { event_id: string } }) => r.event.event_id)).size).toBe(2500);
	});

	it('honours the batch size option', async () => {
		await run(leads(5, crmLead), { batchSize: 2 });
		expect(standIn.requests.map((r: { events: number }) => r.events).sort()).toEqual([1, 2, 2]);
	});

	it('retries 429 with Retry-After and 500, then delivers once', async () => {
		standIn.queueFaults([
			{ status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'User request limit reached', code: 17, error_subcode: 2446079 } } },
			{ status: 500, body: { error: { message: 'An unknown error occurred', code: 1 } } },
		]);
		const results = await run(leads(4, crmLead));
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
		expect(standIn.requests).toHaveLength(3);
		expect(standIn.received).toHaveLength(4);
	});

	it('isolates one invalid lead in a batch of 1,000: 999 delivered, 1 failed with Meta\'s message', async () => {
		const items = leads(1000, crmLead);
		const badIndex = 637;
		const badId = sha(`${PIXEL}|Lead|deal-${badIndex}`);
		standIn.poison(badId);
		const results = await run(items);
		expect(results.filter((r) => r.status === 'sent')).toHaveLength(999);
		const failed = results.filter((r) => r.status === 'failed');
		expect(failed).toHaveLength(1);
		expect(results[badIndex]).toMatchObject({
			status: 'failed',
			retryable: false,
			error: expect.stringMatching(/^Meta: Invalid parameter: Invalid event: data\[0\]: Invalid parameter value for this event \[code 100, subcode 2804001, fbtrace_id \S+\]$/),
		});
		expect(standIn.received).toHaveLength(999);
		expect(standIn.received.some((r: { event: { event_id: string } }) => r.event.event_id === badId)).toBe(false);
		// The failed event was released: once fixed, a retry sends it, and only it.
		standIn.reset();
		const retry = await run(items);
		expect(retry.filter((r) => r.status === 'duplicate')).toHaveLength(999);
		expect(retry[badIndex].status).toBe('sent');
		expect(standIn.received).toHaveLength(1);
	});

	it('isolates an event Meta rejects by its own rules (here: our window check widened on purpose)', async () => {
		const stale = {
			record: crmLead(99, { occurred_at: new Date(Date.now() - 9 * 86400_000).toISOString() }),
			eventName: 'Lead',
		};
		const mixed = await run([...leads(3, crmLead), stale], {
			adapter: {
				...metaAdapter,
				eventTimeWindow: { ...metaAdapter.eventTimeWindow, seconds: 60 * 24 * 3600 },
			},
		});
		expect(mixed.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'failed']);
		expect(mixed[3].error).toMatch(/too far in the past/);
		expect(standIn.received).toHaveLength(3);
	});

	it("skips events older than Meta's documented 7-day window by default; clamps them only under Clamp to Window", async () => {
		const old = { record: crmLead(7, { occurred_at: new Date(Date.now() - 10 * 86400_000).toISOString() }), eventName: 'Lead' };
		const [skipped] = await run([old]);
		expect(skipped).toMatchObject({ status: 'skipped', error: expect.stringContaining("outside Meta's 7-day window: not sent") });
		expect(standIn.received).toHaveLength(0);
		const [clamped] = await run([{ ...old, record: { ...old.record, record_id: 'deal-8' } }], { eventWindowPolicy: 'clamp' });
		expect(clamped.status).toBe('sent');
		expect(clamped.warnings.join()).toMatch(/clamped to the oldest accepted time \(Event Window Policy: Clamp to Window\)/);
		expect(standIn.received).toHaveLength(1);
	});

	it('never leaks the access token or app secret, even when Meta echoes them', async () => {
		standIn.queueFaults([
			{ status: 400, body: { error: { message: `Invalid OAuth access token ${TOKEN} (proof for ${APP_SECRET})`, type: 'OAuthException', code: 190 } } },
		]);
		const results = await run(leads(2, crmLead));
		expect(results.map((r) => r.status)).toEqual(['failed', 'failed']);
		const text = JSON.stringify(results);
		expect(text).not.toContain(TOKEN);
		expect(text).not.toContain(APP_SECRET);
		expect(results[0].error).toMatch(/^Meta: Invalid OAuth access token \[redacted\]/);
		// A token error fails the request as a whole: no splitting.
		expect(standIn.requests).toHaveLength(1);
	});

	it('sends appsecret_proof; a wrong app secret is refused', async () => {
		const wrong = await dispatch(leads(1, crmLead), {
			adapter: metaAdapter,
			config: config({ appSecret: 'not-the-app-secret' }),
			transport: fastTransport(),
			store: null,
		});
		expect(wrong[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/appsecret_proof/) });
	});

	it('fails every item without sending when Redis is down (fail closed), naming the store', async () => {
		const dead = createRedisClient({ host: '127.0.0.1', port: 1, connectTimeoutMs: 300 });
		h.clients.push(dead);
		const store = new RedisDedupStore(dead, { description: 'Redis at 127.0.0.1:1', connectTimeoutMs: 400 });
		const results = await run(leads(20, crmLead), {}, store);
		expect(standIn.received).toHaveLength(0);
		expect(results).toHaveLength(20);
		for (const r of results) {
			expect(r).toMatchObject({ status: 'failed', retryable: true, dedup: 'unavailable' });
			expect(r.error).toBe(
				'The dedup store (Redis at 127.0.0.1:1) refused the connection: is Redis running at that address and port? Nothing was sent (dedup fails closed). Retry the execution once the store answers; or, to send without dedup while it is down, set Options → If Dedup Store Is Unavailable → Send Anyway.',
			);
		}
	});

	it('sends with dedup bypassed when Redis is down and fail open is chosen', async () => {
		const dead = createRedisClient({ host: '127.0.0.1', port: 1, connectTimeoutMs: 300 });
		h.clients.push(dead);
		const store = new RedisDedupStore(dead, { description: 'Redis at 127.0.0.1:1', connectTimeoutMs: 400 });
		const results = await run(leads(2, crmLead), { failMode: 'open' }, store);
		expect(results.map((r) => [r.status, r.dedup])).toEqual([
			['sent', 'bypassed'],
			['sent', 'bypassed'],
		]);
		expect(results[0].warnings.join()).toMatch(/fail open/);
		expect(standIn.received).toHaveLength(2);
	});

	it('delivers each event_id exactly once when 8 dispatches of the same 1,000 leads race', async () => {
		const items = leads(1000, crmLead);
		const runs = await Promise.all(
			Array.from({ length: 8 }, () => run(items, {}, h.storeOnNewConnection())),
		);
		const ids = standIn.received.map((r: { event: { event_id: string } }) => r.event.event_id);
		expect(ids).toHaveLength(1000);
		expect(new Set(ids).size).toBe(1000);
		const sent = runs.flat().filter((r) => r.status === 'sent');
		expect(sent).toHaveLength(1000);
		expect(runs.flat().filter((r) => r.status === 'duplicate')).toHaveLength(7000);
	});

	it('does not mark a failed send as sent: a retry after the outage delivers', async () => {
		standIn.queueFaults(Array.from({ length: 4 }, () => ({ status: 503 })));
		const failed = await run(leads(3, crmLead));
		expect(failed.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
			['failed', true],
		]);
		expect(standIn.received).toHaveLength(0);
		const retried = await run(leads(3, crmLead));
		expect(retried.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(standIn.received).toHaveLength(3);
	});

	it('fails items without a record id or without matchable identity, and sends the rest', async () => {
		const results = await run([
			{ record: crmLead(1, { record_id: undefined }), eventName: 'Lead' },
			{ record: { record_id: 'x1', contact: { city: 'Berlin', country: 'DE' } }, eventName: 'Lead' },
			{ record: crmLead(2), eventName: 'Lead' },
			{ record: crmLead(2), eventName: 'Lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['failed', 'failed', 'sent', 'duplicate']);
		expect(results[0].error).toMatch(/record_id is missing/);
		expect(results[1].error).toMatch(/not enough customer information/);
		expect(results[3]).toMatchObject({ dedup: 'in_batch' });
		expect(standIn.received).toHaveLength(1);
	});

	it('refuses website events without a user agent instead of letting Meta reject the batch', async () => {
		const results = await run(leads(2, crmLead), { config: config({ actionSource: 'website' }) });
		expect(results[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/client_user_agent/) });
		expect(standIn.requests).toHaveLength(0);
	});

	it('sends value and currency only when given; Purchase without them fails clearly', async () => {
		const results = await run([
			{ record: crmLead(1, { value: { amount: '249.90', currency: 'eur' } }), eventName: 'Purchase' },
			{ record: crmLead(2), eventName: 'Purchase' },
			{ record: crmLead(3), eventName: 'Lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['sent', 'failed', 'sent']);
		expect(standIn.received[0].event.custom_data).toEqual({ value: 249.9, currency: 'EUR' });
		expect(standIn.received[1].event.custom_data).toBeUndefined();
		expect(results[1].error).toMatch(/never guessed/);
	});

	it('carries test_event_code and honours Limited Data Use always / never', async () => {
		await run(leads(1, crmLead), { config: config({ testEventCode: 'TEST123', limitedDataUse: 'always' }) });
		expect(standIn.requests[0].testEventCode).toBe('TEST123');
		expect(standIn.received[0].event).toMatchObject({
			data_processing_options: ['LDU'],
			data_processing_options_country: 0,
			data_processing_options_state: 0,
		});
		standIn.reset();
		await run(leads(1, webLead), { config: config({ limitedDataUse: 'never' }) });
		expect(standIn.received[0].event.data_processing_options).toEqual([]);
	});

	it('skips a lead whose consent denies ad data, and flags opt_out when personalization is denied', async () => {
		const results = await run([
			{ record: crmLead(1, { consent: { ad_user_data: 'denied' } }), eventName: 'Lead' },
			{ record: crmLead(2, { consent: { ad_personalization: false } }), eventName: 'Lead' },
		]);
		expect(results.map((r) => r.status)).toEqual(['skipped', 'sent']);
		expect(standIn.received[0].event.opt_out).toBe(true);
	});

	it('dry run returns the exact payloads and claims and sends nothing', async () => {
		const results = await run(leads(2, crmLead), { mode: { kind: 'dryRun' } });
		expect(results.map((r) => [r.status, r.dry_run])).toEqual([
			['skipped', true],
			['skipped', true],
		]);
		expect(results[0].payload).toMatchObject({ event_name: 'Lead', user_data: { em: sha('buyer0@example.de') } });
		expect(JSON.stringify(results)).not.toContain(TOKEN);
		expect(standIn.requests).toHaveLength(0);
		const real = await run(leads(2, crmLead));
		expect(real.map((r) => r.status)).toEqual(['sent', 'sent']);
	});

	it('keeps dedup within one process with the in-memory store', async () => {
		const store = new MemoryDedupStore();
		await run(leads(2, crmLead), {}, store);
		const again = await run(leads(2, crmLead), {}, store);
		expect(again.map((r) => r.status)).toEqual(['duplicate', 'duplicate']);
		expect(standIn.received).toHaveLength(2);
	});

	it('sends again on every run with dedup off, and says so', async () => {
		await run(leads(1, crmLead), {}, null);
		const again = await run(leads(1, crmLead), {}, null);
		expect(again[0]).toMatchObject({ status: 'sent', dedup: 'off', warnings: [expect.stringMatching(/dedup is off/)] });
		expect(standIn.received).toHaveLength(2);
	});
});
