import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { GoogleAdsConversions } from '../../nodes/GoogleAdsConversions/GoogleAdsConversions.node';
import { IdentityNormalizer } from '../../nodes/IdentityNormalizer/IdentityNormalizer.node';
import { crmLead as germanCrmLead } from '../support/leads';
import { executeError, runExecute, type NodeSetup } from './support/context';
import { nodeRedis } from './support/redis';
/* eslint-disable @typescript-eslint/no-require-imports */
const { startGoogleStandIn } = require('../standins/google.js');
const { startGoogleDataManagerStandIn } = require('../standins/googleDataManager.js');

/**
 * A CRM lead in Germany that agreed to ad data use: Google's EU user consent policy withholds the
 * email and phone of EEA leads without a consent signal (issue 13.7), which these tests are not about.
 */
const crmLead: typeof germanCrmLead = (i, overrides = {}) =>
	germanCrmLead(i, { consent: { ad_user_data: 'granted' }, ...overrides });

/* eslint-enable @typescript-eslint/no-require-imports */

const DEVELOPER_TOKEN = 'dev-token-adjust-node-0123456789';
const ACTION = 'customers/1234567890/conversionActions/987654321';
const DAY = 86_400_000;
const json = (items: INodeExecutionData[]) => items.map((item) => item.json as IDataObject);

describe('Google Ads Conversions node: Adjust through the Google Ads API (allow-listed developer tokens)', () => {
	const redis = nodeRedis('googleAdsAdjustApi');
	const node = new GoogleAdsConversions();
	let ads: Awaited<ReturnType<typeof startGoogleStandIn>>;

	beforeAll(async () => {
		ads = await startGoogleStandIn({
			developerToken: DEVELOPER_TOKEN,
			timeZone: 'America/Chicago',
		});
	});
	beforeEach(() => ads.reset());
	afterAll(() => ads.close());

	const setup = (params: IDataObject = {}, overrides: Partial<NodeSetup> = {}): NodeSetup => ({
		params: {
			api: 'googleAdsApi',
			customerId: '123-456-7890',
			conversionAction: { __rl: true, mode: 'id', value: '987654321' },
			...params,
		},
		credentials: {
			leadCapiGoogleAdsOAuth2Api: {
				developerToken: DEVELOPER_TOKEN,
				baseUrl: ads.url,
				oauthTokenData: { access_token: ads.accessToken(), token_type: 'Bearer' },
			},
			leadCapiRedisApi: redis.credential(),
		},
		...overrides,
	});
	const adjust = (items: IDataObject[], params: IDataObject, overrides: Partial<NodeSetup> = {}) =>
		runExecute(
			node,
			items,
			setup({ operation: 'adjust', originalEvent: 'lead', ...params }, overrides),
		);
	const adjustmentUploads = () =>
		ads.requests.filter((r: { path: string }) => r.path.endsWith(':uploadConversionAdjustments'));

	it('a lost lead gives exactly one retraction of its lead conversion; a won lead one restatement; re-runs send nothing', async () => {
		const sent = await runExecute(node, [crmLead(1), crmLead(2)] as IDataObject[], setup());
		expect(json(sent.outputs[0]).map((r) => r.status)).toEqual(['sent', 'sent']);
		const [orderId1, orderId2] = json(sent.outputs[0]).map((r) => r.event_id);

		const lost = [crmLead(1, { state: 'lost' }) as IDataObject];
		const retracted = await adjust(lost, { adjustment: 'retraction' });
		expect(json(retracted.outputs[0])[0]).toMatchObject({
			status: 'sent',
			adjustment: 'retraction',
			event_name: 'retraction:lead',
			destination: ACTION,
		});
		expect(retracted.outputs[0][0].pairedItem).toEqual({ item: 0 });
		const won = [
			crmLead(2, { state: 'purchase', value: { amount: 1200, currency: 'USD' } }) as IDataObject,
		];
		const restated = await adjust(won, { adjustment: 'restatement' });
		expect(json(restated.outputs[0])[0]).toMatchObject({
			status: 'sent',
			adjustment: 'restatement',
		});

		expect((await adjust(lost, { adjustment: 'retraction' })).outputs[0][0].json.status).toBe(
			'duplicate',
		);
		expect((await adjust(won, { adjustment: 'restatement' })).outputs[0][0].json.status).toBe(
			'duplicate',
		);
		expect(
			ads.adjustments.map((a: { adjustment: IDataObject }) => [
				a.adjustment.adjustmentType,
				a.adjustment.orderId,
			]),
		).toEqual([
			['RETRACTION', orderId1],
			['RESTATEMENT', orderId2],
		]);
		expect(adjustmentUploads()).toHaveLength(2);
	});

	it('From Lead Stage + From Stage Ledger: won restates and lost retracts the first conversion the ledger holds, once', async () => {
		const sent = await runExecute(node, [crmLead(11), crmLead(12)] as IDataObject[], setup());
		const [order11, order12] = json(sent.outputs[0]).map((r) => r.event_id);
		const now = new Date().toISOString();
		const stages = [
			crmLead(11, { stage: 'Won', stage_at: now, value: { amount: 4200, currency: 'USD' } }),
			crmLead(12, { stage: 'lost', stage_at: now }),
			crmLead(13, { stage: 'Booked', stage_at: now }),
			crmLead(14, { stage: 'Disqualified', stage_at: now }),
		] as IDataObject[];
		const params = { adjustment: 'fromStage', originalEvent: 'ledger' };
		const first = json((await adjust(stages, params)).outputs[0]);
		expect(first.map((r) => [r.status, r.adjustment])).toEqual([
			['sent', 'restatement'],
			['sent', 'retraction'],
			['skipped', undefined],
			['skipped', 'retraction'],
		]);
		expect(first[2].error).toBe(
			'no adjustment for this stage: stage "Booked" is neither a retraction stage (lost, disqualified) nor a restatement stage (won)',
		);
		expect(first[3].error).toMatch(/^the stage ledger has no conversion sent for this lead/);
		const again = json((await adjust(stages, params)).outputs[0]);
		expect(again.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'skipped', 'skipped']);
		expect(
			ads.adjustments.map((a: { adjustment: IDataObject }) => [
				a.adjustment.adjustmentType,
				a.adjustment.orderId,
				a.adjustment.restatementValue,
			]),
		).toEqual([
			['RESTATEMENT', order11, { adjustedValue: 4200, currencyCode: 'USD' }],
			['RETRACTION', order12, undefined],
		]);
	});

	it('Conversion Time past 54 days: skipped with the reason, nothing sent; a bad item never stops the others', async () => {
		await runExecute(node, [crmLead(3), crmLead(4)] as IDataObject[], setup());
		const old = new Date(Date.now() - 70 * DAY).toISOString();
		const { outputs } = await adjust(
			[
				crmLead(3, { state: 'lost' }),
				crmLead(4, { state: 'lost' }),
				crmLead(5, { state: 'lost' }),
			] as IDataObject[],
			{ adjustment: 'retraction' },
			{
				expressions: { conversionTime: (i) => (i === 0 ? old : '') },
				onError: 'continueRegularOutput',
			},
		);
		expect(json(outputs[0]).map((r) => r.status)).toEqual(['skipped', 'sent', 'failed']);
		expect(json(outputs[0])[0].error).toMatch(
			/^the conversion is 70 days old: Google takes adjustments only up to 54 days/,
		);
		expect(json(outputs[0])[2].error).toMatch(/CONVERSION_NOT_FOUND/);
		expect(adjustmentUploads()).toHaveLength(1);
		expect(adjustmentUploads()[0]).toMatchObject({ conversions: 2, partialFailure: true });
	});

	it('On Error Stop: a refused adjustment raises an error at its item after the others were sent', async () => {
		await runExecute(node, [crmLead(6)] as IDataObject[], setup());
		const { error } = await executeError(
			node,
			[crmLead(6, { state: 'lost' }), crmLead(9, { state: 'lost' })] as IDataObject[],
			setup({ operation: 'adjust', adjustment: 'retraction', originalEvent: 'lead' }),
		);
		expect(error.message).toMatch(/^google: item 1 failed: Google Ads: .*CONVERSION_NOT_FOUND/);
		expect(ads.adjustments).toHaveLength(1);
	});
});

