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

	it('noeviction, an append-only file, room for the outbox: markers and queued events are safe, nothing to warn about', async () => {
		const result = await check(['maxmemory 128mb', 'maxmemory-policy noeviction', 'appendonly yes']);
		expect(result).toEqual({ policy: 'noeviction', maxmemory: 128 * 1024 * 1024, source: 'CONFIG GET', markersSafe: true });
	});

	it('no persistence (no AOF, no RDB save): a warning naming the queued events, dead letters and markers a restart loses', async () => {
		const result = await check(['maxmemory 128mb', 'maxmemory-policy noeviction']);
		expect(result.markersSafe).toBe(true);
		expect(result.persistenceWarning).toMatch(
			/^Redis at 127\.0\.0\.1:\d+: no persistence \(appendonly no, save ""\): a restart of Redis loses the dedup "sent" markers .* and the outbox's queued events and dead letters .*Turn on the append-only file/,
		);
		expect((await check(['maxmemory 128mb', 'save 60 1'])).persistenceWarning).toBeUndefined();
	});

	it("a maxmemory too small for one destination's outbox budget above the dedup headroom: a warning with the figures", async () => {
		const result = await check(['maxmemory 32mb', 'maxmemory-policy noeviction', 'appendonly yes']);
		expect(result.headroomWarning).toMatch(
			/maxmemory 32\.0 MB leaves 25\.6 MB to the outbox \(20 % kept for the dedup markers, LEAD_CAPI_REDIS_HEADROOM_PERCENT\), less than one destination's outbox budget of 64\.0 MB \(LEAD_CAPI_OUTBOX_MAX_MB\)/,
		);
	});

	it.each(['allkeys-lru', 'allkeys-lfu', 'allkeys-random'])('%s with maxmemory: a loud warning that markers can be evicted', async (policy) => {
		const result = await check(['maxmemory 32mb', `maxmemory-policy ${policy}`]);
		expect(result.markersSafe).toBe(false);
		expect(result.warning).toMatch(
			new RegExp(`^Redis at 127\\.0\\.0\\.1:\\d+: maxmemory-policy is ${policy} with maxmemory 32\\.0 MB: when Redis fills up it may evict the dedup "sent" markers \\(a re-run then sends those events again — duplicates nobody is told about\\) and the outbox's queued events and dead letters \\(gone with no dead letter and no message\\) \\(allkeys-\\* policies evict any key\\)\\. Set maxmemory-policy to noeviction`),
		);
		expect(result.warning).toMatch(/keep the capture log in another database or instance/);
	});

	it.each(['volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl'])(
		'%s: markers carry a TTL, so they can be evicted too',
		async (policy) => {
			const result = await check(['maxmemory 32mb', `maxmemory-policy ${policy}`]);
			expect(result.markersSafe).toBe(false);
			expect(result.warning).toMatch(/the outbox's queued events and dead letters .*every key this package writes has a TTL \(sent markers: 30 days; outbox queues: their platform's window and a day; dead letters: 30 days\), so volatile-\* policies may evict them too/);
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
			// Once per connection: the eviction, persistence and headroom lines of one check.
			expect(warnings).toHaveLength(3);
			expect(warnings[0]).toMatch(/^Redis at 127\.0\.0\.1:\d+: maxmemory-policy is allkeys-lru/);
			expect(warnings[1]).toMatch(/no persistence/);
			expect(warnings[2]).toMatch(/outbox budget/);
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
