import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { TiktokEvents } from '../../nodes/TiktokEvents/TiktokEvents.node';
import { runExecute, type NodeSetup } from './support/context';
import { nodeRedis } from './support/redis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startTiktokStandIn } = require('../standins/tiktok.js');

const TOKEN = 'tiktok-crm-node-token-0123456789';
const node = new TiktokEvents();
const json = (items: INodeExecutionData[]) => items.map((i) => i.json);

describe('TikTok Events node, Event Source CRM with Event: From Lead Stage', () => {
	const redis = nodeRedis('tiktokcrm');
	let standIn: {
		url: string;
		received: Array<{ eventSource: string; eventSourceId: string; event: IDataObject }>;
		reset(): void;
		close(): Promise<void>;
	};
	beforeAll(async () => {
		standIn = await startTiktokStandIn({
			accessToken: TOKEN,
			pixelCode: 'CPIXELCRM01',
			crmEventSetId: 'CRMSET0042',
		});
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	const setup = (): NodeSetup => ({
		params: { event: 'fromStage', eventSource: 'crm', leadEventSource: 'HubSpot' },
		credentials: {
			leadCapiTiktokApi: {
				pixelCode: 'CPIXELCRM01',
				accessToken: TOKEN,
				crmEventSetId: 'CRMSET0042',
				baseUrl: standIn.url,
			},
			leadCapiRedisApi: redis.credential(),
		},
	});
	const lead = (stage: string): IDataObject => ({
		record_id: 'deal-881',
		occurred_at: new Date(Date.now() - 3_600_000).toISOString(),
		stage,
		contact: { email: 'sam.rivera@example.com' },
		attributes: { tiktok_lead_id: '7312345678901234567' },
	});

	it('names each event by its stage, sends it to the CRM event set with the lead object, once', async () => {
		const items = [lead('Qualified'), lead('Won')];
		const first = await runExecute(node, items, setup());
		expect(json(first.outputs[0]).map((r) => [r.status, r.event_name])).toEqual([
			['sent', 'Qualified'],
			['sent', 'Won'],
		]);
		expect(standIn.received.map((r) => [r.eventSource, r.eventSourceId, r.event.event])).toEqual([
			['crm', 'CRMSET0042', 'Qualified'],
			['crm', 'CRMSET0042', 'Won'],
		]);
		expect(standIn.received[0].event.lead).toEqual({
			lead_id: '7312345678901234567',
			lead_event_source: 'HubSpot',
		});
		const again = await runExecute(node, items, setup());
		expect(json(again.outputs[0]).map((r) => r.status)).toEqual(['duplicate', 'duplicate']);
		expect(standIn.received).toHaveLength(2);
	});
});
