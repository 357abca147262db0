import type Redis from 'ioredis';
import {
	drainDue,
	openDrained,
	outboxKey,
	OutboxStore,
	OutboxWrites,
	planQueue,
	planSettle,
	queueEvent,
	settleDrained,
	type OutboxEntry,
	type OutboxQueue,
} from '../../shared/outbox';
import { waitForReady } from '../../shared/dedup';
import { dropPrefix, testRedis, uniquePrefix, watchCommands } from '../support/redisClient';

const key = outboxKey('outbox-integration-secret-0001');
const q: OutboxQueue = { platform: 'meta', destination: 'px1' };
const HOUR = 3_600_000;

const entry = (id: string, over: Partial<OutboxEntry> = {}): OutboxEntry => ({
	event_id: id,
	event_name: 'Lead',
	event_time: 1_000,
	payload: { event_id: id, user_data: { em: ['hashed-email-value'] } },
	attempts: 1,
	deadline: 100 * HOUR,
	queued_at: 0,
	...over,
});

describe('outbox in real Redis', () => {
	let redis: Redis;
	let prefix: string;
	let store: OutboxStore;
	beforeAll(async () => {
		redis = testRedis();
		await waitForReady(redis, 5_000);
	});
	beforeEach(() => {
		prefix = uniquePrefix('outbox');
		store = new OutboxStore(redis, prefix);
	});
	afterEach(() => dropPrefix(redis, prefix));
	afterAll(() => redis.quit());

	it('queues an event sealed: nothing in Redis reads as the event', async () => {
		const queued = await queueEvent(store, key, q, entry('e1'), { now: 0, random: () => 0 });
		expect(queued).toEqual({ queued: true, nextTry: 30_000, attempts: 1 });
		const keys = await redis.keys(`${prefix}:*`);
		for (const k of keys) {
			const type = await redis.type(k);
			const dump =
				type === 'hash'
					? JSON.stringify(await redis.hgetall(k))
					: type === 'zset'
						? JSON.stringify(await redis.zrange(k, 0, -1))
						: type === 'string'
							? JSON.stringify(await redis.get(k))
							: JSON.stringify(await redis.smembers(k));
			expect(dump).not.toContain('hashed-email-value');
			expect(dump).not.toContain('user_data');
		}
	});

	it('drains only what is due, once, even with two drainers polling at once', async () => {
		for (let i = 0; i < 50; i++) await queueEvent(store, key, q, entry(`e${i}`), { now: 0 });
		expect((await drainDue(store, key, { now: 1_000, limit: 100 })).due).toHaveLength(0);
		const [a, b] = await Promise.all([
			drainDue(store, key, { now: HOUR, limit: 100 }),
			drainDue(new OutboxStore(redis, prefix), key, { now: HOUR, limit: 100 }),
		]);
		const ids = [...a.due, ...b.due].map((d) => d.event_id);
		expect(ids).toHaveLength(50);
		expect(new Set(ids).size).toBe(50);
		// Reserved for the drainer that took them; due again once the lease ends.
		expect((await drainDue(store, key, { now: HOUR + 1, limit: 100 })).due).toHaveLength(0);
		expect((await drainDue(store, key, { now: 2 * HOUR, limit: 100 })).due).toHaveLength(50);
	});

	it('an entry it cannot open goes to dead letters with the reason; the others go on', async () => {
		await queueEvent(store, key, q, entry('good'), { now: 0 });
		await queueEvent(store, outboxKey('the-old-rotated-outbox-key'), q, entry('old'), { now: 0 });
		const drained = await drainDue(store, key, { now: 2 * HOUR, limit: 10 });
		expect(drained.due.map((d) => d.event_id)).toEqual(['good']);
		expect(drained.deadLettered).toEqual([{ ...q, event_id: 'old', reason: 'undecryptable' }]);
		const dead = await store.deadLetters(q);
		expect(dead).toHaveLength(1);
		expect(dead[0].message).toMatch(/another key/);
	});

	it('an event whose window passes while queued is dead-lettered `expired`, never handed out', async () => {
		await queueEvent(store, key, q, entry('late', { deadline: HOUR }), { now: 0 });
		const drained = await drainDue(store, key, { now: 2 * HOUR, limit: 10 });
		expect(drained.due).toHaveLength(0);
		expect((await store.deadLetters(q))[0]).toMatchObject({ event_id: 'late', reason: 'expired' });
	});

	it('settles drained sends: delivered removed, retryable re-queued with one more attempt, rejected dead', async () => {
		for (const id of ['ok', 'again', 'bad']) await queueEvent(store, key, q, entry(id), { now: 0 });
		await settleDrained(store, key, q, entry('ok'), { status: 'sent' }, { now: HOUR });
		const again = await settleDrained(
			store,
			key,
			q,
			entry('again'),
			{ status: 'failed', retryable: true, error: '503' },
			{ now: HOUR, random: () => 0 },
		);
		expect(again).toEqual({ queued: true, nextTry: HOUR + 60_000, attempts: 2 });
		await settleDrained(
			store,
			key,
			q,
			entry('bad'),
			{ status: 'failed', retryable: false, error: 'invalid pixel' },
			{ now: HOUR },
		);
		expect(await store.pendingCount(q)).toBe(1);
		expect(await store.deadLetters(q)).toEqual([
			{ event_id: 'bad', reason: 'rejected', message: 'invalid pixel', at: HOUR },
		]);
	});

	it("a drained Google event skipped as 'retry later' (too recent) is queued again, never dead-lettered", async () => {
		await queueEvent(store, key, q, entry('recent'), { now: 0 });
		const later = await settleDrained(
			store,
			key,
			q,
			entry('recent'),
			{ status: 'skipped', retryable: true, error: 'TOO_RECENT_CONVERSION_ACTION' },
			{ now: HOUR, random: () => 0 },
		);
		expect(later).toEqual({ queued: true, nextTry: HOUR + 60_000, attempts: 2 });
		expect(await store.pendingCount(q)).toBe(1);
		expect(await store.deadLetters(q)).toEqual([]);
	});

	it('replays dead letters under the same event ids, and purges them', async () => {
		for (const id of ['a', 'b']) {
			await queueEvent(store, key, q, entry(id), { now: 0 });
			await store.deadLetter(q, id, 'rejected', 'x', 0);
		}
		expect(await store.replay(q, ['a'], 5)).toBe(1);
		const drained = await drainDue(store, key, { now: 5, limit: 10 });
		expect(drained.due.map((d) => d.event_id)).toEqual(['a']);
		expect(await store.purge(q, 'all')).toBe(1);
		expect(await store.deadLetters(q)).toEqual([]);
	});
	it('a run with many events costs a fixed number of round trips: one script + the listing script to write, one HMGET to read', async () => {
		const n = 300;
		const ids = Array.from({ length: n }, (_, i) => `b${i}`);
		let watch = await watchCommands(redis);
		const writes = new OutboxWrites();
		for (const id of ids) planQueue(key, q, entry(id), { now: 0, dueAt: 0 }, writes);
		await writes.flush(store, 0);
		expect(await watch.stop()).toEqual(['eval', 'eval']);
		expect(await store.pendingCount(q)).toBe(n);

		watch = await watchCommands(redis);
		const drained = await drainDue(store, key, { now: 1, limit: n });
		expect(drained.due).toHaveLength(n);
		const opened = await openDrained(store, key, q, ids, 1);
		expect(await watch.stop()).toEqual(['smembers', 'eval', 'hmget']);
		expect(opened.every((o) => o.ok)).toBe(true);

		// Settled in one go: a third delivered, a third queued again, a third refused.
		watch = await watchCommands(redis);
		const settle = new OutboxWrites();
		opened.forEach((o, i) => {
			if (!o.ok) return;
			const sent =
				i % 3 === 0
					? { status: 'sent' as const }
					: i % 3 === 1
						? { status: 'failed' as const, retryable: true, error: '503' }
						: { status: 'failed' as const, retryable: false, error: 'invalid' };
			planSettle(key, q, o.entry, sent, { now: HOUR }, settle);
		});
		await settle.flush(store, HOUR);
		expect(await watch.stop()).toEqual(['eval', 'eval']);
		expect(await store.pendingCount(q)).toBe(n / 3);
		const dead = await store.deadLetters(q);
		expect(dead).toHaveLength(n / 3);
		expect(dead.every((d) => d.reason === 'rejected' && d.message === 'invalid')).toBe(true);
		// The dead letters keep their sealed events: replayed, they open again.
		expect(await store.replay(q, 'all', 2 * HOUR)).toBe(n / 3);
		const back = await openDrained(
			store,
			key,
			q,
			dead.map((d) => d.event_id),
			2 * HOUR,
		);
		expect(back.every((o) => o.ok)).toBe(true);
	});

	it('an expired next try is dead-lettered with the entry as it stood (its attempts), in the same write', async () => {
		const writes = new OutboxWrites();
		const planned = planQueue(
			key,
			q,
			entry('x', { deadline: 10_000, attempts: 3 }),
			{ now: 0 },
			writes,
		);
		expect(planned).toMatchObject({ queued: false, reason: 'expired' });
		await writes.flush(store, 0);
		expect(await store.pendingCount(q)).toBe(0);
		expect((await store.deadLetters(q))[0]).toMatchObject({ event_id: 'x', reason: 'expired' });
		await store.replay(q, ['x'], 0);
		const [opened] = await openDrained(store, key, q, ['x'], 10_000);
		expect(opened).toMatchObject({ ok: false, reason: 'expired' });
		const [loaded] = await store.load(q, ['x']);
		const { open } = await import('../../shared/outbox/crypto');
		expect(open<OutboxEntry>(key, loaded!, `meta|px1|x`).attempts).toBe(3);
	});
});
