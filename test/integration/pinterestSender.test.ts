import { createHash } from 'node:crypto';
import { pinterest, pinterestAdapter } from '../../shared';
import { crmLead, webLead } from '../support/leads';
import { fastTransport, leadItems, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startPinterestStandIn } = require('../standins/pinterest.js');

const TOKEN = 'pina_conversion-token-0123456789';
const AD_ACCOUNT = '549755885175';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startPinterestStandIn>>;
interface Received {
	adAccountId: string;
	event: pinterest.PinterestEvent;
}

describe('Pinterest sender through dispatch, against a loopback Pinterest and a real Redis', () => {
	const h = senderHarness('pinterest');
	let standIn: StandIn;

	const config = (
		overrides: Partial<pinterest.PinterestConfig> = {},
	): pinterest.PinterestConfig => ({
		adAccountId: AD_ACCOUNT,
		accessToken: TOKEN,
		baseUrl: standIn.url,
		actionSource: 'auto',
		limitedDataProcessing: 'auto',
		...overrides,
	});

	const run = h.runner(pinterestAdapter, config);
	const leads = (n: number, make = webLead, eventName = 'lead') => leadItems(n, make, eventName);
	const received = () => standIn.received as Received[];

	beforeAll(async () => {
		standIn = await startPinterestStandIn({ accessToken: TOKEN, adAccountIds: [AD_ACCOUNT] });
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('sends each lead once with the full identity payload as hashed arrays; a re-run sends nothing', async () => {
		const first = await run(leads(3));
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(received()).toHaveLength(3);
		const { event, adAccountId } = received()[0];
		expect(adAccountId).toBe(AD_ACCOUNT);
		expect(event).toEqual({
			event_name: 'lead',
			action_source: 'web',
			event_time: expect.any(Number),
			event_id: sha(`${AD_ACCOUNT}|lead|sub_0`),
			event_source_url: 'https://example.com/pricing?utm_source=fb',
			user_data: {
				em: [sha('lead.0@example.com')],
				ph: [sha('16505551212')],
				fn: [sha('mary')],
				ln: [sha('oneil')],
				ct: [sha('sanfrancisco')],
				st: [sha('ca')],
				zp: [sha('94105')],
				country: [sha('us')],
				client_ip_address: '203.0.113.7',
				client_user_agent: webLead(0).client!.user_agent,
			},
			// A California lead: Limited Data Processing under Auto.
			custom_data: { opt_out_type: 'LDP' },
		});
		expect(first[0]).toMatchObject({
			platform: 'pinterest',
			destination: AD_ACCOUNT,
			event_name: 'lead',
			event_id: sha(`${AD_ACCOUNT}|lead|sub_0`),
			dedup: 'claimed',
			match_keys: [
				'em',
				'ph',
				'fn',
				'ln',
				'ct',
				'st',
				'zp',
				'country',
				'client_ip_address',
				'client_user_agent',
			],
			response: { num_events_received: 3, num_events_processed: 3, status: 'processed' },
		});
		expect(standIn.requests).toMatchObject([{ status: 200, events: 3, test: false }]);

		const second = await run(leads(3));
		expect(second.map((r) => [r.status, r.dedup])).toEqual([
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
		]);
		expect(received()).toHaveLength(3);
	});

	it("sends a CRM lead as offline, phone read with the lead's own country, the epik as click_id", async () => {
		const [r] = await run([
			{ record: crmLead(1, { click: { epik: 'dj0yJnU9epikValue' } }), eventName: 'lead' },
		]);
		expect(r.status).toBe('sent');
		const { event } = received()[0];
		expect(event).toMatchObject({
			action_source: 'offline',
			user_data: { ph: [sha('49301234567')], country: [sha('de')], click_id: 'dj0yJnU9epikValue' },
		});
		expect(event.custom_data).toBeUndefined();
	});

	it('sends partial leads, contacts and bookings as labelled custom events with their own event ids', async () => {
		const items = (
			['partial', 'lead', 'contact', 'schedule', 'registration', 'purchase'] as const
		).map((state) => ({
			record: crmLead(5, {
				state,
				value: state === 'purchase' ? { amount: 1200, currency: 'usd' } : undefined,
			}),
			eventName: pinterestAdapter.eventNameByState[state],
		}));
		const results = await run(items);
		expect(results.map((r) => [r.status, r.event_name])).toEqual([
			['sent', 'custom:partial_lead'],
			['sent', 'lead'],
			['sent', 'custom:contact'],
			['sent', 'custom:schedule'],
			['sent', 'signup'],
			['sent', 'checkout'],
		]);
		expect(new Set(results.map((r) => r.event_id)).size).toBe(6);
		const sent = received().map((r) => [r.event.event_name, r.event.custom_data ?? null]);
		expect(sent).toEqual([
			['custom', { content_name: 'partial_lead' }],
			['lead', null],
			['custom', { content_name: 'contact' }],
			['custom', { content_name: 'schedule' }],
			['signup', null],
			['checkout', { value: '1200', currency: 'USD' }],
		]);
	});

	it('batches 2,500 events into requests of at most 1,000', async () => {
		const results = await run(leads(2500, crmLead));
		expect(results.every((r) => r.status === 'sent')).toBe(true);
		expect(standIn.requests.map((r: { events: number }) => r.events).sort()).toEqual([
			1000, 1000, 500,
		]);
		expect(new Set(received().map((r) => r.event.event_id)).size).toBe(2500);
	});

	it.each([
		['a 200', 200],
		['a 422 "not all events were processed"', 422],
	] as const)(
		"maps %s per event: 999 of 1,000 sent, the failed one with Pinterest's message, in one request, released for a retry",
		async (_label, status) => {
			standIn.answerPartialFailuresWith(status);
			const items = leads(1000, crmLead);
			const badIndex = 637;
			const badId = sha(`${AD_ACCOUNT}|lead|deal-${badIndex}`);
			standIn.poison(badId);
			const results = await run(items);
			expect(results.filter((r) => r.status === 'sent')).toHaveLength(999);
			expect(results[badIndex]).toMatchObject({
				status: 'failed',
				retryable: false,
				error: 'Pinterest: Invalid event: rejected by the stand-in on request',
				response: { num_events_received: 1000, num_events_processed: 999, status: 'failed' },
			});
			// Pinterest reports each event on its own: nothing is split or resent.
			expect(standIn.requests).toHaveLength(1);
			expect(standIn.requests[0].status).toBe(status);
			expect(received()).toHaveLength(999);

			standIn.reset();
			const retry = await run(items);
			expect(retry.filter((r) => r.status === 'duplicate')).toHaveLength(999);
			expect(retry[badIndex].status).toBe('sent');
			expect(received()).toHaveLength(1);
		},
	);

	it("turns Pinterest's warning_message into an item warning", async () => {
		const [r] = await run(leads(1, crmLead), { config: config({ actionSource: 'web' }) });
		expect(r.status).toBe('sent');
		expect(r.warnings).toContain('Pinterest: event_source_url is recommended for web events');
	});

	it("skips, without a request, leads that lack Pinterest's minimum identity or consent", async () => {
		const results = await run([
			{
				record: { record_id: 'p1', contact: { phone: '+16505551212', first_name: 'Ann' } },
				eventName: 'lead',
			},
			{
				record: { record_id: 'p2', client: { ip: '203.0.113.9' }, contact: { city: 'Paris' } },
				eventName: 'lead',
			},
			{ record: crmLead(3, { consent: { ad_user_data: false } }), eventName: 'lead' },
			{
				record: { record_id: 'p4', client: { ip: '203.0.113.9', user_agent: 'Mozilla/5.0' } },
				eventName: 'lead',
			},
		]);
		expect(results.map((r) => r.status)).toEqual(['skipped', 'skipped', 'skipped', 'sent']);
		expect(results[0].error).toMatch(
			/^Pinterest needs an email, or both the IP address and the user agent.*only ph, fn/,
		);
		expect(results[1].error).toMatch(/only ct, client_ip_address/);
		expect(results[2].error).toMatch(/ad_user_data is denied/);
		expect(standIn.requests).toHaveLength(1);
		expect(standIn.requests[0].events).toBe(1);
	});

	it('retries 429 (code 8) with Retry-After and 503 (code 4197), then delivers once', async () => {
		standIn.queueFaults([
			{
				status: 429,
				headers: { 'retry-after': '0' },
				body: { code: 8, message: 'This request exceeded a rate limit.' },
			},
			{
				status: 503,
				body: {
					code: 4197,
					message: 'The endpoint has been ramped down and is currently not accepting any traffic.',
				},
			},
			{ status: 502, body: '<html>bad gateway</html>' },
		]);
		const results = await run(leads(4, crmLead));
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
		expect(standIn.requests).toHaveLength(4);
		expect(received()).toHaveLength(4);
	});

	it('does not mark events sent when 5xx outlive the retries: a retry after the outage delivers', async () => {
		standIn.queueFaults(
			Array.from({ length: 4 }, () => ({
				status: 503,
				body: { code: 4197, message: 'ramped down' },
			})),
		);
		const failed = await run(leads(3, crmLead));
		expect(failed.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
			['failed', true],
		]);
		expect(failed[0].error).toMatch(
			/^Pinterest: ramped down \[code 4197, HTTP 503\] \(gave up after 4 attempts\)$/,
		);
		const retried = await run(leads(3, crmLead));
		expect(retried.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(received()).toHaveLength(3);
	});

	it('fails the whole chunk, once and for good, on a wrong token or an ad account the token may not use', async () => {
		const badToken = await run(leads(2, crmLead), {
			config: config({ accessToken: 'wrong-token-abcdef' }),
		});
		expect(badToken.map((r) => [r.status, r.retryable])).toEqual([
			['failed', false],
			['failed', false],
		]);
		expect(badToken[0].error).toBe('Pinterest: Authentication failed. [code 2, HTTP 401]');
		const otherAccount = await run(leads(1, crmLead), {
			config: config({ adAccountId: '111222333' }),
		});
		expect(otherAccount[0]).toMatchObject({
			status: 'failed',
			retryable: false,
			error: 'Pinterest: You are not permitted to access that resource. [code 29, HTTP 403]',
			response: { status: 403, error: { code: 29 } },
		});
		expect(standIn.requests).toHaveLength(2);
		expect(received()).toHaveLength(0);
	});

	it('fails every event of a request Pinterest calls invalid (400, code 4196) without splitting it', async () => {
		standIn.queueFaults([
			{ status: 400, body: { code: 4196, message: 'The request was invalid.' } },
		]);
		const results = await run(leads(3, crmLead));
		expect(results.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
		expect(results[0].error).toBe('Pinterest: The request was invalid. [code 4196, HTTP 400]');
		expect(standIn.requests).toHaveLength(1);
	});

	it('trusts an answer without per-event results only when every event was processed', async () => {
		standIn.queueFaults([
			{ status: 200, body: { num_events_received: 2, num_events_processed: 2 } },
			{ status: 200, body: { num_events_received: 2, num_events_processed: 1 } },
			{ status: 422, body: { code: 4198, message: 'Not all events were successfully processed', details: {} } },
		]);
		const all = await run(leads(2, crmLead), {}, h.store());
		expect(all.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(all[0].warnings).toContain(
			'Pinterest listed no per-event results; every event of the request was counted as processed',
		);
		const some = await run([2, 3].map((i) => ({ record: crmLead(i), eventName: 'lead' })), {}, h.store());
		expect(some.map((r) => [r.status, r.retryable])).toEqual([
			['failed', false],
			['failed', false],
		]);
		expect(some[0].error).toMatch(/^Pinterest processed 1 of the 2 events of this request without saying which/);
		const unlisted = await run([4, 5].map((i) => ({ record: crmLead(i), eventName: 'lead' })), {}, h.store());
		expect(unlisted.map((r) => r.status)).toEqual(['failed', 'failed']);
		expect(unlisted[0].error).toBe('Pinterest: Not all events were successfully processed [code 4198, HTTP 422]');
		// Nothing failed was remembered: once Pinterest answers properly, those events go out.
		const retry = await run([2, 3, 4, 5].map((i) => ({ record: crmLead(i), eventName: 'lead' })));
		expect(retry.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
	});

	it('never leaks the conversion token, even when Pinterest echoes it', async () => {
		standIn.queueFaults([
			{ status: 401, body: { code: 2, message: `Authentication failed for token ${TOKEN}` } },
		]);
		const results = await run(leads(2, crmLead));
		expect(JSON.stringify(results)).not.toContain(TOKEN);
		expect(results[0].error).toBe(
			'Pinterest: Authentication failed for token [redacted] [code 2, HTTP 401]',
		);
	});

	it('test mode: ?test=true, validated and not recorded, reported as skipped and released; off again, the events go out', async () => {
		const tested = await run(leads(2, crmLead), { config: config({ testMode: true }) });
		expect(tested.map((r) => r.status)).toEqual(['skipped', 'skipped']);
		expect(tested[0]).toMatchObject({
			error: expect.stringMatching(
				/^test mode: Pinterest validated this event \(processed\) and did not record it/,
			),
			response: { test_mode: true, status: 'processed' },
		});
		expect(standIn.requests).toMatchObject([{ test: true, status: 200 }]);
		expect(received()).toHaveLength(0);

		// A test-mode failure is a failure, with Pinterest's message.
		standIn.poison(sha(`${AD_ACCOUNT}|lead|deal-7`));
		const [bad] = await run([{ record: crmLead(7), eventName: 'lead' }], {
			config: config({ testMode: true }),
		});
		expect(bad).toMatchObject({
			status: 'failed',
			error: 'Pinterest: Invalid event: rejected by the stand-in on request',
		});

		const live = await run(leads(2, crmLead));
		expect(live.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(received()).toHaveLength(2);
	});

	it('skips events older than Pinterest\'s own window (7 days, a figure Pinterest does not document), even under Clamp to Window', async () => {
		const at = (d: number) => new Date(Date.now() - d * 86400_000).toISOString();
		const old = { record: crmLead(7, { occurred_at: at(10) }), eventName: 'lead' };
		for (const [i, policy] of [undefined, 'clamp', 'skip'].entries()) {
			const [skipped] = await run([{ ...old, record: { ...old.record, record_id: `deal-old-${i}` } }], {
				eventWindowPolicy: policy as 'clamp' | 'skip' | undefined,
			});
			expect(skipped).toMatchObject({
				status: 'skipped',
				error: expect.stringContaining('outside the 7-day window applied for Pinterest (Pinterest documents none)'),
			});
		}
		const [inside] = await run([{ record: crmLead(8, { occurred_at: at(6) }), eventName: 'lead' }]);
		expect(inside.status).toBe('sent');
		expect(received()).toHaveLength(1);
	});

	it('delivers each event_id exactly once when 6 dispatches of the same 1,000 leads race', async () => {
		const items = leads(1000, crmLead);
		const runs = await Promise.all(
			Array.from({ length: 6 }, () => run(items, {}, h.storeOnNewConnection())),
		);
		const ids = received().map((r) => r.event.event_id);
		expect(ids).toHaveLength(1000);
		expect(new Set(ids).size).toBe(1000);
		expect(runs.flat().filter((r) => r.status === 'sent')).toHaveLength(1000);
		expect(runs.flat().filter((r) => r.status === 'duplicate')).toHaveLength(5000);
	});

	it('dry run returns the exact payloads and the request, claims and sends nothing', async () => {
		const results = await run(leads(2, crmLead), { mode: { kind: 'dryRun' } });
		expect(results.map((r) => [r.status, r.dry_run])).toEqual([
			['skipped', true],
			['skipped', true],
		]);
		expect(results[0].payload).toMatchObject({
			event_name: 'lead',
			user_data: { em: [sha('buyer0@example.de')] },
		});
		expect(results[0].response).toMatchObject({
			request_preview: {
				method: 'POST',
				url: `${standIn.url}/v5/ad_accounts/${AD_ACCOUNT}/events`,
			},
		});
		expect(JSON.stringify(results)).not.toContain(TOKEN);
		expect(standIn.requests).toHaveLength(0);
	});

	describe('credential test (one synthetic event with ?test=true)', () => {
		const test = (overrides: Partial<pinterest.PinterestCredentials> = {}) =>
			pinterest.testPinterestCredentials(
				{ adAccountId: AD_ACCOUNT, accessToken: TOKEN, baseUrl: standIn.url, ...overrides },
				fastTransport(),
			);

		it('passes with the right token and ad account, recording nothing', async () => {
			expect(await test()).toEqual({
				ok: true,
				message: `Pinterest accepted the token for ad account ${AD_ACCOUNT}: a test event (?test=true) was validated and not recorded`,
			});
			expect(standIn.requests).toMatchObject([{ test: true, status: 200, events: 1 }]);
			expect(received()).toHaveLength(0);
		});

		it.each([
			[
				'a wrong token',
				{ accessToken: 'wrong-token-abcdef' },
				/^Pinterest: Authentication failed\. \[code 2, HTTP 401\]: check the Conversion Access Token/,
			],
			[
				'an ad account the token may not use',
				{ adAccountId: '111222333' },
				/^Pinterest: You are not permitted to access that resource\. \[code 29, HTTP 403\]: the token's user is neither the owner of ad account 111222333/,
			],
			[
				'an ad account id that is not digits',
				{ adAccountId: 'act_123' },
				/^The Ad Account ID must be the digits/,
			],
			['an empty token', { accessToken: '' }, /^The Conversion Access Token is empty$/],
			[
				'a base URL where nothing listens',
				{ baseUrl: 'http://127.0.0.1:1' },
				/network error ECONNREFUSED/,
			],
		])('fails with %s and says why', async (_label, overrides, message) => {
			const result = await test(overrides);
			expect(result.ok).toBe(false);
			expect(result.message).toMatch(message);
			expect(result.message).not.toContain('wrong-token-abcdef');
		});
	});
});
