import type Redis from 'ioredis';
import {
	dispatch,
	RedisDedupStore,
	Transport,
	type DestinationStats,
	type DispatchItem,
	type KeptFacts,
	type SendOutcome,
} from '../../../shared';
import { waitForReady } from '../../../shared/dedup';
import {
	drainDue,
	finishOutbox,
	outboxKey,
	outboxNow,
	OutboxStore,
	readDrained,
	setOutboxClock,
	type KeptEvents,
	type OutboxQueue,
	type RunOutbox,
} from '../../../shared/outbox';
import { dropPrefix, testRedis, uniquePrefix } from '../../support/redisClient';
import { lead, testPlatform } from '../dispatch/fixtures';

/**
 * A sender's outbox run, core only (shared/outbox: readDrained → dispatch → finishOutbox, as
 * nodes/common/executeSender.ts strings them), in real Redis with the real OutboxStore and
 * dedup store. The platform is the tests' own (test/unit/dispatch/fixtures.ts): its events are
 * their event ids and it answers as scripted.
 */

const KEY = outboxKey('outbox-sender-run-unit-secret-0001');
const DEST = 'd1';
const q: OutboxQueue = { platform: 'meta', destination: DEST };
const DAY = 86_400_000;

type Answer = (payloads: string[]) => SendOutcome[];

interface Execution {
	/** Each input item's JSON (a drained reference, or a lead's). Default: one `{}` per item. */
	inputs?: Array<Record<string, unknown>>;
	answer?: Answer;
	viaOutbox?: boolean;
	includePayload?: boolean;
	outbox?: RunOutbox;
	destination?: string;
}

const failing =
	(outcome: SendOutcome): Answer =>
	(payloads) =>
		payloads.map(() => outcome);

