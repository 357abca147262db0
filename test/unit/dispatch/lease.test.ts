import {
	deriveEventId,
	dispatch,
	MemoryDedupStore,
	sendIsolating,
	Transport,
	type ChunkAttempt,
	type DedupStore,
	type PlatformAdapter,
	type SendOutcome,
} from '../../../shared';
import { Lease } from '../../../shared/dispatch/lease';
import { WITHHELD } from '../../../shared/platforms/isolate';
import { lead, testPlatform } from './fixtures';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const eventOf = (id: string) => deriveEventId('d1', 'Lead', id);
const keyOf = (id: string) => `leadcapi:meta:d1:${eventOf(id)}`;

/**
 * A platform that refuses a whole request for one bad event and takes `delayMs` per request,
 * as Meta, TikTok and Microsoft do (the sender splits with sendIsolating); it logs every event
 * it accepted.
 */
function refusingPlatform(bad: Set<string>, delayMs: number) {
	const accepted: string[] = [];
	const { adapter } = testPlatform();
	const attempt = async (chunk: string[]): Promise<ChunkAttempt> => {
		await sleep(delayMs);
		if (chunk.some((id) => bad.has(id))) {
			return {
				kind: 'reject',
				outcome: { status: 'failed', error: 'invalid event', retryable: false },
			};
		}
		accepted.push(...chunk);
		return { kind: 'ok', outcomes: chunk.map((): SendOutcome => ({ status: 'sent' })) };
	};
	const refusing: PlatformAdapter<{ destination: string }, string> = {
		...adapter,
		maxBatchSize: 16,
		sendChunk: (payloads, _config, _transport, hooks) => sendIsolating(payloads, attempt, hooks),
	};
	return { adapter: refusing, accepted };
}

const options = (
	adapter: PlatformAdapter<{ destination: string }, string>,
	store: DedupStore,
	claimTtlMs: number,
) => ({
	adapter,
	config: { destination: 'd1' },
	transport: new Transport(),
	store,
	claimTtlMs,
	inFlightWaitMs: 100,
});

describe('leased claims', () => {
	const ids = Array.from({ length: 16 }, (_, i) => `lead-${i}`);

	it('a split batch that outlives many claim TTLs keeps its claims: a second run meanwhile sends nothing twice', async () => {
		const store = new MemoryDedupStore();
		const bad = new Set([eventOf('lead-3'), eventOf('lead-11')]);
		const first = refusingPlatform(bad, 100);
		// ~13 requests of 100 ms ≈ 1.3 s, the claim TTL 400 ms: renewed every 133 ms.
		const running = dispatch(
			ids.map((id) => lead(id)),
			options(first.adapter, store, 400),
		);
		await sleep(700);
		const second = refusingPlatform(bad, 1);
		const rerun = await dispatch(
			ids.map((id) => lead(id)),
			options(second.adapter, store, 400),
		);
		const results = await running;

		expect(results.map((r) => r.status)).toEqual(
			ids.map((_, i) => (i === 3 || i === 11 ? 'failed' : 'sent')),
		);
		// The second run sent none of the first run's events: each was in flight (still held) or
		// already committed — accepted parts are committed as soon as they are accepted.
		expect(second.accepted).toEqual([]);
		const seen = rerun.map((r) => r.dedup);
		expect(seen.every((d) => d === 'in_flight' || d === 'sent_before' || d === 'released')).toBe(
			true,
		);
		expect(seen).toContain('sent_before');
		expect(first.accepted).toHaveLength(14);
		expect(new Set(first.accepted).size).toBe(14);
	});

	it('commits each accepted part of a split at once, before the split ends', async () => {
		const store = new MemoryDedupStore();
		const first = refusingPlatform(new Set([eventOf('lead-15')]), 60);
		const running = dispatch(
			ids.map((id) => lead(id)),
			options(first.adapter, store, 5_000),
		);
		// Request 1 refused (60 ms), then the first half (8 events) accepted at 120 ms.
		await sleep(200);
		const midway = await store.claimBatch(ids.slice(0, 8).map(keyOf), 5_000, 'observer');
		expect(midway.outcomes).toEqual(Array(8).fill('sent'));
		const results = await running;
		expect(results.filter((r) => r.status === 'sent')).toHaveLength(15);
	});

	it('a run stalled past its lease sends nothing more: each item says its claim lapsed, or was taken by another run', async () => {
		let now = 1_000_000;
		const store = new MemoryDedupStore(() => now);
		const accepted: string[] = [];
		const { adapter } = testPlatform();
		let requests = 0;
		const stalling: PlatformAdapter<{ destination: string }, string> = {
			...adapter,
			sendChunk: (payloads, _config, _transport, hooks) =>
				sendIsolating(
					payloads,
					async (chunk): Promise<ChunkAttempt> => {
						if (++requests === 1) {
							// The first request stalls the run past its lease (nothing renewed it), and
							// another run claims lead-2 meanwhile.
							now += 5_000;
							await store.claimBatch([keyOf('lead-2')], 60_000, 'another-run');
						}
						if (chunk.includes(eventOf('lead-0'))) {
							return {
								kind: 'reject',
								outcome: { status: 'failed', error: 'invalid', retryable: false },
							};
						}
						accepted.push(...chunk);
						return { kind: 'ok', outcomes: chunk.map((): SendOutcome => ({ status: 'sent' })) };
					},
					hooks,
				),
		};
		const results = await dispatch(
			ids.slice(0, 3).map((id) => lead(id)),
			{
				...options(stalling, store, 1_000),
				clock: () => now,
			},
		);
		// Nothing more went out: every claim had lapsed (the renewal before the next request said
		// so), lead-2's to another run.
		expect(accepted).toEqual([]);
		expect(results.map((r) => [r.status, r.dedup, r.retryable])).toEqual([
			['failed', 'lease_lost', true],
			['failed', 'lease_lost', true],
			['failed', 'lease_lost', true],
		]);
		expect(results[1].error).toMatch(
			/lapsed before it was sent \(not renewed in time\): not sent here; a retry sends it/,
		);
		expect(results[2].error).toMatch(
			/lapsed before it was sent, and another run claimed it: not sent here/,
		);
		// The other run's claim is untouched.
		expect((await store.claimBatch([keyOf('lead-2')], 1_000, 'third')).outcomes).toEqual([
			'in_flight',
		]);
	});
});

