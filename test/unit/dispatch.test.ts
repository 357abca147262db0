import { IDENTITY_PROFILES } from '../../shared/platforms';
import {
	meta,
	deriveEventId,
	dispatch,
	sendIsolating,
	type ChunkAttempt,
	MemoryDedupStore,
	Transport,
	type PlatformAdapter,
	type SendOutcome,
} from '../../shared';

/**
 * A platform of our own making (not a mock of the core): it records what it is asked to send
 * and answers with scripted per-event outcomes, so the dispatcher's contract can be checked
 * independently of any real platform.
 */
function recordingPlatform(answer: (payloads: string[]) => SendOutcome[] | Promise<SendOutcome[]>) {
	const sent: string[][] = [];
	const built: string[] = [];
	const adapter: PlatformAdapter<{ destination: string }, string> = {
		platform: 'meta',
		identity: IDENTITY_PROFILES.meta,
		eventNameByState: { partial: 'P', lead: 'Lead', contact: 'C', schedule: 'S', registration: 'R', purchase: 'B' },
		maxBatchSize: 3,
		eventTimeWindow: { platform: 'Test', seconds: 7 * 86400, basis: 'documented' },
		resendDedup: meta.META_RESEND_DEDUP,
		destinationId: (c) => c.destination,
		userData: (user) => ({ data: user.values, matchKeys: user.matchKeys }),
		buildEvent: (ctx) =>
			built.push(ctx.eventId) && ctx.user.matchKeys.length
				? { ok: true, payload: ctx.eventId, matchKeys: ctx.user.matchKeys, warnings: [] }
				: { ok: false, status: 'failed', reason: 'no identity', matchKeys: [], warnings: [] },
		sendChunk: async (payloads) => {
			sent.push(payloads);
			return answer(payloads);
		},
		previewRequest: (payloads) => ({ data: payloads }),
	};
	return { adapter, sent, built };
}

const item = (id: string) => ({
	record: { record_id: id, occurred_at: new Date().toISOString(), contact: { email: `${id}@example.com` } },
	eventName: 'Lead',
});

const run = (adapter: PlatformAdapter<{ destination: string }, string>, items: ReturnType<typeof item>[], store = new MemoryDedupStore()) =>
	dispatch(items, { adapter, config: { destination: 'd1' }, transport: new Transport(), store });

