import {
	dispatch,
	MemoryDedupStore,
	Transport,
	type DispatchItem,
	type DispatchOptions,
	type KeptFacts,
} from '../../../shared';
import { lead, testPlatform } from './fixtures';

/** A lead the test platform cannot build (no identity). */
const unbuildable: DispatchItem = {
	record: { record_id: 'x', occurred_at: new Date().toISOString(), contact: {} },
	eventName: 'Lead',
};

function setup() {
	const { adapter, sent } = testPlatform();
	const store = new MemoryDedupStore();
	const options = (
		over: Partial<DispatchOptions<{ destination: string }, string>> = {},
	): DispatchOptions<{ destination: string }, string> => ({
		adapter,
		config: { destination: 'd1' },
		transport: new Transport(),
		store,
		ledger: {},
		...over,
	});
	return { options, sent };
}

describe('dispatch modes: send, dry run, build for the outbox', () => {
	it('a dry run previews the request, sends nothing', async () => {
		const { options, sent } = setup();
		const results = await dispatch([lead('a'), lead('b')], options({ mode: { kind: 'dryRun' } }));
		expect(results.map((r) => [r.status, r.dry_run, r.payload])).toEqual([
			['skipped', true, results[0].event_id],
			['skipped', true, results[1].event_id],
		]);
		expect(results[0].response).toEqual({
			request_preview: { data: results.map((r) => r.event_id) },
		});
		expect(results[0].warnings).toEqual(['dry run: nothing was claimed or sent']);
		expect(sent).toEqual([]);
	});

	it('a build for the outbox hands each built event over with its ledger write, previews nothing', async () => {
		const { options, sent } = setup();
		const built: Array<{ index: number; payload: string; kept: KeptFacts }> = [];
		const results = await dispatch(
			[lead('a', { stage: 'qualified' }), unbuildable, lead('b')],
			options({
				mode: {
					kind: 'buildForOutbox',
					onBuilt: (index, payload, kept) => built.push({ index, payload, kept }),
				},
			}),
		);
		expect(built.map((b) => [b.index, b.payload])).toEqual([
			[0, results[0].event_id],
			[2, results[2].event_id],
		]);
		// What the drained send writes to the stage ledger, made now from the record.
		expect(built[0].kept.ledger).toMatchObject({ stage: 'qualified' });
		expect(built[0].kept.ledger!.key).toEqual(expect.any(String));
		expect(built[1].kept.ledger).toBeDefined();
		expect(results.map((r) => r.status)).toEqual(['skipped', 'failed', 'skipped']);
		expect(results[1].error).toBe('no identity');
		for (const r of [results[0], results[2]]) {
			expect(r.dry_run).toBeUndefined();
			expect(r.response).toBeUndefined();
			expect(r.payload).toBeUndefined();
			expect(r.warnings).toEqual([]);
		}
		expect(sent).toEqual([]);
	});

	it('neither claims: the same leads sent afterwards are sent, not duplicates or in flight', async () => {
		const { options, sent } = setup();
		const leads = [lead('a'), lead('b')];
		await dispatch(leads, options({ mode: { kind: 'dryRun' } }));
		await dispatch(leads, options({ mode: { kind: 'buildForOutbox', onBuilt: () => undefined } }));
		const results = await dispatch(leads, options());
		expect(results.map((r) => [r.status, r.dedup])).toEqual([
			['sent', 'claimed'],
			['sent', 'claimed'],
		]);
		expect(sent.flat()).toEqual(results.map((r) => r.event_id));
	});

	it('a repeat of an event in a build for the outbox is handed over once', async () => {
		const { options } = setup();
		const built: number[] = [];
		const results = await dispatch(
			[lead('a'), lead('a')],
			options({ mode: { kind: 'buildForOutbox', onBuilt: (index) => built.push(index) } }),
		);
		expect(built).toEqual([0]);
		expect(results[1].error).toMatch(/^same event as item 0 of this batch/);
	});
});
