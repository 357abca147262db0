import type Redis from 'ioredis';
import {
	dedupKey,
	DedupStoreError,
	MemoryDedupStore,
	storeTimedOut,
	RedisDedupStore,
	createRedisClient,
	waitForReady,
	type DedupStore,
} from '../../shared/dedup';
import { adminRedis, dropPrefix, testRedis, uniquePrefix, watchCommands } from '../support/redisClient';
import { startStandaloneRedis } from '../support/redisTopology';

const HOUR = 3_600_000;

interface Harness {
	store: DedupStore;
	/** A second store instance (another process's view of the same storage). */
	other: () => DedupStore;
	/** Lets claims made with `ttlMs` expire. */
	expire: (ttlMs: number) => Promise<void>;
	close: () => Promise<void>;
}

function memoryHarness(): Harness {
	let now = 1_000_000;
	const store = new MemoryDedupStore(() => now);
	return {
		store,
		other: () => store,
		expire: async (ttlMs) => {
			now += ttlMs + 1;
		},
		close: async () => undefined,
	};
}

function redisHarness(): Harness {
	const clients: Redis[] = [];
	const make = () => {
		const client = testRedis();
		clients.push(client);
		return new RedisDedupStore(client, { description: 'Redis test' });
	};
	const store = make();
	return {
		store,
		other: make,
		expire: (ttlMs) => new Promise((r) => setTimeout(r, ttlMs + 60)),
		close: async () => {
			for (const c of clients) c.disconnect();
		},
	};
}

