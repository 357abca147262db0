import {
	dispatch,
	ledgerKey,
	metaAdapter,
	MemoryDedupStore,
	type DispatchItem,
	type meta,
} from '../../shared';
import type { LeadRecord } from '../../shared/types';
import { crmLead } from '../support/leads';
import { fastTransport, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'EAAG-test-access-token-0123456789';
const APP_SECRET = 'app-secret-abcdef-987';
const PIXEL = '5550001112';
const DAY = 86_400_000;
const ORDER = ['Lead', 'Qualified', 'Booked', 'Won'];

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

/** The lead's record at a stage: the same record_id, the stage and when it was reached. */
const atStage = (id: number, stage: string, hoursAgo: number, extra: Partial<LeadRecord> = {}) =>
	crmLead(id, {
		stage: stage.toLowerCase(),
		stage_at: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
		...extra,
	});
const item = (record: LeadRecord, eventName: string): DispatchItem => ({ record, eventName });

describe('stage ledger: a lead’s stages through dispatch, a loopback Meta and a real Redis', () => {
	const h = senderHarness('ledger');
	let standIn: StandIn;
	const config = (): meta.MetaConfig => ({
		pixelId: PIXEL,
		accessToken: TOKEN,
		appSecret: APP_SECRET,
		apiVersion: 'v26.0',
		baseUrl: standIn.url,
		actionSource: 'auto',
		limitedDataUse: 'auto',
	});
	const run = h.runner(metaAdapter, config);
	const withLedger = { ledger: { stageOrder: ORDER } };
	const sentNames = () => standIn.received.map((r: { event: { event_name: string } }) => r.event.event_name);

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN, appSecret: APP_SECRET });
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('Lead → Qualified → Booked → Won: one event per stage, across re-runs of every stage', async () => {
		const life = [
			item(crmLead(1), 'Lead'),
			item(atStage(1, 'Qualified', 1.5), 'Qualified'),
			item(atStage(1, 'Booked', 1), 'Booked'),
			item(atStage(1, 'Won', 0.5, { value: { amount: 4200, currency: 'EUR' } }), 'Won'),
		];
		for (const step of life) {
			const [r] = await run([step], withLedger);
			expect(r.status).toBe('sent');
			expect(r.warnings.join(' ')).not.toMatch(/skips|out of order/);
		}
		const again = await run(life, withLedger);
		expect(again.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate']);
		expect(sentNames()).toEqual(ORDER);
		// All four stages carry the same lead (record_id) and distinct event ids.
		const ids = new Set(standIn.received.map((r: { event: { event_id: string } }) => r.event.event_id));
		expect(ids.size).toBe(4);
	});

	it('keeps ids, times and stages, never personal data, with a TTL of at least 90 days', async () => {
		await run([item(crmLead(2, { click: { gclid: 'Cj0KCQ-test-gclid' } }), 'Lead')], withLedger);
		await run([item(atStage(2, 'Qualified', 1), 'Qualified')], withLedger);
		const key = ledgerKey(h.prefix, 'meta', PIXEL, 'deal-2');
		const hash = await h.admin.hgetall(key);
		expect(Object.keys(hash).sort()).toEqual(
			['created', 'first_event', 'first_event_id', 'first_time', 'id:gclid', 'sent', 'stage:Lead', 'stage:Qualified'].sort(),
		);
		expect(hash.first_event).toBe('Lead');
		expect(hash['id:gclid']).toBe('Cj0KCQ-test-gclid');
		expect(JSON.stringify(hash)).not.toMatch(/buyer2|example\.de|1234567|deal-2/);
		expect(await h.admin.pttl(key)).toBeGreaterThan(90 * DAY - 60_000);
	});

	it('warns about a skipped stage and an out-of-order one, and still sends them', async () => {
		await run([item(crmLead(3), 'Lead')], withLedger);
		const [won] = await run([item(atStage(3, 'Won', 1), 'Won')], withLedger);
		expect(won.status).toBe('sent');
		expect(won.warnings.join(' ')).toMatch(/stage "Won" skips "qualified", "booked"/);
		const [late] = await run([item(atStage(3, 'Qualified', 2), 'Qualified')], withLedger);
		expect(late.status).toBe('sent');
		expect(late.warnings.join(' ')).toMatch(/after the later stage "won": out of order/);
	});

	it('an over-age stage is expired with the reason, never sent with a rewritten time', async () => {
		const [old] = await run([item(atStage(4, 'Qualified', 24 * 9), 'Qualified')], {
			...withLedger,
			eventWindowPolicy: 'clamp',
		});
		expect(old.status).toBe('expired');
		expect(old.error).toMatch(/^stage "qualified" expired: (stage_at|occurred_at) is 9\.0 days old, outside Meta's 7-day window: not sent \(the event time is never rewritten\)$/);
		expect(standIn.received).toHaveLength(0);
	});

	it('a stage sent before is not sent again once its dedup key has expired (the ledger outlives it)', async () => {
		await run([item(crmLead(5), 'Lead'), item(atStage(5, 'Qualified', 1), 'Qualified')], withLedger);
		expect(standIn.received).toHaveLength(2);
		// The dedup keys expire after the dedup TTL (30 days by default); the ledger stays 180.
		const dedupKeys = await h.admin.keys(`${h.prefix}:meta:${PIXEL}:*`);
		expect(dedupKeys).toHaveLength(2);
		await h.admin.del(...dedupKeys);
		const again = await run([item(atStage(5, 'Qualified', 1), 'Qualified')], withLedger);
		expect(again[0]).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
		expect(again[0].warnings).toContain('the stage ledger has this stage for this lead already: not sent again');
		expect(standIn.received).toHaveLength(2);
		// …and its claim was freed: nothing of it is left in flight.
		expect(await h.admin.keys(`${h.prefix}:meta:${PIXEL}:*`)).toHaveLength(0);
	});

	it('click and lead ids holding lone surrogates (a hostile delivery): sent, recorded, kept in the ledger with U+FFFD', async () => {
		const hostile = crmLead(9, { click: { fbclid: 'IwAR\ud800x' }, attributes: { lead_id: 'L\udc00' } });
		const [first] = await run([item(hostile, 'Lead')], withLedger);
		expect(first.status).toBe('sent');
		expect(first.warnings.join(' ')).not.toMatch(/not recorded|could not/);
		const hash = await h.admin.hgetall(ledgerKey(h.prefix, 'meta', PIXEL, 'deal-9'));
		expect(hash).toMatchObject({ 'id:fbclid': 'IwAR\ufffdx', 'id:lead_id': 'L\ufffd', first_event: 'Lead' });
		const [again] = await run([item(hostile, 'Lead')], withLedger);
		expect(again).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
	});

	it('no ledger key is written for an event the platform refused', async () => {
		const failing = await dispatch([item(atStage(6, 'Qualified', 1), 'Qualified')], {
			adapter: metaAdapter,
			config: { ...config(), accessToken: 'EAAG-wrong-token-000000000000' },
			transport: fastTransport(),
			store: h.store(),
			keyPrefix: h.prefix,
			...withLedger,
		});
		expect(failing[0].status).toBe('failed');
		expect(await h.admin.exists(ledgerKey(h.prefix, 'meta', PIXEL, 'deal-6'))).toBe(0);
	});

	it('the in-memory store keeps the same ledger', async () => {
		const store = new MemoryDedupStore();
		await run([item(crmLead(7), 'Lead')], withLedger, store);
		const [won] = await run([item(atStage(7, 'Won', 1), 'Won')], withLedger, store);
		expect(won.warnings.join(' ')).toMatch(/skips "qualified", "booked"/);
		const [hash] = await store.readLedger([ledgerKey(h.prefix, 'meta', PIXEL, 'deal-7')]);
		expect(hash).toMatchObject({ first_event: 'Lead', 'stage:Won': expect.any(String) });
	});

	it.each([
		['Redis', () => h.store()],
		['in-memory', () => new MemoryDedupStore()],
	])("scanLedger (%s): a destination's ledger hashes, at most the limit, and says when it stopped", async (_label, make) => {
		const store = make();
		await run([1, 2, 3].map((i) => item(crmLead(40 + i), 'Lead')), withLedger, store);
		const start = `${h.prefix}:ledger:meta:${PIXEL}:`;
		const all = await store.scanLedger(start, 10);
		expect(all.truncated).toBe(false);
		expect(all.entries).toHaveLength(3);
		expect(all.entries.every((e) => e.key.startsWith(start) && e.fields.first_event === 'Lead')).toBe(true);
		const two = await store.scanLedger(start, 2);
		expect(two).toMatchObject({ truncated: true });
		expect(two.entries).toHaveLength(2);
		expect((await store.scanLedger(`${h.prefix}:ledger:meta:other:`, 10)).entries).toEqual([]);
	});
});