describe('Google Ads Conversions node: Data Manager retraction and request health', () => {
	const redis = nodeRedis('googleDmHealth');
	const node = new GoogleAdsConversions();
	let dm: Awaited<ReturnType<typeof startGoogleDataManagerStandIn>>;

	beforeAll(async () => {
		dm = await startGoogleDataManagerStandIn({});
	});
	afterAll(() => dm.close());

	const setup = (params: IDataObject = {}, overrides: Partial<NodeSetup> = {}): NodeSetup => ({
		params: {
			api: 'dataManager',
			customerId: '1234567890',
			conversionActionId: '987654321',
			...params,
		},
		credentials: {
			leadCapiGoogleDataManagerOAuth2Api: {
				baseUrl: dm.url,
				oauthTokenData: { access_token: dm.accessToken(), token_type: 'Bearer' },
			},
			leadCapiRedisApi: redis.credential(),
		},
		...overrides,
	});

	it('a retraction is skipped per item and names the API option that can retract', async () => {
		const { outputs } = await runExecute(
			node,
			[crmLead(1, { state: 'lost' })] as IDataObject[],
			setup({ operation: 'adjust', adjustment: 'retraction', originalEvent: 'lead' }),
		);
		expect(json(outputs[0])[0]).toMatchObject({
			status: 'skipped',
			error: expect.stringContaining('Set API to "Google Ads API (Allow-Listed Developer Tokens)"'),
		});
	});

	it("the Health Report lists the destination's last request ids with the status Get Request Status read", async () => {
		const sent = await runExecute(node, [crmLead(1), crmLead(2)] as IDataObject[], setup());
		const requestId = (json(sent.outputs[0])[0].response as IDataObject).request_id;
		const report = () =>
			runExecute(new IdentityNormalizer(), [{}], {
				params: { operation: 'report', platforms: ['google'] },
				credentials: { leadCapiRedisApi: redis.credential() },
			});
		const before = json((await report()).outputs[0]);
		expect(before).toEqual([
			expect.objectContaining({
				platform: 'google',
				destination: ACTION,
				sent: 2,
				requests: [
					{ request_id: requestId, sent_at: expect.any(String), events: 2, status: 'ACCEPTED' },
				],
			}),
		]);
		await runExecute(
			node,
			[{}],
			setup({ operation: 'getRequestStatus', requestId, dedupStore: 'redis' }),
		);
		const after = json((await report()).outputs[0]);
		expect(after[0].requests).toEqual([
			expect.objectContaining({ request_id: requestId, status: 'SUCCESS' }),
		]);
		expect(JSON.stringify(after)).not.toMatch(/@|deal-|buyer/);
	});
});
