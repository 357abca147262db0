import type Redis from 'ioredis';
import { dispatch, metaAdapter, RedisDedupStore, Transport, waitForReady, type DispatchItem } from '../../shared';
import { crmLead } from '../support/leads';
import { adminRedis, dropPrefix, testRedis, uniquePrefix, watchCommands } from '../support/redisClient';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'large-dispatch-token-0123456789';
type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

/**
 * A dispatch larger than the platform's batch limit, against a real Redis and the Meta
 * stand-in: it is claimed, sent and settled batch by batch — two Redis round trips and one
 * request per batch of up to 1,000 — and a batch the platform refuses is released on its own,
 * so a re-run sends exactly that batch.
 */
describe('a dispatch of 2,500 leads to Meta with the Redis store', () => {
	let standIn: StandIn;
	let redis: Redis;
	let admin: Redis;
	let prefix: string;

	const leads = (): DispatchItem[] => Array.from({ length: 2500 }, (_, i) => ({ record: crmLead(i), eventName: 'Lead' }));
	const run = (items: DispatchItem[]) =>
		dispatch(items, {
			adapter: metaAdapter,
			config: { pixelId: 'PX-LARGE', accessToken: TOKEN, baseUrl: standIn.url, actionSource: 'auto', limitedDataUse: 'auto' },
			transport: new Transport(),
			store: new RedisDedupStore(redis, { description: 'Redis test' }),
			keyPrefix: prefix,
		});
	const batchSizes = () => standIn.requests.map((r: { events: number }) => r.events).sort((a: number, b: number) => b - a);
	const count = (results: Array<{ status: string }>) =>
		results.reduce<Record<string, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		redis = testRedis();
		admin = adminRedis();
		await waitForReady(redis, 5_000);
	});
	beforeEach(() => {
		standIn.reset();
		prefix = uniquePrefix('large');
	});
	afterEach(() => dropPrefix(admin, prefix));
	afterAll(async () => {
		await standIn.close();
		redis.disconnect();
		admin.disconnect();
	});

	it('sends 3 requests and costs 6 Redis commands (claim + settle per batch); a re-run sends nothing at the same cost', async () => {
		const watch = await watchCommands(redis);
		const first = await run(leads());
		expect(await watch.stop()).toEqual(Array(6).fill('eval'));
		expect(count(first)).toEqual({ sent: 2500 });
		expect(batchSizes()).toEqual([1000, 1000, 500]);
		expect(new Set(standIn.received.map((r: { event: { event_id: string } }) => r.event.event_id)).size).toBe(2500);

		standIn.reset();
		const again = await watchCommands(redis);
		const second = await run(leads());
		expect(await again.stop()).toEqual(Array(6).fill('eval'));
		expect(count(second)).toEqual({ duplicate: 2500 });
		expect(second.every((r) => r.dedup === 'sent_before')).toBe(true);
		expect(standIn.requests).toHaveLength(0);

		const [stats] = await new RedisDedupStore(redis, { description: 'Redis test' }).readStats(prefix, { hours: 1 });
		expect(stats).toMatchObject({ destination: 'PX-LARGE', sent: 2500, duplicate: 2500 });
	});

	it('releases only the batch the platform refused: the re-run sends that batch and nothing else', async () => {
		// The fault hits the first request to arrive; batches are built and sent concurrently, so
		// that is any of the three (items 0–999, 1000–1999 or 2000–2499), whichever is sent first.
		standIn.queueFaults([
			{ status: 400, body: { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } } },
		]);
		const first = await run(leads());
		const refused = first.flatMap((r, i) => (r.status === 'failed' ? [i] : []));
		const batches = [
			[0, 1000],
			[1000, 2000],
			[2000, 2500],
		].map(([from, to]) => Array.from({ length: to - from }, (_, k) => from + k));
		expect(batches).toContainEqual(refused);
		expect(count(first)).toEqual({ sent: 2500 - refused.length, failed: refused.length });

		standIn.reset();
		const second = await run(leads());
		expect(count(second)).toEqual({ sent: refused.length, duplicate: 2500 - refused.length });
		expect(second.flatMap((r, i) => (r.status === 'sent' ? [i] : []))).toEqual(refused);
		expect(batchSizes()).toEqual([refused.length]);
	});
});
