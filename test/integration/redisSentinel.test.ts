import type { ICredentialTestFunctions } from 'n8n-workflow';
import {
	dedupKey,
	describeRedis,
	dispatch,
	metaAdapter,
	RedisDedupStore,
	Transport,
	type DispatchItem,
	type meta,
} from '../../shared';
import {
	createRedisClient,
	type RedisClient,
	type RedisSentinelConfig,
} from '../../shared/redis/client';
import { leadCapiRedisConnectionTest } from '../../nodes/common/credentialTests';
import { webLead } from '../support/leads';
import { uniquePrefix } from '../support/redisClient';
import { startSentinelTopology, type SentinelTopology } from '../support/redisTopology';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const HOUR = 3_600_000;
const TOKEN = 'sentinel-token-0123456789';
const PIXEL = '5550001112223';
type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

/** The credential test as n8n runs it, with the credential's saved fields. */
const credentialTest = (data: Record<string, unknown>) =>
	leadCapiRedisConnectionTest.call({} as ICredentialTestFunctions, {
		id: '1',
		name: 'Dedup Redis',
		type: 'leadCapiRedisApi',
		data: data as never,
	});

/**
 * The dedup store through Redis Sentinel: a master with a replica, watched by a Sentinel, all
 * real redis-server processes on loopback ports, passwords on both the data nodes and the
 * Sentinel.
 */