describe('dispatch', () => {
	it('returns exactly one result per input item, in order, and chunks by the platform limit', async () => {
		const { adapter, sent } = recordingPlatform((p) => p.map(() => ({ status: 'sent' })));
		const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(item);
		const results = await run(adapter, items);
		expect(results).toHaveLength(7);
		expect(results.map((r) => r.event_id)).toEqual(
			['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => deriveEventId('d1', 'Lead', id)),
		);
		expect(results.every((r) => r.status === 'sent')).toBe(true);
		expect(new Set(sent.flat())).toEqual(new Set(results.map((r) => r.event_id)));
		expect(sent.map((c) => c.length).sort()).toEqual([1, 3, 3]);
	});

	it('marks only acknowledged events as sent; per-event failures are released and resent later', async () => {
		const store = new MemoryDedupStore();
		const flaky = recordingPlatform((p) =>
			p.map((_, i) => (i === 1 ? { status: 'failed', error: 'row 1 rejected', retryable: false } : { status: 'sent' })),
		);
		const first = await run(flaky.adapter, ['a', 'b', 'c'].map(item), store);
		expect(first.map((r) => r.status)).toEqual(['sent', 'failed', 'sent']);
		const healthy = recordingPlatform((p) => p.map(() => ({ status: 'sent' })));
		const second = await run(healthy.adapter, ['a', 'b', 'c'].map(item), store);
		expect(second.map((r) => r.status)).toEqual(['duplicate', 'sent', 'duplicate']);
		expect(healthy.sent.flat()).toEqual([first[1].event_id]);
	});

	it.each([
		['throws', () => Promise.reject(new Error('boom'))],
		['answers for the wrong number of events', () => [{ status: 'sent' as const }]],
	])('fails and releases a chunk whose adapter %s, never marking it sent', async (_label, answer) => {
		const store = new MemoryDedupStore();
		const broken = recordingPlatform(answer as () => SendOutcome[]);
		const results = await run(broken.adapter, ['a', 'b'].map(item), store);
		expect(results.map((r) => [r.status, r.retryable])).toEqual([
			['failed', true],
			['failed', true],
		]);
		expect(results[0].error).toMatch(/^meta: unexpected error while sending/);
		const retry = await run(recordingPlatform((p) => p.map(() => ({ status: 'sent' }))).adapter, ['a', 'b'].map(item), store);
		expect(retry.map((r) => r.status)).toEqual(['sent', 'sent']);
	});

	it('says on each item what happened to its claim: released after a failure, still claimed when it could not be freed', async () => {
		const store = new MemoryDedupStore();
		const flaky = recordingPlatform((p) =>
			p.map((_, i) =>
				i === 0
					? { status: 'sent' as const }
					: i === 1
						? { status: 'failed' as const, error: 'row 1 rejected', retryable: false }
						: { status: 'skipped' as const, reason: 'too recent', retryable: true },
			),
		);
		const results = await run(flaky.adapter, ['a', 'b', 'c'].map(item), store);
		expect(results.map((r) => [r.status, r.dedup])).toEqual([
			['sent', 'claimed'],
			['failed', 'released'],
			['skipped', 'released'],
		]);
		// Released means free: the next run claims and sends them at once.
		const again = await run(recordingPlatform((p) => p.map(() => ({ status: 'sent' as const }))).adapter, ['a', 'b', 'c'].map(item), store);
		expect(again.map((r) => [r.status, r.dedup])).toEqual([
			['duplicate', 'sent_before'],
			['sent', 'claimed'],
			['sent', 'claimed'],
		]);

		// A settle that fails leaves the failed item's claim held until it expires: said so.
		const stuck = new MemoryDedupStore();
		stuck.settleBatch = () => Promise.reject(new Error('store went away'));
		const failing = recordingPlatform((p) => p.map(() => ({ status: 'failed' as const, error: 'rejected', retryable: true })));
		const [held] = await dispatch([item('d')], {
			adapter: failing.adapter,
			config: { destination: 'd1' },
			transport: new Transport(),
			store: stuck,
		});
		expect(held).toMatchObject({ status: 'failed', dedup: 'claimed' });
		expect(held.warnings.join()).toMatch(/could not free the claim; a retry can send it after the claim expires/);
	});

	it('marks items failed closed as dedup unavailable, with the store message once and what to change', async () => {
		const store = new MemoryDedupStore();
		store.claimBatch = () => Promise.reject(new Error('The dedup store (test) refused the connection: is it running?'));
		const { adapter, sent } = recordingPlatform((p) => p.map(() => ({ status: 'sent' as const })));
		const [r] = await run(adapter, [item('a')], store);
		expect(r).toMatchObject({ status: 'failed', retryable: true, dedup: 'unavailable' });
		expect(r.error).toBe(
			'The dedup store (test) refused the connection: is it running? Nothing was sent (dedup fails closed). Retry the execution once the store answers; or, to send without dedup while it is down, set Options → If Dedup Store Is Unavailable → Send Anyway.',
		);
		expect(r.error).not.toMatch(/\.\./);
		expect(sent).toHaveLength(0);
	});

	it('tells an item without record_id what to change, not to run again', async () => {
		const { adapter } = recordingPlatform((p) => p.map(() => ({ status: 'sent' as const })));
		const [r] = await run(adapter, [{ record: { contact: { email: 'x@example.com' } } as never, eventName: 'Lead' }]);
		expect(r.status).toBe('failed');
		expect(r.error).toMatch(/^record_id is missing: give this lead the stable ID of its business record .* Lead Fields → Map Fields → record_id/);
		expect(r.error).not.toMatch(/run again|running again|re-run/);
	});

	it('keeps bad items from sinking the batch', async () => {
		const { adapter } = recordingPlatform((p) => p.map(() => ({ status: 'sent' })));
		const results = await dispatch(
			[item('a'), { record: { record_id: 'x', contact: {} }, eventName: 'Lead' }, { record: {}, eventName: 'Lead', error: 'mapping failed' }, item('b')],
			{ adapter, config: { destination: 'd1' }, transport: new Transport(), store: new MemoryDedupStore() },
		);
		expect(results.map((r) => r.status)).toEqual(['sent', 'failed', 'failed', 'sent']);
		expect(results[1].error).toBe('no identity');
		expect(results[2].error).toBe('mapping failed');
	});

	it('reports an event it cannot build without a dedup state, on every run, and frees its claim', async () => {
		const store = new MemoryDedupStore();
		const { adapter } = recordingPlatform((p) => p.map(() => ({ status: 'sent' })));
		const noIdentity = { record: { record_id: 'x', occurred_at: new Date().toISOString(), contact: {} }, eventName: 'Lead' };
		for (let round = 0; round < 2; round++) {
			const results = await dispatch([item('a'), noIdentity], {
				adapter,
				config: { destination: 'd1' },
				transport: new Transport(),
				store,
			});
			expect(results.map((r) => [r.status, r.dedup ?? null])).toEqual([
				[round === 0 ? 'sent' : 'duplicate', round === 0 ? 'claimed' : 'sent_before'],
				['failed', null],
			]);
		}
		// The claim was released: the same record, once it carries an identity, is sent.
		const fixed = await run(adapter, [item('x')], store);
		expect(fixed.map((r) => [r.status, r.dedup])).toEqual([['sent', 'claimed']]);
	});

	it('records a platform-side duplicate as sent and a "not yet" skip as released', async () => {
		const store = new MemoryDedupStore();
		const google = recordingPlatform((p) =>
			p.map((_, i) =>
				i === 0
					? { status: 'duplicate' as const, warning: 'ORDER_ID_ALREADY_IN_USE' }
					: { status: 'skipped' as const, reason: 'TOO_RECENT_EVENT: retry after 6 hours', retryable: true },
			),
		);
		const first = await run(google.adapter, ['a', 'b'].map(item), store);
		expect(first.map((r) => [r.status, r.retryable ?? null])).toEqual([
			['duplicate', null],
			['skipped', true],
		]);
		expect(first[1].error).toMatch(/TOO_RECENT_EVENT/);
		const later = recordingPlatform((p) => p.map(() => ({ status: 'sent' as const })));
		const second = await run(later.adapter, ['a', 'b'].map(item), store);
		expect(second.map((r) => r.status)).toEqual(['duplicate', 'sent']);
		expect(later.sent.flat()).toEqual([first[1].event_id]);
	});
});

describe('dispatch: batches', () => {
	const ids = (n: number) => Array.from({ length: n }, (_, i) => `lead-${i}`);

	it('builds only the events it claimed: re-running sent leads builds and sends nothing', async () => {
		const store = new MemoryDedupStore();
		const first = recordingPlatform((p) => p.map(() => ({ status: 'sent' as const })));
		await run(first.adapter, ids(10).map(item), store);
		expect(first.built).toHaveLength(10);
		const second = recordingPlatform((p) => p.map(() => ({ status: 'sent' as const })));
		const results = await run(second.adapter, [...ids(10), 'new-lead'].map(item), store);
		expect(results.map((r) => r.status)).toEqual([...Array(10).fill('duplicate'), 'sent']);
		expect(second.built).toEqual([results[10].event_id]);
		expect(second.sent).toEqual([[results[10].event_id]]);
	});

	it.each([
		['4 (the default)', undefined, 4],
		['2 (asked for)', 2, 2],
		['1 (asked for)', 1, 1],
	])('keeps at most %s batches in flight and returns the results in input order', async (_label, concurrency, most) => {
		let inFlight = 0;
		let peak = 0;
		const { adapter, sent } = recordingPlatform(async (p) => {
			peak = Math.max(peak, ++inFlight);
			await new Promise((r) => setTimeout(r, 5));
			inFlight--;
			return p.map(() => ({ status: 'sent' as const }));
		});
		const items = ids(20).map(item);
		const results = await dispatch(items, {
			adapter,
			config: { destination: 'd1' },
			transport: new Transport(),
			store: new MemoryDedupStore(),
			concurrency,
		});
		expect(peak).toBe(most);
		expect(sent.map((c) => c.length)).toEqual([3, 3, 3, 3, 3, 3, 2]);
		expect(results.map((r) => r.event_id)).toEqual(ids(20).map((id) => deriveEventId('d1', 'Lead', id)));
		expect(results.every((r) => r.status === 'sent')).toBe(true);
	});

	it('fails closed per batch: a store that fails one claim fails only that batch', async () => {
		const store = new MemoryDedupStore();
		const claim = store.claimBatch.bind(store);
		let calls = 0;
		store.claimBatch = (keys, ttl, token) => (++calls === 2 ? Promise.reject(new Error('store went away')) : claim(keys, ttl, token));
		const { adapter, sent } = recordingPlatform((p) => p.map(() => ({ status: 'sent' as const })));
		const results = await dispatch(ids(9).map(item), {
			adapter,
			config: { destination: 'd1' },
			transport: new Transport(),
			store,
			concurrency: 1,
		});
		expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'failed', 'failed', 'failed', 'sent', 'sent', 'sent']);
		expect(results[3]).toMatchObject({ retryable: true });
		expect(results[3].error).toMatch(/store went away\. Nothing was sent \(dedup fails closed\)/);
		expect(sent.flat()).toHaveLength(6);
	});
});

