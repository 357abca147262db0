import { getRedisClient } from '../../nodes/common/redisClients';
import {
	checkEvictionPolicy,
	createRedisClient,
	evictionCheck,
	waitForReady,
	warnIfMarkersEvictable,
} from '../../shared/dedup';
import { startStandaloneRedis, until, type StandaloneRedis } from '../support/redisTopology';

/**
 * The eviction-policy check, against redis-servers of the test's own, one per policy: markers
 * are safe only under noeviction (or without a memory limit); allkeys-* and volatile-* (every key
 * of ours has a TTL) are reported with what to do; a Redis whose CONFIG command is disabled is
 * read through INFO memory, and the report says CONFIG was refused.
 */
describe('eviction policy check at connect (own redis-servers)', () => {
	const servers: StandaloneRedis[] = [];
	const start = async (config: string[]) => {
		const redis = await startStandaloneRedis({ config });
		servers.push(redis);
		return redis;
	};
	afterAll(async () => {
		await Promise.all(servers.map((s) => s.stop()));
	});

	async function check(config: string[]) {
		const redis = await start(config);
		const client = createRedisClient({ url: redis.url });
		try {
			await waitForReady(client, 10_000);
			return await checkEvictionPolicy(client, `Redis at 127.0.0.1:${redis.port}`);
		} finally {
			client.disconnect();
		}
	}

	it('noeviction with maxmemory: markers are safe, nothing to warn about', async () => {
		const result = await check(['maxmemory 32mb', 'maxmemory-policy noeviction']);
		expect(result).toEqual({ policy: 'noeviction', maxmemory: 32 * 1024 * 1024, source: 'CONFIG GET', markersSafe: true });
	});

	it.each(['allkeys-lru', 'allkeys-lfu', 'allkeys-random'])('%s with maxmemory: a loud warning that markers can be evicted', async (policy) => {
		const result = await check(['maxmemory 32mb', `maxmemory-policy ${policy}`]);
		expect(result.markersSafe).toBe(false);
		expect(result.warning).toMatch(
			new RegExp(`^Redis at 127\\.0\\.0\\.1:\\d+: maxmemory-policy is ${policy} with maxmemory 32\\.0 MB: when Redis fills up it may evict the dedup "sent" markers \\(allkeys-\\* policies evict any key\\), and a re-run then sends those events again — duplicates nobody is told about\\. Set maxmemory-policy to noeviction`),
		);
		expect(result.warning).toMatch(/keep the capture log in another database or instance/);
	});

	it.each(['volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl'])(
		'%s: markers carry a TTL, so they can be evicted too',
		async (policy) => {
			const result = await check(['maxmemory 32mb', `maxmemory-policy ${policy}`]);
			expect(result.markersSafe).toBe(false);
			expect(result.warning).toMatch(/every key this package writes has a TTL \(sent markers: 30 days\), so volatile-\* policies may evict the markers too/);
		},
	);

	it('no maxmemory: nothing is ever evicted, whatever the policy', async () => {
		const result = await check(['maxmemory 0', 'maxmemory-policy allkeys-lru']);
		expect(result).toMatchObject({ policy: 'allkeys-lru', maxmemory: 0, markersSafe: true });
		expect(result.warning).toBeUndefined();
	});

	it('CONFIG disabled (rename-command, as managed services do): read from INFO memory, and said so', async () => {
		const result = await check(['maxmemory 32mb', 'maxmemory-policy volatile-lru', 'rename-command CONFIG ""']);
		expect(result).toMatchObject({ policy: 'volatile-lru', source: 'INFO memory', markersSafe: false });
		expect(result.configRefused).toMatch(/^CONFIG GET is disabled or not permitted here: ERR unknown command/);
	});

	it('the pooled client of the nodes checks at connect and warns once (n8n log) when markers can be evicted', async () => {
		const redis = await start(['maxmemory 32mb', 'maxmemory-policy allkeys-lru']);
		const { client } = getRedisClient({ url: redis.url });
		try {
			await waitForReady(client, 10_000);
			const result = await evictionCheck(client);
			expect(result?.policy).toBe('allkeys-lru');
			const warnings: string[] = [];
			await warnIfMarkersEvictable(client, (m) => warnings.push(m), { waitMs: 1_000 });
			await warnIfMarkersEvictable(client, (m) => warnings.push(m), { waitMs: 1_000 });
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toMatch(/^Redis at 127\.0\.0\.1:\d+: maxmemory-policy is allkeys-lru/);
			// A policy changed while connected is seen at the next (re)connection.
			await redis.command('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
			const reconnected = new Promise((resolve) => client.once('ready', resolve));
			client.disconnect(true);
			await reconnected;
			await until('the check after reconnecting', async () => (await evictionCheck(client))?.policy === 'noeviction');
			expect(await evictionCheck(client)).toMatchObject({ policy: 'noeviction', markersSafe: true });
		} finally {
			client.disconnect();
		}
	});
});