describe('Redis Sentinel: dedup through a Sentinel-discovered master', () => {
	let topology: SentinelTopology;
	let standIn: StandIn;
	let prefix: string;
	const clients: RedisClient[] = [];

	const config = (overrides: Partial<RedisSentinelConfig> = {}): RedisSentinelConfig => ({
		mode: 'sentinel',
		sentinels: [{ host: '127.0.0.1', port: topology.sentinel.port }],
		masterName: topology.masterName,
		password: topology.password,
		sentinelPassword: topology.sentinelPassword,
		...overrides,
	});
	const connect = (overrides: Partial<RedisSentinelConfig> = {}) => {
		const client = createRedisClient(config(overrides));
		clients.push(client);
		return client;
	};
	const store = (client: RedisClient = connect()) =>
		new RedisDedupStore(client, { description: describeRedis(config()) });
	const credential = (overrides: Record<string, unknown> = {}) => ({
		connection: 'sentinel',
		sentinels: `127.0.0.1:${topology.sentinel.port}`,
		masterName: topology.masterName,
		sentinelPassword: topology.sentinelPassword,
		password: topology.password,
		database: 0,
		keyPrefix: 'leadcapi',
		...overrides,
	});
	const send = (items: DispatchItem[], dedup: RedisDedupStore) =>
		dispatch(items, {
			adapter: metaAdapter,
			config: {
				pixelId: PIXEL,
				accessToken: TOKEN,
				baseUrl: standIn.url,
				actionSource: 'auto',
				limitedDataUse: 'auto',
			} satisfies meta.MetaConfig,
			transport: new Transport({
				retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20, maxTotalMs: 5_000 },
			}),
			store: dedup,
			keyPrefix: prefix,
		});
	const leads = (from: number, to: number) =>
		Array.from({ length: to - from }, (_, i) => ({ record: webLead(from + i), eventName: 'Lead' }));

	beforeAll(async () => {
		topology = await startSentinelTopology({ replica: true });
		standIn = await startMetaStandIn({ accessToken: TOKEN });
	}, 60_000);
	beforeEach(() => {
		standIn.reset();
		prefix = uniquePrefix('sentinel');
	});
	afterAll(async () => {
		for (const client of clients) client.disconnect();
		await standIn?.close();
		await topology?.stop();
	});

	it('names the connection by master and Sentinel, never by secret', () => {
		const text = describeRedis(config({ sentinels: [{ host: '127.0.0.1', port: 26379 }] }));
		expect(text).toBe('Redis Sentinel mymaster via 127.0.0.1:26379');
		const many = describeRedis(
			config({
				sentinels: [
					{ host: '10.0.0.1', port: 26379 },
					{ host: '10.0.0.2', port: 26379 },
				],
				database: 2,
				tls: true,
			}),
		);
		expect(many).toBe('Redis TLS Sentinel mymaster/2 via 10.0.0.1:26379 (+1)');
		expect(text + many).not.toContain(topology.password);
		expect(text + many).not.toContain(topology.sentinelPassword);
	});

	it('passes the credential test, and says what is wrong for a bad master name or password', async () => {
		expect(await credentialTest(credential())).toEqual({
			status: 'OK',
			message: 'Connection successful: Redis answered PING',
		});
		const via = `via 127.0.0.1:${topology.sentinel.port}: `;
		const cases: Array<[Record<string, unknown>, string]> = [
			[
				{ masterName: 'othermaster' },
				`Redis Sentinel othermaster ${via}the Sentinels know no master by this name — check the Master Name`,
			],
			[
				{ sentinelPassword: 'wrong' },
				`Redis Sentinel mymaster ${via}authentication failed at the Sentinel — check the Sentinel username and password`,
			],
			[
				{ sentinelPassword: '' },
				`Redis Sentinel mymaster ${via}authentication failed at the Sentinel — check the Sentinel username and password`,
			],
			[
				{ password: 'wrong' },
				`Redis Sentinel mymaster ${via}authentication failed — check the username and password`,
			],
			[
				{ sentinels: '127.0.0.1:notaport' },
				'Sentinel Addresses: the address is not host:port (the value is not shown)',
			],
			[{ masterName: ' ' }, 'Master Name: enter the name the Sentinels monitor, e.g. mymaster'],
		];
		for (const [overrides, message] of cases) {
			expect({ overrides, result: await credentialTest(credential(overrides)) }).toEqual({
				overrides,
				result: { status: 'Error', message },
			});
		}
	}, 60_000);

	it('a Sentinel entered as Host and Port is caught by the credential test', async () => {
		const result = await credentialTest({
			connection: 'fields',
			host: '127.0.0.1',
			port: topology.sentinel.port,
			password: topology.sentinelPassword,
		});
		expect(result).toEqual({
			status: 'Error',
			message: `Redis at 127.0.0.1:${topology.sentinel.port} is a Sentinel, not a Redis server: choose the Sentinel connection type`,
		});
	});

	it('claims, settles and hands out each key once, on the master the Sentinel names', async () => {
		const dedup = store();
		const other = store();
		expect(dedup.hashTagKeys).toBe(false);
		const key = (id: string) => dedupKey(prefix, 'meta', PIXEL, id);
		const first = await dedup.claimBatch([key('a'), key('b'), key('c')], HOUR);
		expect(first.outcomes).toEqual(['claimed', 'claimed', 'claimed']);
		expect((await other.claimBatch([key('a')], HOUR)).outcomes).toEqual(['in_flight']);
		expect(
			await other.settleBatch('not-the-owner', {
				commit: [key('a')],
				release: [],
				committedTtlMs: HOUR,
			}),
		).toEqual({
			committed: 0,
			released: 0,
			notOwned: [key('a')],
		});
		expect(
			await dedup.settleBatch(first.token, {
				commit: [key('a'), key('b')],
				release: [key('c')],
				committedTtlMs: HOUR,
			}),
		).toEqual({ committed: 2, released: 1, notOwned: [] });
		expect((await other.claimBatch([key('a'), key('b'), key('c')], HOUR)).outcomes).toEqual([
			'sent',
			'sent',
			'claimed',
		]);
		const master = topology.admin(topology.master.port);
		expect(await master.get(key('a'))).toBe('s');
	});

	it('gives each key exactly one winner among 8 concurrent claimers on separate Sentinel connections', async () => {
		const keys = Array.from({ length: 300 }, (_, i) => dedupKey(prefix, 'meta', PIXEL, `e${i}`));
		const stores = Array.from({ length: 8 }, () => store());
		const results = await Promise.all(
			stores.map((s, n) => {
				const order = n % 2 ? [...keys].reverse() : keys;
				return s.claimBatch(order, HOUR).then((r) => ({ order, r }));
			}),
		);
		const winners = new Map<string, number>();
		for (const { order, r } of results) {
			r.outcomes.forEach((o, i) => {
				if (o === 'claimed') winners.set(order[i], (winners.get(order[i]) ?? 0) + 1);
				else expect(o).toBe('in_flight');
			});
		}
		expect(winners.size).toBe(keys.length);
		expect([...winners.values()].every((n) => n === 1)).toBe(true);
	});

	it('dispatch sends each lead once and a re-run sends nothing', async () => {
		const dedup = store();
		const first = await send(leads(0, 3), dedup);
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(standIn.received).toHaveLength(3);
		// Two workers re-running the same leads at the same moment, each with its own connection.
		const again = await Promise.all([send(leads(0, 3), store()), send(leads(0, 3), store())]);
		expect(again.flat().map((r) => r.status)).toEqual(Array(6).fill('duplicate'));
		expect(standIn.received).toHaveLength(3);
		expect(
			await topology
				.admin(topology.master.port)
				.get(dedupKey(prefix, 'meta', PIXEL, first[0].event_id!)),
		).toBe('s');
	});

	// Last: it moves the master to the replica.
	it('follows a failover: after the Sentinel promotes the replica, the same connection still sends each lead once', async () => {
		const client = connect();
		const dedup = store(client);
		expect((await send(leads(10, 13), dedup)).map((r) => r.status)).toEqual([
			'sent',
			'sent',
			'sent',
		]);
		// Replication is asynchronous: make sure the replica has the sent markers before promoting it.
		expect(await topology.admin(topology.master.port).wait(1, 5_000)).toBe(1);
		expect(await topology.sentinelCommand('SENTINEL', 'FAILOVER', topology.masterName)).toBe('OK');
		const deadline = Date.now() + 30_000;
		while ((await topology.masterPort()) !== topology.replica!.port) {
			if (Date.now() > deadline) throw new Error('the Sentinel did not promote the replica');
			await new Promise((r) => setTimeout(r, 100));
		}
		// The Sentinel announces the switch (+switch-master) and the client moves at once, while the
		// old master is still up and still a master (the Sentinel demotes it seconds later).
		const servedBy = () => client.info('server').catch(() => 'reconnecting');
		const deadlineSwitch = Date.now() + 5_000;
		while (!(await servedBy()).includes(`tcp_port:${topology.replica!.port}`)) {
			if (Date.now() > deadlineSwitch) throw new Error('the client did not move to the new master');
			await new Promise((r) => setTimeout(r, 50));
		}
		expect(await topology.admin(topology.master.port).info('replication')).toMatch(/role:master/);
		standIn.reset();
		const rerun = await send([...leads(10, 13), ...leads(13, 14)], dedup);
		expect(rerun.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate', 'sent']);
		expect(standIn.received).toHaveLength(1);
		const newMaster = topology.admin(topology.replica!.port);
		expect(await newMaster.get(dedupKey(prefix, 'meta', PIXEL, rerun[3].event_id!))).toBe('s');
	}, 60_000);
});