describe("a sender run's outbox (shared/outbox) in real Redis", () => {
	let redis: Redis;
	let prefix: string;
	let run: RunOutbox & { on: true };
	let dedup: RedisDedupStore;
	let sent: string[];

	beforeAll(async () => {
		redis = testRedis();
		await waitForReady(redis, 5_000);
	});
	beforeEach(() => {
		prefix = uniquePrefix('outbox-run');
		run = { on: true, store: new OutboxStore(redis, prefix), key: KEY };
		dedup = new RedisDedupStore(redis, { description: 'test Redis' });
		sent = [];
	});
	afterEach(async () => {
		setOutboxClock();
		await dropPrefix(redis, prefix);
	});
	afterAll(() => redis.quit());

	/** One sender execution: its drained items read, the dispatch, then the outbox's part. */
	async function execute(items: DispatchItem[], o: Execution = {}) {
		const { adapter, sent: requests } = testPlatform(o.answer);
		const outbox = o.outbox ?? run;
		const destination = o.destination ?? DEST;
		const dispatchItems = [...items];
		const inputs = o.inputs ?? items.map(() => ({}));
		const drained = await readDrained(
			outbox,
			adapter,
			destination,
			inputs,
			dispatchItems,
			outboxNow(),
		);
		const kept: KeptEvents = new Map();
		const keep = (i: number, payload: unknown, facts: KeptFacts) => kept.set(i, { payload, facts });
		const runAt = Date.now();
		const results = await dispatch(dispatchItems, {
			adapter,
			config: { destination },
			transport: new Transport(),
			store: dedup,
			keyPrefix: prefix,
			includePayload: o.includePayload,
			...(o.viaOutbox ? { mode: { kind: 'buildForOutbox' as const, onBuilt: keep } } : {}),
			onRetryable: keep,
		});
		await finishOutbox({
			run: outbox,
			adapter,
			results,
			kept,
			drained,
			viaOutbox: Boolean(o.viaOutbox),
			store: dedup,
			keyPrefix: prefix,
			runAt,
		});
		sent.push(...requests.flat());
		return results;
	}

	/** The Outbox Trigger's poll: each due event as the item it emits. */
	async function poll(key = KEY): Promise<Array<Record<string, unknown>>> {
		const { due } = await drainDue(run.store, key, { now: outboxNow(), limit: 100 });
		return due.map((ref) => ({ outbox: ref }));
	}

	/** A sender fed by the trigger: one dispatch item per drained item, as the node reads them. */
	const drain = (inputs: Array<Record<string, unknown>>, o: Execution = {}) =>
		execute(
			inputs.map(() => ({ record: {}, eventName: '' })),
			{ ...o, inputs },
		);

	/** The Health Report's figures for the destination. */
	async function health(): Promise<DestinationStats> {
		const [stats] = await dedup.readStats(prefix, { hours: 1 });
		return stats;
	}

	describe('Deliver → Via Outbox', () => {
		it('queues each built event due now (attempt 0), sends and claims nothing; the drain sends each once', async () => {
			const queued = await execute([lead('a'), lead('b')], {
				viaOutbox: true,
				includePayload: true,
			});
			expect(queued.map((r) => [r.status, r.outbox?.attempts])).toEqual([
				['queued', 0],
				['queued', 0],
			]);
			for (const r of queued) {
				expect(Date.parse(r.outbox!.next_try)).toBeLessThanOrEqual(outboxNow());
				expect(r.payload).toBeUndefined();
				expect(r.dry_run).toBeUndefined();
				expect(r.response).toBeUndefined();
				expect(r.warnings).toEqual([]);
			}
			expect(sent).toEqual([]);
			expect(await run.store.pendingCount(q)).toBe(2);
			expect(await health()).toMatchObject({ queued: 2, skipped: 0, failed: 0, sent: 0 });

			// The poll hands the due events out in its own order.
			const ids = queued.map((r) => r.event_id).sort();
			const drained = await drain(await poll());
			expect(drained.map((r) => r.status)).toEqual(['sent', 'sent']);
			expect(drained.map((r) => r.event_id).sort()).toEqual(ids);
			expect([...sent].sort()).toEqual(ids);
			expect(await run.store.pendingCount(q)).toBe(0);
			expect(await health()).toMatchObject({ queued: 2, sent: 2, failed: 0 });
		});

		it('an event sent before and queued again is a duplicate at the drain: sent once in all', async () => {
			const [direct] = await execute([lead('a')]);
			expect(direct.status).toBe('sent');
			const [queued] = await execute([lead('a')], { viaOutbox: true });
			expect(queued.status).toBe('queued');
			const [drained] = await drain(await poll());
			expect(drained).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
			expect(sent).toEqual([direct.event_id]);
			expect(await run.store.pendingCount(q)).toBe(0);
		});

		it('a built event the outbox cannot take fails retryably with the reason', async () => {
			const broken = testRedis();
			await waitForReady(broken, 5_000);
			await broken.quit();
			const outbox: RunOutbox = { on: true, store: new OutboxStore(broken, prefix), key: KEY };
			const [r] = await execute([lead('a')], { viaOutbox: true, outbox });
			expect(r).toMatchObject({ status: 'failed', retryable: true });
			expect(r.error).toMatch(/^not queued: the outbox could not be written: /);
			expect(sent).toEqual([]);
		});
	});

	describe('after a send', () => {
		it('queues a retryable failure with its first attempt and the Retry-After; the Health Report counts it queued, not failed', async () => {
			const before = outboxNow();
			const [r] = await execute([lead('a')], {
				answer: failing({ status: 'failed', error: '429', retryable: true, retryAfterMs: 120_000 }),
			});
			expect(r).toMatchObject({ status: 'queued', outbox: { attempts: 1, retry_after_s: 120 } });
			expect(Date.parse(r.outbox!.next_try)).toBeGreaterThanOrEqual(before + 120_000);
			expect(r.warnings).toContain(
				'the platform asked to wait 120 s (Retry-After): the next try is not before then',
			);
			expect(await poll()).toEqual([]);
			expect(await health()).toMatchObject({ queued: 1, failed: 0 });
		});

		it("past the destination's outbox budget a retryable failure is not queued: failed, retryable, naming the outbox, the destination and the fix", async () => {
			const small: RunOutbox = { on: true, store: new OutboxStore(redis, prefix, { maxBytes: 4_000 }), key: KEY };
			const results = await execute([lead('a'), lead('b'), lead('c'), lead('d')], {
				outbox: small,
				answer: failing({ status: 'failed', error: '503', retryable: true }),
			});
			const statuses = results.map((r) => r.status);
			expect(statuses.filter((x) => x === 'queued').length).toBeGreaterThan(0);
			const refused = results.filter((r) => r.status === 'failed');
			expect(refused.length).toBeGreaterThan(0);
			for (const r of refused) {
				expect(r.retryable).toBe(true);
				expect(r.error).toMatch(/^503; not queued: the outbox of meta destination d1 is full \(3\.9 KB of queued events and dead letters, LEAD_CAPI_OUTBOX_MAX_MB\)/);
				expect(r.error).toContain('Fix: bring meta back');
			}
			expect(await small.store.pendingCount(q)).toBe(statuses.filter((x) => x === 'queued').length);
		});

		it('a failure that retrying cannot mend is not queued', async () => {
			const [r] = await execute([lead('a')], {
				answer: failing({ status: 'failed', error: 'invalid pixel', retryable: false }),
			});
			expect(r).toMatchObject({ status: 'failed', retryable: false, error: 'invalid pixel' });
			expect(r.outbox).toBeUndefined();
			expect(await run.store.pendingCount(q)).toBe(0);
		});

		it('without an Outbox Key, a retryable failure says why it was not queued', async () => {
			const outbox: RunOutbox = { on: false, warning: 'not queued: no key' };
			const [again, never] = await execute([lead('a'), lead('b')], {
				outbox,
				answer: () => [
					{ status: 'failed', error: '503', retryable: true },
					{ status: 'failed', error: 'invalid', retryable: false },
				],
			});
			expect(again).toMatchObject({ status: 'failed', retryable: true });
			expect(again.warnings).toContain('not queued: no key');
			expect(never.warnings).not.toContain('not queued: no key');
			expect(await run.store.pendingCount(q)).toBe(0);
		});

		it('when the outbox cannot be written, the failure keeps its result and says so', async () => {
			const broken = testRedis();
			await waitForReady(broken, 5_000);
			await broken.quit();
			const outbox: RunOutbox = { on: true, store: new OutboxStore(broken, prefix), key: KEY };
			const [r] = await execute([lead('a')], {
				outbox,
				answer: failing({ status: 'failed', error: '503', retryable: true }),
			});
			expect(r).toMatchObject({ status: 'failed', retryable: true, error: '503' });
			expect(r.warnings.some((w) => w.startsWith('the outbox could not be written: '))).toBe(true);
		});
	});

	describe('a drained event', () => {
		it('that fails again is queued with one more attempt; one the platform refuses goes to dead letters `rejected`', async () => {
			const [a, b] = await execute([lead('a'), lead('b')], { viaOutbox: true });
			const outcomes: Record<string, SendOutcome> = {
				[a.event_id!]: { status: 'failed', error: '503', retryable: true },
				[b.event_id!]: { status: 'failed', error: 'invalid pixel', retryable: false },
			};
			const drained = await drain(await poll(), {
				answer: (payloads) => payloads.map((p) => outcomes[p]),
			});
			const byId = new Map(drained.map((r) => [r.event_id, r]));
			expect(byId.get(a.event_id)).toMatchObject({ status: 'queued', outbox: { attempts: 1 } });
			expect(byId.get(b.event_id)).toMatchObject({
				status: 'failed',
				retryable: false,
				error: 'moved to dead letters (rejected): invalid pixel',
			});
			expect(await run.store.pendingCount(q)).toBe(1);
			expect(await run.store.deadLetters(q)).toEqual([
				expect.objectContaining({
					event_id: b.event_id,
					reason: 'rejected',
					message: 'invalid pixel',
				}),
			]);
			// Queued 2 (Via Outbox), then the drain: 1 queued again, 1 dead-lettered, none failed.
			expect(await health()).toMatchObject({ queued: 3, dead_lettered: 1, failed: 0 });
		});

		it('whose entry is gone (another drain delivered it) is a duplicate: not sent, never failed', async () => {
			await execute([lead('a')], { viaOutbox: true });
			const refs = await poll();
			const [first] = await drain(refs);
			expect(first.status).toBe('sent');
			const [second] = await drain(refs);
			expect(second).toMatchObject({
				status: 'duplicate',
				dedup: 'sent_before',
				event_id: first.event_id,
			});
			expect(second.error).toBeUndefined();
			expect(second.warnings).toContain(
				'outbox entry already delivered or removed: not sent again',
			);
			expect(sent).toEqual([first.event_id]);
			expect(await health()).toMatchObject({ sent: 1, duplicate: 1, failed: 0 });
		});

		it('for another destination fails naming both and stays queued; the node without the outbox says what it needs', async () => {
			await execute([lead('a')], { viaOutbox: true, destination: 'd2' });
			const refs = await poll();
			const [wrong] = await drain(refs);
			expect(wrong).toMatchObject({
				status: 'failed',
				error: 'this outbox event is for meta d2; this node sends to meta d1',
			});
			const [off] = await drain(refs, { outbox: { on: false } });
			expect(off.status).toBe('failed');
			expect(off.error).toMatch(/needs Retry Failed Sends Later → Queue in Outbox/);
			expect(sent).toEqual([]);
			expect(await run.store.pendingCount({ platform: 'meta', destination: 'd2' })).toBe(1);
		});

		it('sealed with another key goes to dead letters `undecryptable`; a new lead in the same run is sent', async () => {
			await execute([lead('a')], { viaOutbox: true });
			const refs = await poll();
			const rotated: RunOutbox = { ...run, key: outboxKey('the-rotated-outbox-key-0002') };
			const [old, fresh] = await execute([{ record: {}, eventName: '' }, lead('b')], {
				inputs: [...refs, {}],
				outbox: rotated,
			});
			expect(old.status).toBe('failed');
			expect(old.error).toMatch(/^moved to dead letters \(undecryptable\): .*another key/);
			expect(fresh.status).toBe('sent');
			expect(sent).toEqual([fresh.event_id]);
			expect((await run.store.deadLetters(q)).map((d) => d.reason)).toEqual(['undecryptable']);
			expect(await run.store.pendingCount(q)).toBe(0);
		});

		it('whose platform window passed after the poll goes to dead letters `expired`, never sent late', async () => {
			await execute([lead('a')], { viaOutbox: true });
			const refs = await poll();
			const later = Date.now() + 8 * DAY;
			setOutboxClock(() => later);
			const [late] = await drain(refs);
			expect(late.status).toBe('failed');
			expect(late.error).toMatch(/^moved to dead letters \(expired\): /);
			expect(sent).toEqual([]);
			expect((await run.store.deadLetters(q)).map((d) => d.reason)).toEqual(['expired']);
		});

		it('when the outbox cannot be read, fails and stays queued for the next poll', async () => {
			await execute([lead('a')], { viaOutbox: true });
			const refs = await poll();
			const broken = testRedis();
			await waitForReady(broken, 5_000);
			await broken.quit();
			const outbox: RunOutbox = { on: true, store: new OutboxStore(broken, prefix), key: KEY };
			const [r] = await drain(refs, { outbox });
			expect(r.status).toBe('failed');
			expect(r.error).toMatch(
				/^the outbox could not be read \(.+\): the event stays queued and comes due again$/,
			);
			expect(sent).toEqual([]);
			expect(await run.store.pendingCount(q)).toBe(1);
		});
	});
});
