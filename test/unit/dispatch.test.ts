import {
	deriveEventId,
	dispatch,
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
	const adapter: PlatformAdapter<{ destination: string }, string> = {
		platform: 'meta',
		eventNameByState: { partial: 'P', lead: 'Lead', contact: 'C', schedule: 'S', registration: 'R', purchase: 'B' },
		maxBatchSize: 3,
		eventWindowSeconds: 7 * 86400,
		destinationId: (c) => c.destination,
		userData: (user) => ({ data: user.values, matchKeys: user.matchKeys }),
		buildEvent: (ctx) =>
			ctx.user.matchKeys.length
				? { ok: true, payload: ctx.eventId, matchKeys: ctx.user.matchKeys, warnings: [] }
				: { ok: false, status: 'failed', reason: 'no identity', matchKeys: [], warnings: [] },
		sendChunk: async (payloads) => {
			sent.push(payloads);
			return answer(payloads);
		},
		previewRequest: (payloads) => ({ data: payloads }),
	};
	return { adapter, sent };
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
});
