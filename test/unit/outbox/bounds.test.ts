import type Redis from 'ioredis';
import { waitForReady } from '../../../shared/dedup';
import {
	actOnDeadLetters,
	drainDue,
	outboxKey,
	OutboxStore,
	queueEvent,
	type OutboxEntry,
	type OutboxQueue,
} from '../../../shared/outbox';
import { outboxBounds, OUTBOX_DEFAULTS, OUTBOX_TTL_MARGIN_MS } from '../../../shared/redis/budget';
import { describeRedisMemory, keyFamily } from '../../../shared/redis/memory';
import { dropPrefix, testRedis, uniquePrefix } from '../../support/redisClient';

/** The outbox's bounds (shared/redis/budget.ts, enforced by OutboxStore's write script) in real Redis. */
const key = outboxKey('outbox-bounds-unit-secret-0001');
const down: OutboxQueue = { platform: 'meta', destination: 'px-down' };
const healthy: OutboxQueue = { platform: 'meta', destination: 'px-healthy' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const entry = (id: string, deadline = 7 * DAY): OutboxEntry => ({
	event_id: id,
	event_name: 'Lead',
	event_time: 0,
	payload: { event_id: id, user_data: { em: ['a'.repeat(64)], ph: ['b'.repeat(64)] } },
	attempts: 1,
	deadline,
	queued_at: 0,
});

describe('the bounded outbox', () => {
	let redis: Redis;
	let prefix: string;
	beforeAll(async () => {
		redis = testRedis();
		await waitForReady(redis, 5_000);
	});
	beforeEach(() => {
		prefix = uniquePrefix('outbox-bounds');
	});
	afterEach(() => dropPrefix(redis, prefix));
	afterAll(() => redis.quit());

	it('reads its settings from the environment, the defaults where unset or unreadable', () => {
		expect(outboxBounds({})).toEqual(OUTBOX_DEFAULTS);
		expect(OUTBOX_DEFAULTS).toEqual({ maxBytes: 64 * 1024 * 1024, deadLetterMs: 30 * DAY, headroomPercent: 20 });
		expect(
			outboxBounds({ LEAD_CAPI_OUTBOX_MAX_MB: '2', LEAD_CAPI_DEAD_LETTER_DAYS: '7', LEAD_CAPI_REDIS_HEADROOM_PERCENT: 'x' }),
		).toEqual({ maxBytes: 2 * 1024 * 1024, deadLetterMs: 7 * DAY, headroomPercent: 20 });
	});

	it("refuses only the full destination's new events, loudly; a queued event is still queued again", async () => {
		const store = new OutboxStore(redis, prefix, { maxBytes: 20_000 });
		let accepted = 0;
		let refusal: Awaited<ReturnType<typeof queueEvent>> | undefined;
		for (let i = 0; i < 100 && !refusal; i++) {
			const queued = await queueEvent(store, key, down, entry(`e${i}`), { now: 0, dueAt: HOUR });
			if (queued.queued) accepted++;
			else refusal = queued;
		}
		expect(accepted).toBeGreaterThan(5);
		expect(refusal).toMatchObject({ queued: false, refused: 'budget' });
		const message = (refusal as { message: string }).message;
		expect(message).toContain('the outbox of meta destination px-down is full');
		expect(message).toContain('LEAD_CAPI_OUTBOX_MAX_MB');
		expect(message).toContain('other destinations are not affected');
		const bytes = await store.bytes(down);
		expect(bytes.queued).toBeLessThanOrEqual(20_000);
		expect(bytes.queued).toBe(
			(Object.values(await redis.hgetall(`${prefix}:outbox:{meta:px-down}:entries`)) as string[]).reduce(
				(n, s) => n + s.length,
				0,
			),
		);
		// The same event queued again (a drained retry) is never refused.
		expect((await queueEvent(store, key, down, entry('e0'), { now: 0, dueAt: 2 * HOUR })).queued).toBe(true);
		// Another destination on the same Redis keeps queueing.
		expect((await queueEvent(store, key, healthy, entry('h1'), { now: 0, dueAt: HOUR })).queued).toBe(true);
	});

	it('gives every outbox key a TTL: queued events past their deadline plus the margin, dead letters their keep time', async () => {
		const store = new OutboxStore(redis, prefix, { deadLetterMs: 2 * DAY });
		const now = Date.now();
		await queueEvent(store, key, down, entry('e1', now + 7 * DAY), { now, dueAt: now });
		await queueEvent(store, key, down, entry('e2', now + 7 * DAY), { now, dueAt: now });
		await store.deadLetter(down, 'e2', 'rejected', 'bad', now);
		const keys = await redis.keys(`${prefix}:*`);
		expect(keys.length).toBeGreaterThanOrEqual(7);
		for (const k of keys) expect([k, await redis.pttl(k)]).toEqual([k, expect.any(Number)]);
		for (const k of keys) expect(await redis.pttl(k)).toBeGreaterThan(0);
		const entriesTtl = await redis.pttl(`${prefix}:outbox:{meta:px-down}:entries`);
		expect(entriesTtl).toBeGreaterThan(7 * DAY);
		expect(entriesTtl).toBeLessThanOrEqual(7 * DAY + OUTBOX_TTL_MARGIN_MS);
		expect(await redis.pttl(`${prefix}:outbox:{meta:px-down}:dead`)).toBeLessThanOrEqual(2 * DAY);
	});

	it('drops dead letters older than their keep time at the next write; purge and replay keep the byte count', async () => {
		const store = new OutboxStore(redis, prefix, { deadLetterMs: DAY });
		await queueEvent(store, key, down, entry('old'), { now: 0, dueAt: 0 });
		await store.deadLetter(down, 'old', 'rejected', 'x', 0);
		await queueEvent(store, key, down, entry('new'), { now: 0, dueAt: 0 });
		await store.deadLetter(down, 'new', 'rejected', 'x', DAY / 2);
		expect((await store.deadLetters(down)).map((d) => d.event_id).sort()).toEqual(['new', 'old']);
		// Listed as of a time past the old one's keep time: it is not shown, even before it is dropped.
		expect((await store.deadLetters(down, DAY + 1)).map((d) => d.event_id)).toEqual(['new']);
		await queueEvent(store, key, down, entry('later'), { now: DAY + 1, dueAt: DAY + 1 });
		expect((await store.deadLetters(down)).map((d) => d.event_id)).toEqual(['new']);
		expect((await store.bytes(down)).dead).toBe((await redis.hstrlen(`${prefix}:outbox:{meta:px-down}:dead`, 'new')));
		expect(await store.replay(down, ['new'], DAY + 2)).toBe(1);
		expect((await store.bytes(down)).dead).toBe(0);
		const drained = await drainDue(store, key, { now: DAY + 3, limit: 10 });
		expect(drained.due.map((d) => d.event_id).sort()).toEqual(['later', 'new']);
		await store.deadLetter(down, 'new', 'rejected', 'y', DAY + 4);
		expect(await store.purge(down, ['new', 'missing'])).toBe(1);
		expect((await store.bytes(down)).dead).toBe(0);
	});

	it('Replay and Purge act on their selection only and count what they did', async () => {
		const store = new OutboxStore(redis, prefix);
		for (const [id, at] of [['a', 0], ['b', 3 * DAY], ['c', 9 * DAY]] as const) {
			await queueEvent(store, key, down, entry(id, 30 * DAY), { now: at, dueAt: at });
			await store.deadLetter(down, id, 'rejected', 'no', at);
		}
		const now = 10 * DAY;
		expect(await actOnDeadLetters(store, down, 'purge', { by: 'age', olderThanMs: 5 * DAY }, now)).toEqual({
			...down,
			found: 3,
			selected: 2,
			done: 2,
			left: 1,
		});
		expect(await actOnDeadLetters(store, down, 'replay', { by: 'ids', ids: ['a', 'c'] }, now)).toEqual({
			...down,
			found: 1,
			selected: 1,
			done: 1,
			left: 0,
		});
		expect(await store.pendingCount(down)).toBe(1);
	});

	it("says what the outbox holds when Redis is full: its families and its bytes", async () => {
		expect(keyFamily('leadcapi:acme:outbox:{meta:px}:entries')).toBe('outbox queued events');
		expect(keyFamily('leadcapi:outbox:{meta:px}:dead')).toBe('outbox dead letters');
		expect(keyFamily('leadcapi:outbox:queues')).toBe('outbox queued events');
		const store = new OutboxStore(redis, prefix);
		await queueEvent(store, key, down, entry('e1'), { now: 0, dueAt: 0 });
		expect(await describeRedisMemory(redis)).toMatch(/the outbox [\d.]+ (B|KB|MB) of queued events in \d+ queues? and [\d.]+ (B|KB|MB) of dead letters/);
	});

	it('a queue written before the bounds (no TTLs) is not given a short TTL by a removal; its next queued event gives it its own', async () => {
		const store = new OutboxStore(redis, prefix);
		const entries = `${prefix}:outbox:{meta:px-down}:entries`;
		await queueEvent(store, key, down, entry('old', 90 * DAY), { now: 0, dueAt: 0 });
		await queueEvent(store, key, down, entry('old2', 90 * DAY), { now: 0, dueAt: 0 });
		await redis.persist(entries);
		await redis.persist(`${prefix}:outbox:{meta:px-down}:due`);
		await store.remove(down, 'old2');
		expect(await redis.pttl(entries)).toBe(-1);
		expect(await store.pendingCount(down)).toBe(1);
		await queueEvent(store, key, down, entry('new', 90 * DAY), { now: 0, dueAt: 0 });
		expect(await redis.pttl(entries)).toBeGreaterThan(90 * DAY);
	});
});