describe('Lease', () => {
	it('renews all in-flight keys of a run in one round trip, and stops renewing settled keys', async () => {
		const store = new MemoryDedupStore();
		const calls: string[][] = [];
		const renew = store.renewClaims.bind(store);
		store.renewClaims = (token, keys, ttl) => (calls.push(keys), renew(token, keys, ttl));
		const lease = new Lease(store, 60_000, Date.now);
		await store.claimBatch(['a', 'b'], 60_000, lease.token);
		lease.hold(['a', 'b'], Date.now());
		await store.claimBatch(['c'], 60_000, lease.token);
		lease.hold(['c'], Date.now());
		await lease.renew();
		lease.letGo(['b']);
		await lease.renew();
		lease.stop();
		expect(calls).toEqual([
			['a', 'b', 'c'],
			['a', 'c'],
		]);
	});

	it('confirms nothing when the store cannot renew a lease that is running out', async () => {
		const store = new MemoryDedupStore();
		let now = 0;
		const lease = new Lease(store, 3_000, () => now);
		lease.hold(['a'], 0);
		store.renewClaims = () => Promise.reject(new Error('store went away'));
		expect(await lease.confirm(['a'])).toEqual(['a']);
		now = 2_500;
		expect(await lease.confirm(['a'])).toEqual([]);
		expect(lease.lossOf('a')).toEqual({ kind: 'unconfirmed', message: 'store went away' });
		lease.stop();
	});
});

describe('sendIsolating with hooks', () => {
	it('asks before each further request and reports each accepted part', async () => {
		const parts: number[][] = [];
		const outcomes = await sendIsolating(
			[0, 1, 2, 3, 4, 5, 6, 7],
			async (chunk): Promise<ChunkAttempt> =>
				chunk.includes(6)
					? { kind: 'reject', outcome: { status: 'failed', error: 'bad', retryable: false } }
					: { kind: 'ok', outcomes: chunk.map(() => ({ status: 'sent' })) },
			{
				// Event 1 may no longer be sent once the batch is split.
				admit: async (indices) => indices.filter((i) => i !== 1),
				partAccepted: async (indices) => void parts.push(indices),
			},
		);
		expect(outcomes.map((o) => (o === WITHHELD ? 'withheld' : o.status))).toEqual([
			'sent',
			'withheld',
			'sent',
			'sent',
			'sent',
			'sent',
			'failed',
			'sent',
		]);
		expect(parts).toEqual([[0, 2, 3], [4, 5], [7]]);
	});
});