describe.each([
	['MemoryDedupStore', memoryHarness],
	['RedisDedupStore', redisHarness],
])('%s', (_name, makeHarness) => {
	let h: Harness;
	let prefix: string;
	const key = (id: string) => dedupKey(prefix, 'meta', 'px1', id);

	beforeEach(() => {
		h = makeHarness();
		prefix = uniquePrefix('store');
	});
	afterEach(() => h.close());

	it('claims new keys once; a committed key reads as sent to every later claimer', async () => {
		const first = await h.store.claimBatch([key('a'), key('b')], HOUR);
		expect(first.outcomes).toEqual(['claimed', 'claimed']);
		const settled = await h.store.settleBatch(first.token, {
			commit: [key('a')],
			release: [key('b')],
			committedTtlMs: HOUR,
		});
		expect(settled).toEqual({ committed: 1, released: 1, notOwned: [] });
		const again = await h.other().claimBatch([key('a'), key('b'), key('c')], HOUR);
		expect(again.outcomes).toEqual(['sent', 'claimed', 'claimed']);
	});

	it('holds a key after an unknown outcome: later claims find it held, not free, until one asks to take it', async () => {
		const run = await h.store.claimBatch([key('ha'), key('hb'), key('hc')], HOUR);
		const settled = await h.store.settleBatch(run.token, {
			commit: [key('ha')],
			hold: [key('hb')],
			release: [key('hc')],
			committedTtlMs: HOUR,
		});
		expect(settled).toEqual({ committed: 1, held: 1, released: 1, notOwned: [] });
		// Past the claim lease, the held marker lasts (the committed TTL).
		await h.expire(50);
		// (A long lease here: the stranger below must find hc owned, however slow the machine.)
		const later = await h.other().claimBatch([key('ha'), key('hb'), key('hc')], HOUR);
		expect(later.outcomes).toEqual(['sent', 'held', 'claimed']);
		// The old run's renewal does not extend it; a stranger cannot hold another's claim.
		expect(await h.store.renewClaims(run.token, [key('hb')], HOUR)).toEqual(['taken']);
		const stranger = await h.other().settleBatch('not-the-owner', {
			commit: [],
			hold: [key('hc')],
			release: [],
			committedTtlMs: HOUR,
		});
		expect(stranger.notOwned).toEqual([key('hc')]);
		// A run that resends unknown outcomes takes it, and then owns it like any claim.
		const resend = await h.other().claimBatch([key('hb')], HOUR, undefined, { takeHeld: true });
		expect(resend.outcomes).toEqual(['claimed']);
		expect((await h.other().claimBatch([key('hb')], HOUR)).outcomes).toEqual(['in_flight']);
	});

	it('lets a run re-claim its own keys with its token', async () => {
		const mine = await h.store.claimBatch([key('own')], HOUR);
		expect((await h.other().claimBatch([key('own')], HOUR, mine.token)).outcomes).toEqual(['claimed']);
		expect((await h.other().claimBatch([key('own')], HOUR)).outcomes).toEqual(['in_flight']);
	});

	it('reports a live claim of another run as in flight', async () => {
		await h.store.claimBatch([key('x')], HOUR);
		const second = await h.other().claimBatch([key('x')], HOUR);
		expect(second.outcomes).toEqual(['in_flight']);
	});

	it('lets only the owner token commit or release', async () => {
		const owner = await h.store.claimBatch([key('o1'), key('o2')], HOUR);
		const stranger = await h.other().settleBatch('not-the-owner', {
			commit: [],
			release: [key('o1')],
			committedTtlMs: HOUR,
		});
		expect(stranger.released).toBe(0);
		expect(stranger.notOwned).toEqual([key('o1')]);
		expect((await h.other().claimBatch([key('o1')], HOUR)).outcomes).toEqual(['in_flight']);
		const strangerCommit = await h.other().settleBatch('not-the-owner', {
			commit: [key('o2')],
			release: [],
			committedTtlMs: HOUR,
		});
		expect(strangerCommit).toEqual({ committed: 0, released: 0, notOwned: [key('o2')] });
		const settled = await h.store.settleBatch(owner.token, {
			commit: [key('o2')],
			release: [key('o1')],
			committedTtlMs: HOUR,
		});
		expect(settled).toEqual({ committed: 1, released: 1, notOwned: [] });
	});

	it('frees a crashed run\'s claims when they expire', async () => {
		await h.store.claimBatch([key('crash')], 150);
		await h.expire(150);
		const retry = await h.other().claimBatch([key('crash')], HOUR);
		expect(retry.outcomes).toEqual(['claimed']);
	});

	it('still records a send whose claim expired when nobody else took the key', async () => {
		const slow = await h.store.claimBatch([key('slow')], 150);
		await h.expire(150);
		const settled = await h.store.settleBatch(slow.token, {
			commit: [key('slow')],
			release: [],
			committedTtlMs: HOUR,
		});
		expect(settled.committed).toBe(1);
		expect((await h.other().claimBatch([key('slow')], HOUR)).outcomes).toEqual(['sent']);
	});

	it('forgets a committed key after the committed TTL', async () => {
		const c = await h.store.claimBatch([key('ttl')], HOUR);
		await h.store.settleBatch(c.token, { commit: [key('ttl')], release: [], committedTtlMs: 150 });
		await h.expire(150);
		expect((await h.other().claimBatch([key('ttl')], HOUR)).outcomes).toEqual(['claimed']);
	});

	it('renews a lease: extends only the keys this run still holds, says what happened to the others', async () => {
		const mine = await h.store.claimBatch([key('l1')], HOUR);
		await h.store.claimBatch([key('l2'), key('l3'), key('l4')], 150, mine.token);
		// l2 is then committed by another run, l3 claimed by another, l4 expired with nobody on it.
		await h.expire(150);
		const other = await h.other().claimBatch([key('l2'), key('l3')], HOUR);
		await h.other().settleBatch(other.token, { commit: [key('l2')], release: [], committedTtlMs: HOUR });
		const keys = [key('l1'), key('l2'), key('l3'), key('l4')];
		expect(await h.store.renewClaims(mine.token, keys, HOUR)).toEqual(['held', 'sent', 'taken', 'expired']);
		// The renewal took nothing: l4 is free for the next claimer, l1 is still this run's.
		expect((await h.other().claimBatch([key('l1'), key('l4')], HOUR)).outcomes).toEqual(['in_flight', 'claimed']);
		expect(await h.store.renewClaims(mine.token, [], HOUR)).toEqual([]);
	});

	it('a renewed lease outlives its first TTL; an unrenewed one expires', async () => {
		const mine = await h.store.claimBatch([key('r1'), key('r2')], 1_000);
		await h.expire(50);
		expect(await h.store.renewClaims(mine.token, [key('r1')], HOUR)).toEqual(['held']);
		await h.expire(1_000);
		expect((await h.other().claimBatch([key('r1'), key('r2')], HOUR)).outcomes).toEqual(['in_flight', 'claimed']);
	});

	it('reads the stage ledger of each key it claims in the claim itself; keys not claimed or without a ledger key are not read', async () => {
		const ledger = (id: string) => `${prefix}:ledger:meta:px1:${id}`;
		const sent = await h.store.claimBatch([key('l-sent')], HOUR);
		await h.store.settleBatch(sent.token, {
			commit: [key('l-sent')],
			release: [],
			committedTtlMs: HOUR,
			ledger: [
				{ key: ledger('known'), gateKey: key('l-sent'), ttlMs: HOUR, set: { 'stage:Lead': '10' }, setIfAbsent: { first_event: 'Lead' } },
			],
		});
		const keys = [key('l-known'), key('l-new'), key('l-sent'), key('l-none')];
		const claim = await h.store.claimBatch(keys, HOUR, undefined, {
			ledgerKeys: [ledger('known'), ledger('new'), ledger('known'), undefined],
		});
		expect(claim.outcomes).toEqual(['claimed', 'claimed', 'sent', 'claimed']);
		expect(claim.ledger).toEqual([{ 'stage:Lead': '10', first_event: 'Lead' }, null, undefined, undefined]);
		expect((await h.store.claimBatch([key('l-other')], HOUR)).ledger).toBeUndefined();
	});

	it('a ledger write keeps the first value of each set-if-absent field and overwrites the set ones', async () => {
		const ledgerKey = `${prefix}:ledger:meta:px1:lead`;
		const write = async (id: string, set: Record<string, string>, setIfAbsent: Record<string, string>) => {
			const claim = await h.store.claimBatch([key(id)], HOUR);
			await h.store.settleBatch(claim.token, {
				commit: [key(id)],
				release: [],
				committedTtlMs: HOUR,
				ledger: [{ key: ledgerKey, gateKey: key(id), ttlMs: HOUR, set, setIfAbsent }],
			});
		};
		await write('w1', { 'stage:Lead': '10', sent: '11' }, { created: '5', first_event: 'Lead' });
		await write('w2', { 'stage:Won': '20', sent: '21' }, { created: '6', first_event: 'Won', 'id:gclid': 'g1' });
		// A field in both: the set value, as when the set fields were written first.
		await write('w3', { src: 'set' }, { src: 'absent', 'id:gclid': 'g2' });
		expect(await h.store.readLedger([ledgerKey])).toEqual([
			{ 'stage:Lead': '10', 'stage:Won': '20', sent: '21', created: '5', first_event: 'Lead', 'id:gclid': 'g1', src: 'set' },
		]);
	});

	it('handles empty batches without touching storage', async () => {
		const c = await h.store.claimBatch([], HOUR);
		expect(c.outcomes).toEqual([]);
		expect(await h.store.settleBatch(c.token, { commit: [], release: [], committedTtlMs: HOUR })).toEqual({
			committed: 0,
			released: 0,
			notOwned: [],
		});
	});
});

