import { createHash } from 'node:crypto';
import axios from 'axios';
import { deriveEventId, type HttpExecutor } from '../../shared';
import {
	fetchDataManagerRequestStatus,
	googleDataManagerAdapter,
	type DataManagerEvent,
	type GoogleDataManagerConfig,
} from '../../shared/platforms/google';
import { crmLead as germanCrmLead, webLead } from '../support/leads';
import { fastTransport, leadItems, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startGoogleDataManagerStandIn } = require('../standins/googleDataManager.js');

/**
 * A CRM lead in Germany that agreed to ad data use: Google's EU user consent policy withholds the
 * email and phone of EEA leads without a consent signal (issue 13.7), which these tests are not about.
 */
const crmLead: typeof germanCrmLead = (i, overrides = {}) =>
	germanCrmLead(i, { consent: { ad_user_data: 'granted' }, ...overrides });


const ACCOUNT = '1234567890';
const ACTION_ID = '987654321';
const DESTINATION = `customers/${ACCOUNT}/conversionActions/${ACTION_ID}`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const idOf = (recordId: string, eventName = 'lead') =>
	deriveEventId(DESTINATION, eventName, recordId);

type StandIn = Awaited<ReturnType<typeof startGoogleDataManagerStandIn>>;
interface Received {
	requestId: string;
	destination: string;
	event: DataManagerEvent;
	kind: string;
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

describe('Google Data Manager sender through dispatch, against a loopback Data Manager and a real Redis', () => {
	const h = senderHarness('gdm');
	let standIn: StandIn;

	const config = (overrides: Partial<GoogleDataManagerConfig> = {}): GoogleDataManagerConfig => ({
		operatingAccountId: ACCOUNT,
		conversionActionId: ACTION_ID,
		baseUrl: standIn.url,
		...overrides,
	});
	const transport = (token: () => string = () => standIn.accessToken()) =>
		fastTransport({ executor: bearerExecutor(token) });
	const run = h.runner(googleDataManagerAdapter, config, transport);
	const received = (): Received[] => standIn.received;
	const ingests = () =>
		standIn.requests.filter((r: { path: string }) => r.path === '/v1/events:ingest');

	beforeAll(async () => {
		standIn = await startGoogleDataManagerStandIn({});
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('delivers click conversions and enhanced conversions for leads once; a re-run sends nothing', async () => {
		const items = [
			{
				record: webLead(0, {
					click: { gclid: 'Cj0KCQiA-lead0' },
					consent: { ad_user_data: 'granted', ad_personalization: 'denied' },
				}),
				eventName: 'lead',
			},
			{ record: crmLead(1, { value: { amount: 1200, currency: 'usd' } }), eventName: 'lead' },
		];
		const first = await run(items);
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(ingests()).toHaveLength(1);
		const [web, crm] = received().map((r) => r.event);
		expect(web).toEqual({
			transactionId: idOf('sub_0'),
			eventTimestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
			eventSource: 'WEB',
			adIdentifiers: { gclid: 'Cj0KCQiA-lead0' },
			userData: {
				userIdentifiers: [
					{ emailAddress: sha('lead.0@example.com') },
					{ phoneNumber: sha('+16505551212') },
					{
						address: {
							givenName: sha('mary'),
							familyName: expect.stringMatching(/^[0-9a-f]{64}$/),
							regionCode: 'US',
							postalCode: expect.stringMatching(/^94105/),
						},
					},
				],
			},
			consent: { adUserData: 'CONSENT_GRANTED', adPersonalization: 'CONSENT_DENIED' },
		});
		expect(crm).toMatchObject({
			transactionId: idOf('deal-1'),
			userData: {
				userIdentifiers: [
					{ emailAddress: sha('buyer1@example.de') },
					{ phoneNumber: sha('+49301234567') },
				],
			},
			conversionValue: 1200,
			currency: 'USD',
		});
		expect(crm.adIdentifiers).toBeUndefined();
		expect(first[0]).toMatchObject({
			platform: 'google',
			destination: DESTINATION,
			event_id: idOf('sub_0'),
			match_keys: ['gclid', 'emailAddress', 'phoneNumber', 'address'],
			dedup: 'claimed',
			response: {
				request_id: received()[0].requestId,
				processing: expect.stringContaining('Get Request Status'),
			},
		});

		const second = await run(items);
		expect(second.map((r) => [r.status, r.dedup])).toEqual([
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
		]);
		expect(ingests()).toHaveLength(1);
	});

	it('one bad lead in 1,000 (Google names its index) leaves 999 delivered in two requests', async () => {
		const items = leadItems(1000, crmLead, 'lead');
		standIn.rejectEvents([
			{
				transactionId: idOf('deal-500'),
				reason: 'INVALID_EVENT',
				description: 'This event is not valid.',
				times: 1,
			},
		]);
		const results = await run(items, { batchSize: 2000 });
		const failed = results.filter((r) => r.status === 'failed');
		expect(results.filter((r) => r.status === 'sent')).toHaveLength(999);
		expect(failed).toHaveLength(1);
		expect(failed[0].event_id).toBe(idOf('deal-500'));
		expect(failed[0].error).toContain('This event is not valid.');
		expect(failed[0].error).toContain('events[500]');
		expect(ingests().map((r: { status: number; events: number }) => [r.status, r.events])).toEqual([
			[400, 1000],
			[200, 999],
		]);
		expect(new Set(received().map((r) => r.event.transactionId)).size).toBe(999);

		// A re-run sends nothing new: only the lead that failed is tried again (fixed meanwhile).
		const again = await run(items, { batchSize: 2000 });
		expect(again.filter((r) => r.dedup === 'sent_before')).toHaveLength(999);
		expect(
			ingests()
				.slice(2)
				.map((r: { events: number }) => r.events),
		).toEqual([1]);
		expect(again.find((r) => r.event_id === idOf('deal-500'))?.status).toBe('sent');
	});

	it('when Google names no event, bisects until the bad lead stands alone; the rest are delivered', async () => {
		const items = leadItems(1000, crmLead, 'lead');
		standIn.rejectEvents([{ transactionId: idOf('deal-123'), withoutIndex: true }]);
		const results = await run(items, { batchSize: 2000 });
		expect(results.filter((r) => r.status === 'sent')).toHaveLength(999);
		const failed = results.filter((r) => r.status === 'failed');
		expect(failed.map((r) => r.event_id)).toEqual([idOf('deal-123')]);
		expect(failed[0].error).toContain('INVALID_ARGUMENT');
		expect(ingests().length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(1000)) + 1);
	});

	it('validates locally: a lead Google could not match is skipped before sending, the others are delivered', async () => {
		const items = [
			{ record: crmLead(0), eventName: 'lead' },
			{ record: crmLead(1, { contact: { email: 'a'.repeat(63) } }), eventName: 'lead' },
			{ record: crmLead(2), eventName: 'lead' },
		];
		const results = await run(items);
		// 63 hex characters are not an email: the identity layer drops it, so the lead has nothing to match.
		expect(results.map((r) => r.status)).toEqual(['sent', 'skipped', 'sent']);
		expect(ingests()).toHaveLength(1);
	});

	it('validateOnly (test mode): Google validates, nothing is recorded, a real run sends them', async () => {
		const items = leadItems(3, crmLead, 'lead');
		const test = await run(items, { config: config({ validateOnly: true }) });
		expect(test.map((r) => r.status)).toEqual(['skipped', 'skipped', 'skipped']);
		expect(test[0]).toMatchObject({
			error: expect.stringContaining('validate only'),
			response: { validate_only: true },
		});
		expect(received()).toHaveLength(0);
		expect(ingests()[0]).toMatchObject({ validateOnly: true, status: 200 });
		const real = await run(items);
		expect(real.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(received()).toHaveLength(3);
	});

	it('retries a 503 and a 429 and then delivers', async () => {
		standIn.queueFaults([{ status: 503 }, { status: 429, headers: { 'retry-after': '0' } }]);
		const results = await run(leadItems(2, crmLead, 'lead'));
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(ingests().map((r: { status: number }) => r.status)).toEqual([503, 429, 200]);
	});

	it('a refused token fails every lead of the chunk, retryable only if transient; nothing is claimed', async () => {
		const results = await run(leadItems(2, crmLead, 'lead'), {
			transport: transport(() => 'ya29.revoked'),
		});
		expect(results.map((r) => [r.status, r.retryable])).toEqual([
			['failed', false],
			['failed', false],
		]);
		expect(results[0].error).toContain('UNAUTHENTICATED');
		expect(ingests()).toHaveLength(1);
		const later = await run(leadItems(2, crmLead, 'lead'));
		expect(later.map((r) => r.status)).toEqual(['sent', 'sent']);
	});

	it('a destination Google refuses fails the chunk at once, without bisecting', async () => {
		const results = await run(leadItems(8, crmLead, 'lead'), {
			config: config({ conversionActionId: '111' }),
		});
		expect(results.every((r) => r.status === 'failed')).toBe(true);
		expect(results[0].error).toContain('INVALID_CONVERSION_ACTION_ID');
		expect(ingests()).toHaveLength(1);
	});

	it('the request id reads back as processing status (accepted is not counted until then)', async () => {
		const [result] = await run(leadItems(1, crmLead, 'lead'));
		const requestId = (result.response as { request_id: string }).request_id;
		const status = await fetchDataManagerRequestStatus(config(), requestId, transport());
		expect(status).toEqual({
			ok: true,
			request_id: requestId,
			statuses: [
				{
					destination: expect.objectContaining({ productDestinationId: ACTION_ID }),
					request_status: 'SUCCESS',
					record_count: 1,
				},
			],
		});
		const unknown = await fetchDataManagerRequestStatus(config(), 'no-such-request', transport());
		expect(unknown).toMatchObject({ ok: false, retryable: false });
		expect(unknown.ok === false && unknown.message).toContain('INVALID_REQUEST_ID');
	});

	it('the same event sent again without a dedup store reuses its transaction id: Google counts nothing new', async () => {
		const items = leadItems(2, crmLead, 'lead');
		await run(items, {}, null);
		await run(items, {}, null);
		expect(received()).toHaveLength(4);
		const counted = standIn.conversions();
		expect(Object.keys(counted)).toHaveLength(2);
		expect(Object.values(counted).every((c: any) => c.adjustments === 0 && c.events === 2)).toBe(
			true,
		);
	});
});
