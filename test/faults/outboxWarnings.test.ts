import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { LeadCapiOutboxTrigger } from '../../nodes/LeadCapiOutboxTrigger/LeadCapiOutboxTrigger.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { checkEvictionPolicy, outbox, type DispatchItem } from '../../shared';
import { statusCounts } from '../support/faultFigures';
import { closePooledClient, FAULT_PIXEL, faultHarness } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { outboxPollContext, runExecute } from '../nodes/support/context';

/*
 * A Redis that can lose queued events — maxmemory-policy allkeys-lru, no append-only file and no
 * RDB save — holding the outbox: the connect check says so, naming the queued events and dead
 * letters beside the dedup markers; the events queued meanwhile are delivered once by the drain.
 */
const TOKEN = 'fault-suite-access-token-0123456789';
const KEY = { secret: 'fault-suite-outbox-key-0123456789' };
const LEADS = 100;

const ROW = {
	id: 'outbox-at-risk-warnings',
	order: 360,
	scenario: 'The outbox on a Redis that can lose it (allkeys-lru, no persistence)',
	done: `redis-server with maxmemory 64 MB, maxmemory-policy allkeys-lru, appendonly no, save ""; ${LEADS} leads queued (Deliver: via outbox), the connect check read, the outbox drained`,
	expected:
		'the connect check warns that eviction and a restart would lose the queued events and dead letters (and the dedup markers), each with what to set; every queued event delivered once',
};

describe('warnings that name what is at risk: the outbox on an evicting Redis without persistence', () => {
	const meta = new MetaConversions();
	const trigger = new LeadCapiOutboxTrigger();
	const redisCredential = () => ({ connection: 'url', url: h.redis.url, keyPrefix: h.prefix });
	afterAll(() => closePooledClient(redisCredential()));
	const h = faultHarness('outbox-warn', { redisConfig: ['maxmemory 64mb', 'maxmemory-policy allkeys-lru'] });
	const credentials = () => ({
		leadCapiMetaApi: { pixelId: FAULT_PIXEL, accessToken: TOKEN, baseUrl: h.standIn.url },
		leadCapiRedisApi: redisCredential(),
		leadCapiOutboxApi: KEY,
	});
	const json = (items: INodeExecutionData[]) => items.map((i) => i.json as IDataObject);

	it('warns at connect naming the queued events and dead letters; what was queued is delivered once', async () => {
		const records = Array.from({ length: LEADS }, (_, i) => crmLead(400_000 + i));
		for (const record of records) {
			const out = await runExecute(meta, [record as unknown as IDataObject], {
				credentials: credentials(),
				params: { deliver: 'outbox' },
			});
			expect(json(out.outputs[0])[0]).toMatchObject({ status: 'queued' });
		}
		const check = await checkEvictionPolicy(h.admin, 'Redis under test');
		expect(check.warning).toMatch(/maxmemory-policy is allkeys-lru .* may evict the dedup "sent" markers .* and the outbox's queued events and dead letters \(gone with no dead letter and no message\)/);
		expect(check.persistenceWarning).toMatch(/no persistence \(appendonly no, save ""\): a restart of Redis loses .* the outbox's queued events and dead letters/);
		expect(await new outbox.OutboxStore(h.admin, h.prefix).pendingCount({ platform: 'meta', destination: FAULT_PIXEL })).toBe(LEADS);

		const taken = (await trigger.poll!.call(outboxPollContext(credentials(), 1000)))?.[0] ?? [];
		expect(taken).toHaveLength(LEADS);
		const sent = json((await runExecute(meta, taken, { credentials: credentials() })).outputs[0]);
		expect(statusCounts(sent as never)).toEqual({ sent: LEADS });

		const items: DispatchItem[] = records.map((record) => ({ record, eventName: 'Lead' }));
		await h.record(
			{
				...ROW,
				notes: `the connect check said: "${check.warning?.slice(0, 150)}…" and "${check.persistenceWarning?.slice(0, 150)}…"`,
			},
			items,
			{ errorsReported: 0, rerunSent: 0 },
		);
	});
});
