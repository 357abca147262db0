import type Redis from 'ioredis';
import {
	createRedisClient,
	dispatch,
	ledgerKey,
	metaAdapter,
	RedisDedupStore,
	Transport,
	waitForReady,
	type DispatchOptions,
	type meta,
} from '../../shared';
import { crmLead, webLead } from '../support/leads';
import { countNames, watchServer, type ServerCommands } from '../support/redisClient';
import { startStandaloneRedis, type StandaloneRedis } from '../support/redisTopology';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'EAAG-commands-token-0123456789';
const PIXEL = '4440001112';
type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

/** What each event claimed, sent and committed with the ledger on costs inside the two scripts (docs/dedup.md). */
const PER_EVENT = { set: 2, hgetall: 1, hmget: 1, hset: 1, pexpire: 1 };

/** The commands inside the scripts beyond PER_EVENT × events: what the batch costs as a whole. */
function perBatch(script: string[], events: number): Record<string, number> {
	const counts = countNames(script);
	for (const [name, n] of Object.entries(PER_EVENT)) counts[name] = (counts[name] ?? 0) - n * events;
	return counts;
}

/**
 * Every command a dispatch issues to Redis, counted by a private redis-server (MONITOR: the
 * commands clients sent and those their scripts ran), with the stage ledger on as the senders
 * keep it by default: a batch costs its claim script and its settle script, whatever its size —
 * the ledger read rides in the claim, its writes in the settle.
 */
describe('Redis commands per batch with the stage ledger on (a private redis-server)', () => {
	let server: StandaloneRedis;
	let client: Redis;
	let admin: Redis;
	let standIn: StandIn;
	let run = 0;

	const config = (): meta.MetaConfig => ({
		pixelId: PIXEL,
		accessToken: TOKEN,
		baseUrl: standIn.url,
		actionSource: 'auto',
		limitedDataUse: 'auto',
	});
	/** One dispatch of `n` fresh web leads (or `leads`, sent as `eventName`), counted. */
	const counted = async (
		n: number,
		options: Partial<DispatchOptions<meta.MetaConfig, unknown>> = {},
		leads = Array.from({ length: n }, (_, i) => webLead(++run * 10_000 + i)),
		eventName = 'Lead',
	): Promise<ServerCommands & { statuses: string[] }> => {
		const watch = await watchServer(admin);
		const results = await dispatch(
			leads.map((record) => ({ record, eventName })),
			{
				adapter: metaAdapter,
				config: config(),
				transport: new Transport(),
				store: new RedisDedupStore(client, { description: 'private Redis' }),
				keyPrefix: 'test:commands',
				ledger: {},
				...options,
			} as DispatchOptions<meta.MetaConfig, unknown>,
		);
		return { ...(await watch.stop()), statuses: [...new Set(results.map((r) => r.status))] };
	};

	beforeAll(async () => {
		server = await startStandaloneRedis();
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		client = createRedisClient({ url: server.url });
		admin = server.admin();
		await waitForReady(client, 5_000);
	});
	afterAll(async () => {
		client.disconnect();
		await standIn.close();
		await server.stop();
	});

	it('a batch of 1, 10, 100 or 1,000 leads issues the same 2 commands: one claim script, one settle script', async () => {
		const batches: Record<string, number>[] = [];
		for (const n of [1, 10, 100, 1000]) {
			const { client: sent, script, statuses } = await counted(n);
			expect(statuses).toEqual(['sent']);
			expect(sent).toEqual(['eval', 'eval']);
			batches.push(perBatch(script, n));
		}
		// Inside the scripts: PER_EVENT per event, and the same few commands per batch at every size
		// (the MGET of its dedup keys, the counters' HSET, HINCRBYs and PEXPIRE).
		expect(batches[0]).toMatchObject({ mget: 1, hset: 1, pexpire: 1, set: 0, hgetall: 0, hmget: 0 });
		for (const batch of batches) expect(batch).toEqual(batches[0]);
		expect(standIn.received).toHaveLength(1111);
	});

	it('100 leads in batches of 10: 2 commands per batch; a re-run of them: 2 per batch, no ledger read', async () => {
		const leads = Array.from({ length: 100 }, (_, i) => crmLead(++run * 10_000 + i));
		const first = await counted(100, { batchSize: 10 }, leads);
		expect(first.client).toEqual(Array(20).fill('eval'));
		const again = await counted(100, { batchSize: 10 }, leads);
		expect(again.statuses).toEqual(['duplicate']);
		expect(again.client).toEqual(Array(20).fill('eval'));
		// A duplicate costs its SET NX and the GET that found it sent; its ledger is not read.
		expect(countNames(again.script)).toMatchObject({ set: 100, get: 100 });
		expect(again.script).not.toContain('hgetall');
	});

	it('stage events: the ledger read with the claim says which stage was sent, at the same 2 commands', async () => {
		const stage = (i: number) =>
			crmLead(i, { stage: 'qualified', stage_at: new Date(Date.now() - 60_000).toISOString() });
		const ids = Array.from({ length: 20 }, () => ++run * 10_000);
		const leads = ids.map(stage);
		const withOrder = { ledger: { stageOrder: ['Lead', 'Qualified'] } };
		const first = await counted(20, withOrder, leads, 'Qualified');
		expect(first.statuses).toEqual(['sent']);
		expect(first.client).toEqual(['eval', 'eval']);
		// The dedup keys gone (their TTL passed): the claim's ledger read alone stops the resend.
		const dedupKeys = await admin.keys(`test:commands:meta:${PIXEL}:*`);
		await admin.del(...dedupKeys);
		const again = await counted(20, withOrder, leads, 'Qualified');
		expect(again.statuses).toEqual(['duplicate']);
		expect(again.client).toEqual(['eval', 'eval']);
		expect(standIn.received.filter((r: { event: { event_name: string } }) => r.event.event_name === 'Qualified')).toHaveLength(20);
		expect(await admin.hget(ledgerKey('test:commands', 'meta', PIXEL, `deal-${ids[0]}`), 'first_event')).toBe('Qualified');
	});
});