describe('dispatch: another run holds the claim', () => {
	const store = () => new MemoryDedupStore();
	const ONE_HOUR = 3_600_000;
	const keyOf = (id: string) => `leadcapi:meta:d1:${deriveEventId('d1', 'Lead', id)}`;

	/** A run of ours whose sleeps let the "other run" act (the test's scripted timeline). */
	const racing = (s: MemoryDedupStore, between: (waited: number) => Promise<void>) => {
		const { adapter, sent } = recordingPlatform((p) => p.map(() => ({ status: 'sent' as const })));
		let waited = 0;
		const results = dispatch([item('a')], {
			adapter,
			config: { destination: 'd1' },
			transport: new Transport(),
			store: s,
			inFlightWaitMs: 5_000,
			sleep: async (ms) => {
				waited += ms;
				await between(waited);
			},
		});
		return { results, sent };
	};

	it('waits for it and reports a duplicate when it commits', async () => {
		const s = store();
		const other = await s.claimBatch([keyOf('a')], ONE_HOUR);
		const { results, sent } = racing(s, async (waited) => {
			if (waited >= 400) await s.settleBatch(other.token, { commit: [keyOf('a')], release: [], committedTtlMs: ONE_HOUR });
		});
		const [r] = await results;
		expect(r).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
		expect(sent).toHaveLength(0);
	});

	it('claims and sends the event itself when the other run releases it', async () => {
		const s = store();
		const other = await s.claimBatch([keyOf('a')], ONE_HOUR);
		const { results, sent } = racing(s, async () => {
			await s.settleBatch(other.token, { commit: [], release: [keyOf('a')], committedTtlMs: ONE_HOUR });
		});
		const [r] = await results;
		expect(r).toMatchObject({ status: 'sent', dedup: 'claimed' });
		expect(sent.flat()).toHaveLength(1);
		expect((await s.claimBatch([keyOf('a')], ONE_HOUR)).outcomes).toEqual(['sent']);
	});

	it('fails the item as retryable, never as a silent duplicate, when the claim outlives the wait', async () => {
		const s = store();
		await s.claimBatch([keyOf('a')], ONE_HOUR);
		const { results, sent } = racing(s, async () => undefined);
		const [r] = await results;
		expect(r).toMatchObject({ status: 'failed', retryable: true, dedup: 'in_flight' });
		expect(r.error).toMatch(/another run claimed this event and has not settled it within 5 s/);
		expect(sent).toHaveLength(0);
	});
});