describe('RedisDedupStore against a real Redis', () => {
	const clients: Redis[] = [];
	const client = () => {
		const c = testRedis();
		clients.push(c);
		return c;
	};
	let admin: Redis;
	let prefix: string;

	beforeAll(() => {
		admin = adminRedis();
		clients.push(admin);
	});
	beforeEach(() => {
		prefix = uniquePrefix('redis');
	});
	afterEach(() => dropPrefix(admin, prefix));
	afterAll(() => clients.forEach((c) => c.disconnect()));

	it('gives each key exactly one winner among 8 concurrent claimers on separate connections', async () => {
		const keys = Array.from({ length: 500 }, (_, i) => dedupKey(prefix, 'meta', 'px', `e${i}`));
		const stores = Array.from({ length: 8 }, () => new RedisDedupStore(client(), { description: 'r' }));
		// Each claimer asks for the keys in its own order, so the scripts interleave differently.
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

	it('claims and settles a batch of 1,000 keys in one round trip each', async () => {
		const own = client();
		await waitForReady(own, 2000);
		const store = new RedisDedupStore(own, { description: 'r' });
		const keys = Array.from({ length: 1000 }, (_, i) => dedupKey(prefix, 'meta', 'px', `k${i}`));
		const watch = await watchCommands(own);
		const claim = await store.claimBatch(keys, HOUR);
		await store.settleBatch(claim.token, {
			commit: keys.slice(0, 600),
			release: keys.slice(600),
			committedTtlMs: HOUR,
		});
		expect(await watch.stop()).toEqual(['eval', 'eval']);
		expect(claim.outcomes.filter((o) => o === 'claimed')).toHaveLength(1000);
	});

	it('renews the lease of 1,000 in-flight keys in one round trip', async () => {
		const own = client();
		await waitForReady(own, 2000);
		const store = new RedisDedupStore(own, { description: 'r' });
		const keys = Array.from({ length: 1000 }, (_, i) => dedupKey(prefix, 'meta', 'px', `n${i}`));
		const claim = await store.claimBatch(keys, 1_000);
		const watch = await watchCommands(own);
		expect(new Set(await store.renewClaims(claim.token, keys, HOUR))).toEqual(new Set(['held']));
		expect(await watch.stop()).toEqual(['eval']);
		expect(await admin.pttl(keys[999])).toBeGreaterThan(HOUR - 10_000);
	});

	it('stores nothing but a claim marker or "s" under the key layout <prefix>:<platform>:<destination>:<event_id>', async () => {
		const store = new RedisDedupStore(client(), { description: 'r' });
		const k = dedupKey(prefix, 'meta', '1234567890', 'f59b5c3e5f42a46735afa2a4e5becf6d10fcbfd7b53e5e666c99acaf5e713d82');
		expect(k).toBe(`${prefix}:meta:1234567890:f59b5c3e5f42a46735afa2a4e5becf6d10fcbfd7b53e5e666c99acaf5e713d82`);
		const c = await store.claimBatch([k], 60_000);
		expect(await admin.get(k)).toBe(`c:${c.token}`);
		const claimTtl = await admin.pttl(k);
		expect(claimTtl).toBeGreaterThan(0);
		expect(claimTtl).toBeLessThanOrEqual(60_000);
		await store.settleBatch(c.token, { commit: [k], release: [], committedTtlMs: 30 * 24 * HOUR });
		expect(await admin.get(k)).toBe('s');
		expect(await admin.pttl(k)).toBeGreaterThan(29 * 24 * HOUR);
	});

	it('a ledger key that is not a hash does not stop the claim: that read is an error naming the store, the others are read', async () => {
		const store = new RedisDedupStore(client(), { description: 'Redis test' });
		const keys = [dedupKey(prefix, 'meta', 'px', 'wt1'), dedupKey(prefix, 'meta', 'px', 'wt2')];
		await admin.set(`${prefix}:ledger:meta:px:broken`, 'not a hash');
		const claim = await store.claimBatch(keys, HOUR, undefined, {
			ledgerKeys: [`${prefix}:ledger:meta:px:broken`, `${prefix}:ledger:meta:px:fine`],
		});
		expect(claim.outcomes).toEqual(['claimed', 'claimed']);
		expect(claim.ledger![0]).toBeInstanceOf(DedupStoreError);
		expect((claim.ledger![0] as Error).message).toMatch(/^The dedup store \(Redis test\) .*WRONGTYPE/);
		expect(claim.ledger![1]).toBeNull();
	});

	it('fails with an error that names the store when Redis is unreachable', async () => {
		const dead = createRedisClient({ host: '127.0.0.1', port: 1, connectTimeoutMs: 300 });
		clients.push(dead);
		const store = new RedisDedupStore(dead, { description: 'Redis at 127.0.0.1:1', connectTimeoutMs: 400 });
		const error = await store.claimBatch([dedupKey(prefix, 'meta', 'px', 'z')], HOUR).catch((e) => e);
		expect(error).toBeInstanceOf(DedupStoreError);
		expect(error.message).toBe(
			'The dedup store (Redis at 127.0.0.1:1) refused the connection: is Redis running at that address and port?',
		);
		// No raw error code in the message: n8n would replace such a message with its own
		// headline about "the service" (the platform), hiding that it is the dedup store.
		expect(error.message).not.toMatch(/ECONN|ETIMEDOUT|ENOTFOUND/);
		expect(error.causeMessage).toMatch(/ECONNREFUSED/);
		// Refused: the claim never reached Redis, so nothing of it runs later.
		expect(error.timedOut).toBe(false);
	});

	it('says when Redis did not answer in time (the claim may still run), as a flag, not a text to match', async () => {
		const paused = await startStandaloneRedis();
		try {
			const client = createRedisClient({ url: paused.url, commandTimeoutMs: 200 });
			clients.push(client);
			await waitForReady(client, 2_000);
			const store = new RedisDedupStore(client, { description: 'Redis paused' });
			await paused.command('CLIENT', 'PAUSE', '1500', 'ALL');
			const error = await store.claimBatch([dedupKey(prefix, 'meta', 'px', 't')], HOUR).catch((e) => e);
			expect(error).toBeInstanceOf(DedupStoreError);
			expect(error.timedOut).toBe(true);
			expect(storeTimedOut(error)).toBe(true);
			expect(error.message).toBe(
				'The dedup store (Redis paused) did not answer in time (Command timed out): is Redis overloaded or paused?',
			);
			expect(storeTimedOut(new Error('Command timed out'))).toBe(false);
		} finally {
			await paused.stop();
		}
	});
});
