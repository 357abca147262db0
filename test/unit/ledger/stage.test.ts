import { dispatch, ledgerKey, MemoryDedupStore, Transport, type ClaimOptions } from '../../../shared';
import { lead, testPlatform } from '../dispatch/fixtures';

const HOUR = 3_600_000;

/** A lead's stage event, reached a minute ago. */
const qualified = (id: string) =>
	({ ...lead(id, { stage: 'qualified', stage_at: new Date(Date.now() - 60_000).toISOString() }), eventName: 'Qualified' });

/** A store whose ledger for `recordId` already holds the Qualified stage (its dedup key long gone). */
async function storeWithStage(recordId: string): Promise<MemoryDedupStore> {
	const store = new MemoryDedupStore();
	const gone = await store.claimBatch(['gone'], HOUR);
	await store.settleBatch(gone.token, {
		commit: ['gone'],
		release: [],
		committedTtlMs: HOUR,
		ledger: [
			{
				key: ledgerKey('leadcapi', 'meta', 'd1', recordId),
				gateKey: 'gone',
				ttlMs: HOUR,
				set: { 'stage:Qualified': '1' },
				setIfAbsent: {},
			},
		],
	});
	return store;
}

const send = (store: MemoryDedupStore, ids: string[]) => {
	const { adapter, sent } = testPlatform();
	const results = dispatch(ids.map(qualified), {
		adapter,
		config: { destination: 'd1' },
		transport: new Transport(),
		store,
		ledger: {},
	});
	return { results, sent };
};

describe('the ledger stage of a dispatch: what the claim read', () => {
	it('a stage the ledger holds is a duplicate, its claim freed; no separate ledger read', async () => {
		const store = await storeWithStage('r1');
		let reads = 0;
		const read = store.readLedger.bind(store);
		store.readLedger = (keys) => (reads++, read(keys));
		const { results, sent } = send(store, ['r1', 'r2']);
		const [known, fresh] = await results;
		expect(known).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
		expect(known.warnings).toContain('the stage ledger has this stage for this lead already: not sent again');
		expect(fresh.status).toBe('sent');
		expect(sent.flat()).toEqual([fresh.event_id]);
		expect(reads).toBe(0);
	});

	it('a store that does not read ledgers with its claims: read once for the batch, same verdicts', async () => {
		const store = await storeWithStage('r1');
		const claim = store.claimBatch.bind(store);
		store.claimBatch = (keys, ttl, token, options?: ClaimOptions) => claim(keys, ttl, token, { takeHeld: options?.takeHeld });
		let reads = 0;
		const read = store.readLedger.bind(store);
		store.readLedger = (keys) => (reads++, read(keys));
		const [known, fresh] = await send(store, ['r1', 'r2']).results;
		expect(known).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
		expect(fresh.status).toBe('sent');
		expect(reads).toBe(1);
	});

	it('a ledger the claim could not read never blocks the send: the item says the stage order was not checked', async () => {
		const store = await storeWithStage('r1');
		const claim = store.claimBatch.bind(store);
		store.claimBatch = async (keys, ttl, token, options) => {
			const claimed = await claim(keys, ttl, token, options);
			return { ...claimed, ledger: keys.map(() => new Error('The dedup store (test) answered WRONGTYPE')) };
		};
		const [r1] = await send(store, ['r1']).results;
		expect(r1.status).toBe('sent');
		expect(r1.warnings).toContain(
			'the stage ledger could not be read (The dedup store (test) answered WRONGTYPE): sent under dedup alone, stage order not checked',
		);
	});
});
