import { NodeOperationError, type IDataObject, type INodeExecutionData } from 'n8n-workflow';
import { GoogleAdsConversions } from '../../nodes/GoogleAdsConversions/GoogleAdsConversions.node';
import { crmLead as germanCrmLead } from '../support/leads';
import { executeError, runExecute, type NodeSetup } from './support/context';
import { nodeRedis } from './support/redis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startGoogleDataManagerStandIn } = require('../standins/googleDataManager.js');

/**
 * A CRM lead in Germany that agreed to ad data use: Google's EU user consent policy withholds the
 * email and phone of EEA leads without a consent signal (issue 13.7), which these tests are not about.
 */
const crmLead: typeof germanCrmLead = (i, overrides = {}) =>
	germanCrmLead(i, { consent: { ad_user_data: 'granted' }, ...overrides });


type StandIn = Awaited<ReturnType<typeof startGoogleDataManagerStandIn>>;
const json = (items: INodeExecutionData[]) => items.map((item) => item.json as IDataObject);

describe('Google Ads Conversions node through the Data Manager API, with a mocked n8n context', () => {
	const redis = nodeRedis('googleAdsConversionsDm');
	const node = new GoogleAdsConversions();
	let standIn: StandIn;

	beforeAll(async () => {
		standIn = await startGoogleDataManagerStandIn({});
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	const setup = (params: IDataObject = {}, overrides: Partial<NodeSetup> = {}): NodeSetup => ({
		params: {
			api: 'dataManager',
			customerId: '123-456-7890',
			conversionActionId: '987654321',
			...params,
		},
		credentials: {
			leadCapiGoogleDataManagerOAuth2Api: {
				baseUrl: standIn.url,
				oauthTokenData: { access_token: standIn.accessToken(), token_type: 'Bearer' },
			},
			leadCapiRedisApi: redis.credential(),
		},
		...overrides,
	});
	const leads = (n: number) =>
		Array.from(
			{ length: n },
			(_, i) => crmLead(i, { click: { gclid: `Cj0KCQiA-dm-${i}` } }) as IDataObject,
		);

	it('never sends a partial lead to the completed-lead action: skipped without Partial Lead Conversion Action, sent to that action with it', async () => {
		const mixed = [
			crmLead(0, { state: 'partial', click: { gclid: 'Cj0KCQiA-dm-p0' } }) as IDataObject,
			crmLead(1, { click: { gclid: 'Cj0KCQiA-dm-l1' } }) as IDataObject,
		];
		const without = json((await runExecute(node, mixed, setup())).outputs[0]);
		expect(without.map((r) => [r.event_name, r.status])).toEqual([
			['partial_lead', 'skipped'],
			['lead', 'sent'],
		]);
		expect(without[0].error).toMatch(/Google would count it as a conversion of the completed-lead action/);
		expect(standIn.received.map((r: { destination: string }) => r.destination)).toEqual([
			'1234567890/987654321',
		]);

		standIn.reset();
		const withAction = json(
			(
				await runExecute(
					node,
					mixed,
					setup({ options: { partialConversionActionId: '987654322' } }),
				)
			).outputs[0],
		);
		expect(withAction.map((r) => [r.event_name, r.status])).toEqual([
			['partial_lead', 'sent'],
			['lead', 'duplicate'],
		]);
		// Only the partial lead went out, and only to the partial-lead action.
		expect(
			standIn.received.map((r: { destination: string; event: IDataObject }) => [
				r.destination,
				r.event.adIdentifiers,
			]),
		).toEqual([['1234567890/987654322', { gclid: 'Cj0KCQiA-dm-p0' }]]);
	});

	it('refuses a Partial Lead Conversion Action ID that is not digits or is the main action', async () => {
		for (const id of ['abc', '987654321']) {
			const { error } = await executeError(
				node,
				leads(1),
				setup({ options: { partialConversionActionId: id } }),
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect((error as Error).message).toMatch(/^Partial Lead Conversion Action ID/);
		}
		expect(standIn.received).toEqual([]);
	});

	it('sends through events:ingest with no developer token; each item carries its request id; a re-run sends nothing', async () => {
		const first = await runExecute(node, leads(3), setup());
		const results = json(first.outputs[0]);
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(first.outputs[0].map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		const requestId = standIn.received[0].requestId;
		expect(results.map((r) => (r.response as IDataObject).request_id)).toEqual([
			requestId,
			requestId,
			requestId,
		]);
		expect(standIn.received[0].event.adIdentifiers).toEqual({ gclid: 'Cj0KCQiA-dm-0' });

		const again = await runExecute(node, leads(3), setup());
		expect(json(again.outputs[0]).map((r) => r.status)).toEqual([
			'duplicate',
			'duplicate',
			'duplicate',
		]);
		expect(
			standIn.requests.filter((r: { path: string }) => r.path === '/v1/events:ingest'),
		).toHaveLength(1);
	});

	it('Get Request Status reads each sent item back: processed and counted, paired with its item', async () => {
		const sent = await runExecute(node, leads(2), setup());
		const status = await runExecute(
			node,
			sent.outputs[0].map((item) => item.json),
			setup(
				{ operation: 'getRequestStatus' },
				{
					expressions: {
						requestId: (i) => (sent.outputs[0][i].json.response as IDataObject).request_id,
					},
				},
			),
		);
		expect(json(status.outputs[0])).toEqual([
			expect.objectContaining({ request_status: 'SUCCESS', processed: true }),
			expect.objectContaining({ request_status: 'SUCCESS', processed: true }),
		]);
		expect(status.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('Get Request Status of an unknown id: NodeApiError at its item, or an error item with On Error Continue', async () => {
		const { error } = await executeError(
			node,
			[{}],
			setup({ operation: 'getRequestStatus', requestId: 'no-such-request' }),
		);
		expect(error.message).toContain('INVALID_REQUEST_ID');
		const continued = await runExecute(
			node,
			[{}],
			setup(
				{ operation: 'getRequestStatus', requestId: 'no-such-request' },
				{ onError: 'continueRegularOutput' },
			),
		);
		expect(json(continued.outputs[0])[0]).toMatchObject({
			request_id: 'no-such-request',
			error: expect.stringContaining('INVALID_REQUEST_ID'),
		});
	});

	it('Validate Only: Google validates, nothing is recorded, items are skipped', async () => {
		const { outputs } = await runExecute(
			node,
			leads(2),
			setup({ options: { validateOnly: true } }),
		);
		expect(json(outputs[0]).map((r) => r.status)).toEqual(['skipped', 'skipped']);
		expect(standIn.received).toHaveLength(0);
	});

	it('On Error Continue: the lead Google refuses fails as its own item; the others are sent', async () => {
		const dry = await runExecute(node, leads(3), setup({ options: { dryRun: true } }));
		const badId = String(json(dry.outputs[0])[1].event_id);
		standIn.rejectEvents([{ transactionId: badId, reason: 'INVALID_EVENT' }]);
		const { outputs } = await runExecute(
			node,
			leads(3),
			setup({}, { onError: 'continueRegularOutput' }),
		);
		expect(json(outputs[0]).map((r) => r.status)).toEqual(['sent', 'failed', 'sent']);
		expect(String(json(outputs[0])[1].error)).toContain('events[1]');
	});

	it('a Conversion Action ID that is not digits, and an unconnected credential, stop the run before any request', async () => {
		const bad = await executeError(node, leads(1), setup({ conversionActionId: 'lead form' }));
		expect(bad.error).toBeInstanceOf(NodeOperationError);
		expect(bad.error.message).toMatch(/conversion action id/i);
		const unconnected = await executeError(node, leads(1), {
			...setup(),
			credentials: {
				leadCapiGoogleDataManagerOAuth2Api: { baseUrl: standIn.url },
				leadCapiRedisApi: redis.credential(),
			},
		});
		expect(unconnected.error.message).toMatch(/sign in/i);
		expect(standIn.requests).toHaveLength(0);
	});
});

describe('Google Ads Conversions node: Adjust through the Data Manager API', () => {
	const redis = nodeRedis('googleAdsConversionsAdj');
	const node = new GoogleAdsConversions();
	let standIn: StandIn;

	beforeAll(async () => {
		standIn = await startGoogleDataManagerStandIn({});
	});
	afterAll(() => standIn.close());

	const setup = (params: IDataObject = {}, overrides: Partial<NodeSetup> = {}): NodeSetup => ({
		params: {
			api: 'dataManager',
			customerId: '1234567890',
			conversionActionId: '987654321',
			...params,
		},
		credentials: {
			leadCapiGoogleDataManagerOAuth2Api: {
				baseUrl: standIn.url,
				oauthTokenData: { access_token: standIn.accessToken(), token_type: 'Bearer' },
			},
			leadCapiRedisApi: redis.credential(),
		},
		...overrides,
	});
	const won = (amount: number) =>
		crmLead(7, { state: 'purchase', value: { amount, currency: 'USD' } }) as IDataObject;
	const restate = (amount: number) =>
		runExecute(node, [won(amount)], setup({ operation: 'adjust', originalEvent: 'lead' }));

	it('a won lead restates the value of its lead conversion once per value; a retraction is refused with the reason', async () => {
		const sent = await runExecute(node, [crmLead(7) as IDataObject], setup());
		expect(json(sent.outputs[0])[0].status).toBe('sent');
		const transactionId = String(json(sent.outputs[0])[0].event_id);

		const first = await restate(1200);
		expect(json(first.outputs[0])[0]).toMatchObject({ status: 'sent', adjustment: 'restatement' });
		const again = await restate(1200);
		expect(json(again.outputs[0])[0]).toMatchObject({ status: 'duplicate' });
		const counted = standIn.conversions()[`1234567890/987654321/${transactionId}`];
		expect(counted).toEqual({ value: 1200, currency: 'USD', adjustments: 1, events: 2 });
		const restated = standIn.received[standIn.received.length - 1];
		expect(restated).toMatchObject({ kind: 'restatement' });
		expect(restated.event.lastUpdatedTimestamp).toEqual(expect.stringMatching(/Z$/));

		const higher = await restate(1500);
		expect(json(higher.outputs[0])[0].status).toBe('sent');
		expect(standIn.conversions()[`1234567890/987654321/${transactionId}`]).toMatchObject({
			value: 1500,
			adjustments: 2,
		});

		const before = standIn.received.length;
		const lost = await runExecute(
			node,
			[crmLead(7, { state: 'lost' }) as IDataObject],
			setup({ operation: 'adjust', adjustment: 'retraction', originalEvent: 'lead' }),
		);
		expect(json(lost.outputs[0])[0]).toMatchObject({
			status: 'skipped',
			adjustment: 'retraction',
			error: expect.stringContaining('does not support retracting'),
		});
		expect(lost.outputs[0][0].pairedItem).toEqual({ item: 0 });
		expect(standIn.received).toHaveLength(before);
	});

	it('a restatement without a value is skipped with the reason, nothing sent', async () => {
		const before = standIn.requests.length;
		const { outputs } = await runExecute(
			node,
			[crmLead(8, { state: 'purchase' }) as IDataObject],
			setup({ operation: 'adjust', originalEvent: 'lead' }),
		);
		expect(json(outputs[0])[0]).toMatchObject({
			status: 'skipped',
			error: expect.stringContaining('value.amount and value.currency'),
		});
		expect(standIn.requests).toHaveLength(before);
	});
});