describe('sendIsolating', () => {
	it('splits rejected chunks until the bad events stand alone', async () => {
		const bad = new Set([3, 11]);
		const requests: number[][] = [];
		const outcomes = await sendIsolating(
			Array.from({ length: 16 }, (_, i) => i),
			async (chunk): Promise<ChunkAttempt> => {
				requests.push(chunk);
				const hit = chunk.find((n) => bad.has(n));
				if (hit === undefined) return { kind: 'ok', outcomes: chunk.map(() => ({ status: 'sent' })) };
				return { kind: 'reject', outcome: { status: 'failed', error: `event ${hit} invalid`, retryable: false } };
			},
		);
		expect(outcomes.map((o) => o.status)).toEqual(Array.from({ length: 16 }, (_, i) => (bad.has(i) ? 'failed' : 'sent')));
		expect(outcomes[3]).toMatchObject({ error: 'event 3 invalid' });
		expect(requests.length).toBeLessThanOrEqual(1 + 2 * 2 * Math.log2(16));
	});

	it('fails every event of a chunk on a failure no split can help', async () => {
		let calls = 0;
		const outcomes = await sendIsolating([1, 2, 3], async () => {
			calls++;
			return { kind: 'fail', outcome: { status: 'failed', error: 'token expired', retryable: false } };
		});
		expect(outcomes.map((o) => o.status)).toEqual(['failed', 'failed', 'failed']);
		expect(calls).toBe(1);
	});
});
