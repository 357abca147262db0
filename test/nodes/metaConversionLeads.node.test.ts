import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { executeError, runExecute, type NodeSetup } from './support/context';
import { nodeRedis } from './support/redis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'EAAG-crm-node-token-0123456789';
const node = new MetaConversions();
const json = (items: INodeExecutionData[]) => items.map((i) => i.json);

/** An item of n8n's Facebook Lead Ads Trigger (simplified output) that reached a CRM stage. */
function stageItem(leadId: string, stage: string | undefined, hoursAgo: number): IDataObject {
	return {
		id: leadId,
		data: { email: `lead.${leadId}@example.com`, full_name: 'Kim Park' },
		form: { id: '5550001112223', name: 'Quote' },
		created_time: new Date(Date.now() - 96 * 3_600_000).toISOString(),
		...(stage
			? { stage, stage_at: new Date(Date.now() - hoursAgo * 3_600_000).toISOString() }
			: {}),
	};
}

describe('Meta Conversions node, Event Source CRM (Conversion Leads)', () => {
	const redis = nodeRedis('metacrm');
	let standIn: {
		url: string;
		received: Array<{ event: IDataObject }>;
		reset(): void;
		close(): Promise<void>;
	};
	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	const setup = (params: IDataObject = {}, extra: Partial<NodeSetup> = {}): NodeSetup => ({
		params: { event: 'fromStage', eventSource: 'crm', leadEventSource: 'Pipedrive', ...params },
		credentials: {
			leadCapiMetaApi: { pixelId: '1234567890', accessToken: TOKEN, baseUrl: standIn.url },
			leadCapiRedisApi: redis.credential(),
		},
		...extra,
	});

	it('sends each stage of a Lead Ads lead once, named by the stage, with the CRM fields; a re-run sends nothing', async () => {
		// The trigger item itself has no stage: that is the lead's first stage, named "Lead Ads Lead" by the user.
		const items = [
			stageItem('123456789012345', 'Lead Ads Lead', 90),
			stageItem('123456789012345', 'Qualified', 20),
			stageItem('123456789012346', 'Qualified', 5),
		];
		const first = await runExecute(node, items, setup());
		expect(json(first.outputs[0]).map((r) => [r.status, r.event_name])).toEqual([
			['sent', 'Lead Ads Lead'],
			['sent', 'Qualified'],
			['sent', 'Qualified'],
		]);
		expect(standIn.received.map((r) => r.event.user_data)).toEqual([
			expect.objectContaining({ lead_id: '123456789012345' }),
			expect.objectContaining({ lead_id: '123456789012345' }),
			expect.objectContaining({ lead_id: '123456789012346' }),
		]);
		for (const { event } of standIn.received) {
			expect(event).toMatchObject({
				action_source: 'system_generated',
				custom_data: { event_source: 'crm', lead_event_source: 'Pipedrive' },
			});
		}
		const again = await runExecute(node, items, setup());
		expect(json(again.outputs[0]).map((r) => r.status)).toEqual([
			'duplicate',
			'duplicate',
			'duplicate',
		]);
		expect(standIn.received).toHaveLength(3);
	});

	it('an item without a stage, or with a stage older than 7 days, fails or is expired on its own; the others go out', async () => {
		const items = [
			stageItem('123456789012347', undefined, 0),
			stageItem('123456789012348', 'Won', 9 * 24),
			stageItem('123456789012349', 'Won', 1),
		];
		const { outputs } = await runExecute(
			node,
			items,
			setup({}, { onError: 'continueRegularOutput' }),
		);
		const results = json(outputs[0]);
		expect(results.map((r) => r.status)).toEqual(['failed', 'expired', 'sent']);
		expect(results[0].error).toMatch(/no stage/);
		expect(results[1].error).toMatch(/^stage "Won" expired: stage_at is 9\.0 days old, outside Meta's 7-day window: not sent \(the event time is never rewritten\)$/);
		expect(standIn.received).toHaveLength(1);
	});

	it('refuses to run in CRM mode without the Lead Event Source', async () => {
		const { error } = await executeError(
			node,
			[stageItem('123456789012345', 'Qualified', 1)],
			setup({ leadEventSource: '' }),
		);
		expect(error.message).toMatch(/Lead Event Source/);
		expect(standIn.received).toHaveLength(0);
	});
});
