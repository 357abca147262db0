import type Redis from 'ioredis';
import type { ICredentialTestFunctions } from 'n8n-workflow';
import {
	CaptureLog,
	captureLogKey,
	dedupKey,
	describeRedis,
	dispatch,
	metaAdapter,
	RedisDedupStore,
	Transport,
	type DispatchItem,
	type LedgerOptions,
	type meta,
} from '../../shared';
import {
	createRedisClient,
	waitForReady,
	type RedisClient,
	type RedisClusterConfig,
} from '../../shared/redis/client';
import { leadCapiRedisConnectionTest } from '../../nodes/common/credentialTests';
import { redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { webLead } from '../support/leads';
import { uniquePrefix } from '../support/redisClient';
import { startClusterTopology, type ClusterTopology } from '../support/redisTopology';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const HOUR = 3_600_000;
const TOKEN = 'cluster-token-0123456789';
type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

const credentialTest = (data: Record<string, unknown>) =>
	leadCapiRedisConnectionTest.call({} as ICredentialTestFunctions, {
		id: '1',
		name: 'Dedup Redis Cluster',
		type: 'leadCapiRedisApi',
		data: data as never,
	});

/**
 * The dedup store on a real 3-master Redis Cluster (no replicas, password set), made with
 * `redis-cli --cluster create` on loopback ports.
 */
describe('Redis Cluster: dedup with hash-tagged keys', () => {
	let topology: ClusterTopology;
	let standIn: StandIn;
	let prefix: string;
	const clients: RedisClient[] = [];

	const config = (overrides: Partial<RedisClusterConfig> = {}): RedisClusterConfig => ({
		mode: 'cluster',
		nodes: [{ host: '127.0.0.1', port: topology.ports[0] }],
		password: topology.password,
		...overrides,
	});
	const connect = () => {
		const client = createRedisClient(config());
		clients.push(client);
		return client;
	};
	const store = (client: RedisClient = connect()) =>
		new RedisDedupStore(client, { description: describeRedis(config()) });
	const send = (items: DispatchItem[], pixelId: string, dedup: RedisDedupStore, extra: { ledger?: LedgerOptions } = {}) =>
		dispatch(items, {
			adapter: metaAdapter,
			config: {
				pixelId,
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
			...extra,
		});
	const leads = (from: number, to: number) =>
		Array.from({ length: to - from }, (_, i) => ({ record: webLead(from + i), eventName: 'Lead' }));
	/** Every key under the test's prefix, by the port of the master holding it. */
	const keysByNode = async () => {
		const found = new Map<number, string[]>();
		for (const port of topology.ports) {
			const keys: string[] = [];
			let cursor = '0';
			do {
				const [next, batch] = await topology
					.admin(port)
					.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
				cursor = next;
				keys.push(...batch);
			} while (cursor !== '0');
			if (keys.length) found.set(port, keys.sort());
		}
		return found;
	};
	/** Destination ids whose hash tags land on three different masters. */
	const pixelsOnEveryMaster = async () => {
		const byPort = new Map<number, string>();
		for (let i = 0; byPort.size < topology.ports.length && i < 1000; i++) {
			const pixel = `70000000${i}`;
			const port = await topology.portOfSlot(await topology.slotOf(`{${pixel}}`));
			if (!byPort.has(port)) byPort.set(port, pixel);
		}
		return [...byPort.values()];
	};

	beforeAll(async () => {
		topology = await startClusterTopology({ masters: 3 });
		standIn = await startMetaStandIn({ accessToken: TOKEN });
	}, 60_000);
	beforeEach(() => {
		standIn.reset();
		prefix = uniquePrefix('cluster');
	});
	afterAll(async () => {
		for (const client of clients) client.disconnect();
		await standIn?.close();
		await topology?.stop();
	});

	it('maps the Cluster credential, names it without secrets and passes the credential test', async () => {
		const seeds = topology.ports.map((p) => `127.0.0.1:${p}`).join(', ');
		const data = {
			connection: 'cluster',
			clusterNodes: seeds,
			password: topology.password,
			keyPrefix: 'leadcapi',
		};
		const mapped = redisConfigFromCredentials(data);
		expect(mapped).toMatchObject({
			mode: 'cluster',
			nodes: topology.ports.map((port) => ({ host: '127.0.0.1', port })),
			password: topology.password,
			tls: false,
		});
		expect(describeRedis(mapped)).toBe(`Redis Cluster 127.0.0.1:${topology.ports[0]} (+2)`);
		expect(await credentialTest(data)).toEqual({
			status: 'OK',
			message: 'Connection successful: Redis answered PING',
		});
		// One seed is enough: the other masters are discovered.
		expect(
			await credentialTest({ ...data, clusterNodes: `127.0.0.1:${topology.ports[2]}` }),
		).toMatchObject({
			status: 'OK',
		});
	});

	it('says what is wrong: bad password, a cluster node entered as Host and Port, a plain Redis entered as Cluster', async () => {
		const seed = `127.0.0.1:${topology.ports[0]}`;
		const wrong = await credentialTest({
			connection: 'cluster',
			clusterNodes: seed,
			password: 'wrong',
		});
		expect(wrong).toEqual({
			status: 'Error',
			message: `Redis Cluster ${seed}: authentication failed — check the username and password`,
		});
		const asSingle = await credentialTest({
			connection: 'fields',
			host: '127.0.0.1',
			port: topology.ports[0],
			password: topology.password,
		});
		expect(asSingle).toEqual({
			status: 'Error',
			message: `Redis at ${seed} is a Redis Cluster node: choose the Cluster connection type`,
		});
		const plain = new URL(process.env.REDIS_URL!);
		const notCluster = await credentialTest({ connection: 'cluster', clusterNodes: plain.host });
		expect(notCluster.status).toBe('Error');
		expect(notCluster.message).toBe(
			`Redis Cluster ${plain.host}: this Redis is not a cluster node: choose the Host and Port (or Sentinel) connection type`,
		);
		expect(await credentialTest({ connection: 'cluster', clusterNodes: ' , ' })).toEqual({
			status: 'Error',
			message: 'Cluster Nodes: enter at least one host:port',
		});
	});

	it('a store on a cluster client uses hash-tagged keys and keeps claim/settle semantics', async () => {
		const dedup = store();
		const other = store();
		expect(dedup.hashTagKeys).toBe(true);
		const key = (id: string) => dedupKey(prefix, 'meta', 'px1', id, { hashTag: true });
		expect(key('a')).toBe(`${prefix}:meta:{px1}:a`);
		const first = await dedup.claimBatch([key('a'), key('b'), key('c')], HOUR);
		expect(first.outcomes).toEqual(['claimed', 'claimed', 'claimed']);
		expect((await other.claimBatch([key('a')], HOUR)).outcomes).toEqual(['in_flight']);
		expect(
			await other.settleBatch('not-the-owner', {
				commit: [key('b')],
				release: [key('a')],
				committedTtlMs: HOUR,
			}),
		).toEqual({
			committed: 0,
			released: 0,
			notOwned: [key('b'), key('a')],
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
	});

	it('gives each key exactly one winner among 8 concurrent claimers on separate cluster connections', async () => {
		const keys = Array.from({ length: 300 }, (_, i) =>
			dedupKey(prefix, 'meta', 'px2', `e${i}`, { hashTag: true }),
		);
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

	it('dispatch sends each lead once, a re-run sends nothing, and every key of the destination sits in one slot', async () => {
		const pixel = '123456789012345';
		const first = await send(leads(0, 5), pixel, store());
		expect(first.map((r) => r.status)).toEqual(Array(5).fill('sent'));
		expect(standIn.received).toHaveLength(5);
		// Two workers re-running the same leads at once, each with its own cluster connection.
		const again = await Promise.all([
			send(leads(0, 5), pixel, store()),
			send(leads(0, 5), pixel, store()),
		]);
		expect(again.flat().map((r) => r.status)).toEqual(Array(10).fill('duplicate'));
		expect(standIn.received).toHaveLength(5);

		const byNode = await keysByNode();
		expect(byNode.size).toBe(1);
		const [port, keys] = [...byNode.entries()][0];
		expect(port).toBe(await topology.portOfSlot(await topology.slotOf(`{${pixel}}`)));
		const dedupKeys = keys.filter((k) => !k.includes(':stats:'));
		expect(dedupKeys.sort()).toEqual(
			first.map((r) => `${prefix}:meta:{${pixel}}:${r.event_id}`).sort(),
		);
		expect(keys.filter((k) => k.includes(':stats:'))).toEqual([
			expect.stringMatching(new RegExp(`^${prefix}:stats:meta:\\{${pixel}\\}:\\d{10}$`)),
		]);
		const slots = new Set(await Promise.all(keys.map((k) => topology.slotOf(k))));
		expect(slots.size).toBe(1);
		expect(await topology.admin(port).get(dedupKeys[0])).toBe('s');
	});

	/**
	 * The commands clients send to each master while `work` runs (MONITOR on every master; what
	 * the scripts run themselves shows as "lua" and is not a round trip), on a connection warmed
	 * up to the destination's master; slot-map refreshes (CLUSTER SLOTS, INFO) left out.
	 */
	const roundTripsOf = async (client: RedisClient, pixel: string, work: () => Promise<void>) => {
		await waitForReady(client, 5_000);
		await client.eval('return 1', 1, `${prefix}:warmup:{${pixel}}`);
		const seen: Array<{ port: number; command: string }> = [];
		const monitors: Redis[] = [];
		for (const port of topology.ports) {
			const monitor = await topology.admin(port).monitor();
			monitors.push(monitor);
			monitor.on('monitor', (_time: string, args: string[], source: string) => {
				if (source !== 'lua') seen.push({ port, command: String(args[0]).toLowerCase() });
			});
		}
		try {
			await work();
			// MONITOR lines arrive asynchronously: give them a moment after a marker command.
			await client.get(`${prefix}:done:{${pixel}}`);
			for (let i = 0; i < 100 && !seen.some((s) => s.command === 'get'); i++) {
				await new Promise((r) => setTimeout(r, 20));
			}
		} finally {
			for (const monitor of monitors) monitor.disconnect();
		}
		return seen.filter((s) => !['cluster', 'info'].includes(s.command));
	};

	it("claims and settles a whole dispatch in two round trips, both on the destination's master", async () => {
		const pixel = '998877665544';
		const client = connect();
		const dedup = store(client);
		const data = await roundTripsOf(client, pixel, async () => {
			const results = await send(leads(20, 60), pixel, dedup);
			expect(results.map((r) => r.status)).toEqual(Array(40).fill('sent'));
		});
		const owner = await topology.portOfSlot(await topology.slotOf(`{${pixel}}`));
		expect(data).toEqual([
			{ port: owner, command: 'eval' },
			{ port: owner, command: 'eval' },
			{ port: owner, command: 'get' },
		]);
	});

	it("with the stage ledger: read in the claim, written in the settle, in the destination's slot — still two round trips", async () => {
		const pixel = '556677889900';
		const client = connect();
		const dedup = store(client);
		const stages = Array.from({ length: 10 }, (_, i) => ({
			record: webLead(300 + i, { stage: 'qualified', stage_at: new Date(Date.now() - 60_000).toISOString() }),
			eventName: 'Qualified',
		}));
		const withLedger = { ledger: { stageOrder: ['Lead', 'Qualified'] } };
		const owner = await topology.portOfSlot(await topology.slotOf(`{${pixel}}`));
		const first = await roundTripsOf(client, pixel, async () => {
			const results = await send(stages, pixel, dedup, withLedger);
			expect(results.map((r) => r.status)).toEqual(Array(10).fill('sent'));
			expect(results[0].warnings.join(' ')).toMatch(/skips "lead"/);
		});
		expect(first.map((s) => s.command)).toEqual(['eval', 'eval', 'get']);
		expect(first.every((s) => s.port === owner)).toBe(true);
		const [keys] = [...(await keysByNode()).values()];
		const ledgers = keys.filter((k) => k.startsWith(`${prefix}:ledger:meta:{${pixel}}:`));
		expect(ledgers).toHaveLength(10);
		expect(await topology.admin(owner).hget(ledgers[0], 'first_event')).toBe('Qualified');
		// The dedup keys gone: the ledger the claim reads alone keeps the stages from going out again.
		await topology.admin(owner).del(...keys.filter((k) => k.startsWith(`${prefix}:meta:`)));
		const again = await send(stages, pixel, dedup, withLedger);
		expect(again.map((r) => r.status)).toEqual(Array(10).fill('duplicate'));
		expect(standIn.received).toHaveLength(10);
	});

	it('reads the health report from every master', async () => {
		const pixels = await pixelsOnEveryMaster();
		expect(pixels).toHaveLength(3);
		const dedup = store();
		for (const [n, pixel] of pixels.entries()) {
			await send(leads(100, 101 + n), pixel, dedup);
			await send(leads(100, 101 + n), pixel, dedup);
		}
		const byNode = await keysByNode();
		expect(byNode.size).toBe(3);
		const report = await store().readStats(prefix, { hours: 24 });
		expect(report.map((r) => [r.destination, r.sent, r.duplicate])).toEqual(
			pixels
				.map((pixel, n) => [pixel, n + 1, n + 1])
				.sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
		);
		expect(report[0].match_keys.em).toEqual({ count: report[0].sent, share: 1 });
	});

	it('keeps a capture log on the cluster', async () => {
		const log = new CaptureLog(connect(), { key: captureLogKey(prefix, 'site') });
		await log.append(webLead(1, { contact: { email: 'ann@first.io' } }));
		await log.append(webLead(2, { contact: { email: 'bob@second.io' } }));
		const read = await log.readWindow();
		expect(read.truncated).toBe(false);
		expect(read.entries.map((e) => e.record.contact?.email_domain)).toEqual([
			'second.io',
			'first.io',
		]);
	});

	it('fails a batch with an error naming the cluster when no node answers', async () => {
		const dead = createRedisClient({
			mode: 'cluster',
			nodes: [{ host: '127.0.0.1', port: 1 }],
			connectTimeoutMs: 300,
		});
		clients.push(dead);
		const dedup = new RedisDedupStore(dead, {
			description: 'Redis Cluster 127.0.0.1:1',
			connectTimeoutMs: 500,
		});
		const results = await send(leads(200, 202), 'PIXEL_DOWN', dedup);
		expect(results.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
		]);
		expect(results[0].error).toMatch(
			/^The dedup store \(Redis Cluster 127\.0\.0\.1:1\) did not answer within 500 ms\. Nothing was sent/,
		);
		expect(results[0].error).toMatch(/Nothing was sent \(dedup fails closed\)/);
		expect(standIn.received).toHaveLength(0);
	});
});
