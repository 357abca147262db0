import type Redis from 'ioredis';
import {
	buildPreview,
	CaptureLog,
	captureLogKey,
	dispatch,
	MemoryDedupStore,
	metaAdapter,
	namespacedPrefix,
	RedisDedupStore,
	Transport,
	type DedupStore,
	type DispatchItem,
	type meta,
} from '../../shared';
import { webLead, crmLead } from '../support/leads';
import { adminRedis, dropPrefix, testRedis, uniquePrefix, watchCommands } from '../support/redisClient';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'agency-token-0123456789';
type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

/**
 * Agencies run one workflow template per client. Two clients whose CRMs number records the
 * same way must never dedup, log or preview against each other.
 */
describe('agency separation', () => {
	let standIn: StandIn;
	let redis: Redis;
	let admin: Redis;
	let prefix: string;

	const config = (pixelId: string): meta.MetaConfig => ({
		pixelId,
		accessToken: TOKEN,
		baseUrl: standIn.url,
		actionSource: 'auto',
		limitedDataUse: 'auto',
	});
	const send = (
		items: DispatchItem[],
		pixelId: string,
		clientKey: string | undefined,
		store: DedupStore = new RedisDedupStore(redis, { description: 'Redis test' }),
	) =>
		dispatch(items, {
			adapter: metaAdapter,
			config: config(pixelId),
			transport: new Transport(),
			store,
			keyPrefix: namespacedPrefix(prefix, clientKey),
			clientKey,
		});
	const sameRecords = () => [0, 1, 2].map((i) => ({ record: crmLead(i), eventName: 'Lead' }));

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		redis = testRedis();
		admin = adminRedis();
	});
	beforeEach(() => {
		standIn.reset();
		prefix = uniquePrefix('agency');
	});
	afterEach(() => dropPrefix(admin, prefix));
	afterAll(async () => {
		await standIn.close();
		redis.disconnect();
		admin.disconnect();
	});

	it('two clients with the same record ids and their own pixels each send every lead once', async () => {
		const acme = await send(sameRecords(), 'PIXEL_ACME', 'acme');
		const globex = await send(sameRecords(), 'PIXEL_GLOBEX', 'globex');
		expect(acme.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(globex.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(acme[0].event_id).not.toBe(globex[0].event_id);
		expect(standIn.received.map((r: { pixelId: string }) => r.pixelId).sort()).toEqual([
			'PIXEL_ACME', 'PIXEL_ACME', 'PIXEL_ACME', 'PIXEL_GLOBEX', 'PIXEL_GLOBEX', 'PIXEL_GLOBEX',
		]);
		// Each client's re-run is a duplicate only of its own sends.
		expect((await send(sameRecords(), 'PIXEL_ACME', 'acme')).map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect((await send(sameRecords(), 'PIXEL_GLOBEX', 'globex')).map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(standIn.received).toHaveLength(6);
		const keys = await admin.keys(`${prefix}:*`);
		expect(keys.filter((k) => k.startsWith(`${prefix}:acme:meta:PIXEL_ACME:`))).toHaveLength(3);
		expect(keys.filter((k) => k.startsWith(`${prefix}:globex:meta:PIXEL_GLOBEX:`))).toHaveLength(3);
	});

	it('two clients sharing a pixel both get every lead delivered: their event ids differ', async () => {
		const acme = await send(sameRecords(), 'SHARED_PIXEL', 'acme');
		const globex = await send(sameRecords(), 'SHARED_PIXEL', 'globex');
		expect(acme.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(globex.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		// Same pixel, same record ids: with the Client Key in the event id, Meta's own
		// event_id + event_name dedup keeps all six (before, it dropped globex's three).
		const delivered = new Set(
			standIn.received.map(
				(r: { pixelId: string; event: { event_id: string; event_name: string } }) =>
					`${r.pixelId}|${r.event.event_name}|${r.event.event_id}`,
			),
		);
		expect(delivered.size).toBe(6);
		expect(acme.map((r) => r.event_id)).not.toEqual(globex.map((r) => r.event_id));
		expect((await admin.keys(`${prefix}:acme:*`)).filter((k) => !k.includes(':stats:'))).toHaveLength(3);
		expect((await admin.keys(`${prefix}:globex:*`)).filter((k) => !k.includes(':stats:'))).toHaveLength(3);
	});

	it('one advertiser split across workflows shares its events by using the same Client Key', async () => {
		// Workflow A (web form) and workflow B (CRM sync) send the same records to one pixel.
		const first = await send(sameRecords(), 'SHARED_PIXEL', 'acme');
		const second = await send(sameRecords(), 'SHARED_PIXEL', 'acme');
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(second.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(second.map((r) => r.event_id)).toEqual(first.map((r) => r.event_id));
	});

	it('keeps capture logs and previews apart', async () => {
		const acmeLog = new CaptureLog(redis, { key: captureLogKey(namespacedPrefix(prefix, 'acme'), 'site') });
		const globexLog = new CaptureLog(redis, { key: captureLogKey(namespacedPrefix(prefix, 'globex'), 'site') });
		for (let i = 0; i < 3; i++) await acmeLog.append(webLead(i, { contact: { email: `a${i}@acme.com` } }));
		for (let i = 0; i < 5; i++) await globexLog.append(webLead(i, { state: 'partial', contact: { email: `g${i}@gmail.com` } }));
		const preview = async (log: CaptureLog) =>
			buildPreview(
				{ mode: 'automatic_match', rulesApplyTo: 'all', rules: { combinator: 'and', conditions: [{ field: 'contact.email', match_type: 'is_work_email' }] } },
				(await log.readWindow()).entries,
				{},
			);
		expect((await preview(acmeLog)).summary).toBe('would have matched 3 of 3 capture-ready leads in the last 7 days');
		expect((await preview(globexLog)).summary).toBe('would have matched 0 of 5 capture-ready leads in the last 7 days');
	});

	it('refuses a client key that could break the key layout', () => {
		expect(() => namespacedPrefix('leadcapi', 'acme:meta')).toThrow(/client key/);
		expect(() => namespacedPrefix('leadcapi', 'a b')).toThrow(/client key/);
		expect(namespacedPrefix('leadcapi', ' acme ')).toBe('leadcapi:acme');
		expect(namespacedPrefix(undefined, undefined)).toBe('leadcapi');
	});
});

describe('health counters per destination', () => {
	let standIn: StandIn;
	let redis: Redis;
	let admin: Redis;
	let prefix: string;

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		redis = testRedis();
		admin = adminRedis();
	});
	beforeEach(() => {
		prefix = uniquePrefix('stats');
	});
	afterEach(() => dropPrefix(admin, prefix));
	afterAll(async () => {
		await standIn.close();
		redis.disconnect();
		admin.disconnect();
	});

	it.each([
		['Redis', () => new RedisDedupStore(redis, { description: 'Redis test' })],
		['in-memory', () => new MemoryDedupStore()],
	])('counts sent, duplicate, skipped and failed with the match keys of what was sent (%s)', async (_name, makeStore) => {
		const store: DedupStore = makeStore();
		const run = (items: DispatchItem[], clientKey?: string) =>
			dispatch(items, {
				adapter: metaAdapter,
				config: { pixelId: 'PX1', accessToken: TOKEN, baseUrl: standIn.url, actionSource: 'auto', limitedDataUse: 'auto' },
				transport: new Transport(),
				store,
				keyPrefix: namespacedPrefix(prefix, clientKey),
				eventWindowPolicy: 'skip',
			});
		await run([
			{ record: webLead(1), eventName: 'Lead' },
			{ record: crmLead(2), eventName: 'Lead' },
			{ record: crmLead(3, { occurred_at: new Date(Date.now() - 30 * 86400_000).toISOString() }), eventName: 'Lead' },
			{ record: { record_id: 'x', contact: { city: 'Oslo' } }, eventName: 'Lead' },
		]);
		await run([{ record: webLead(1), eventName: 'Lead' }]);
		await run([{ record: crmLead(9), eventName: 'Lead' }], 'otherclient');
		const [stats] = await store.readStats(prefix, { hours: 24 });
		expect(stats).toMatchObject({
			platform: 'meta',
			destination: 'PX1',
			window_hours: 24,
			sent: 2,
			duplicate: 1,
			skipped: 1,
			failed: 1,
			match_keys: { em: { count: 2, share: 1 }, ph: { count: 2, share: 1 }, fbc: { count: 1, share: 0.5 } },
		});
		expect(stats.match_quality).toBeGreaterThan(0);
		expect(await store.readStats(prefix, { hours: 24 })).toHaveLength(1);
		expect((await store.readStats(`${prefix}:otherclient`, { hours: 24 }))[0]).toMatchObject({ sent: 1 });
	});

	it('writes the counters in the settle round trip (claim + settle = 2 commands)', async () => {
		const store = new RedisDedupStore(redis, { description: 'Redis test' });
		const watch = await watchCommands(redis);
		await dispatch([0, 1, 2, 3].map((i) => ({ record: crmLead(i), eventName: 'Lead' })), {
			adapter: metaAdapter,
			config: { pixelId: 'PX2', accessToken: TOKEN, baseUrl: standIn.url, actionSource: 'auto', limitedDataUse: 'auto' },
			transport: new Transport(),
			store,
			keyPrefix: prefix,
		});
		expect(await watch.stop()).toEqual(['eval', 'eval']);
		const [stats] = await store.readStats(prefix, { hours: 1 });
		expect(stats).toMatchObject({ destination: 'PX2', sent: 4 });
	});
});
