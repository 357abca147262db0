import {
	deriveEventId,
	ledgerKey,
	namespacedPrefix,
	processCapture,
	type DispatchItem,
	type ItemResult,
} from '../../shared';
import { deliveryLedger, markedSent, measure, recordFigures } from '../support/faultFigures';
import { FAULT_PIXEL, faultHarness } from '../support/faultHarness';

/** The rows of RELIABILITY.md these scenarios write (issue 12, points 4 and 5). */
const ROWS = {
	'ids-snowflake': {
		order: 140,
		scenario: 'Record ids beyond 2^53',
		done: '1,000 CRM webhook bodies whose ids are JSON numbers from 1234567890123456789 up (snowflake-style), through the capture core, then sent',
		expected:
			'every id kept with its exact digits: 1,000 leads, 1,000 event ids, each delivered once (read as JavaScript numbers they are 5 ids)',
	},
	'ids-shared-pixel': {
		order: 150,
		scenario: 'Two clients sharing a pixel',
		done: 'two clients with Client Keys (acme, globex) send 500 leads each with the same record ids to one pixel; both re-run',
		expected:
			'1,000 distinct event ids (the Client Key is part of the id): all delivered once, the re-runs send nothing',
	},
	'ids-browser-vs-server': {
		order: 155,
		scenario: "A stranger's captures with CRM deal ids",
		done: "500 unauthenticated capture-script posts whose capture_id is a CRM deal's id (each with the stranger's fbclid), through the capture core and sent; then the CRM's own Lead of each of the 500 deals; both re-run",
		expected:
			"the 500 deals' Lead events sent, none a duplicate (the browser's record ids are browser:<capture_id>); no deal's stage ledger holds a stranger's click id; the re-runs send nothing",
	},
	'ids-odd-stage-names': {
		order: 157,
		scenario: 'Stage names special on a JavaScript object',
		done: '200 leads each sent the stages __proto__, constructor, toString, hasOwnProperty and valueOf (1,000 events); re-run; every dedup key deleted (as when the dedup TTL has passed) and re-run again',
		expected:
			'every stage recorded in each lead\'s stage ledger and sent once; neither re-run sends a stage again (the second stopped by the ledger alone)',
	},
} as const;

/** A stranger's post to the public capture endpoint, as the capture script's protocol has it. */
const strangerCapture = (captureId: string, i: number) =>
	JSON.stringify({
		v: 1,
		type: 'submit',
		capture_id: captureId,
		form_id: 'contact',
		page_url: `https://www.example.com/?fbclid=IwAR_stranger_${i}`,
		fields: { email: `stranger.${i}@example.net` },
		click: { fbclid: `IwAR_stranger_${i}` },
		ts: Date.now(),
	});

const dealId = (i: number) => `6355821${String(i).padStart(4, '0')}`;
const ODD_STAGES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

const SNOWFLAKE = 1234567890123456789n;

/** A CRM delivery as the CRM sends it: the id a bare JSON number. */
const crmBody = (i: number) =>
	`{"id": ${SNOWFLAKE + BigInt(i)}, "email": "snow.${i}@example.com", "first_name": "Sam"}`;

/**
 * Ids that must survive every edge: snowflake record ids arriving as JSON numbers, and two
 * agency clients whose CRMs number records alike sharing one pixel. Counted at the Meta stand-in
 * against the event ids that should have reached it.
 */
describe('ids that never collide', () => {
	const h = faultHarness('faults-ids');

	const counts = (runs: ItemResult[][], rerun: ItemResult[] = []) => ({
		errorsReported: runs.flat().filter((r) => r.status === 'failed').length,
		rerunSent: rerun.filter((r) => r.status === 'sent').length,
	});

	it('1,000 snowflake ids sent as JSON numbers: 1,000 events, each delivered once', async () => {
		const items: DispatchItem[] = Array.from({ length: 1000 }, (_, i) => {
			const outcome = processCapture(
				{ method: 'POST', headers: { 'content-type': 'application/json' }, rawBody: Buffer.from(crmBody(i)), query: {} },
				{ source: 'generic', signature: { kind: 'none' }, state: { from: 'preset' } },
			);
			if (outcome.kind !== 'accepted') throw new Error(`capture ${i} not accepted: ${JSON.stringify(outcome)}`);
			return { record: outcome.record, eventName: 'Lead' };
		});
		const recordIds = items.map((item) => String(item.record.record_id));
		expect(recordIds[0]).toBe('1234567890123456789');
		expect(new Set(recordIds).size).toBe(1000);
		// What JSON.parse alone would have made of them.
		const asNumbers = new Set(recordIds.map((id) => String(Number(id))));
		expect(asNumbers.size).toBe(5);

		const first = await h.run(items);
		const rerun = await h.run(items);
		expect(rerun.every((r) => r.status === 'duplicate')).toBe(true);
		const pixel = first[0].destination;
		const expected = new Set(recordIds.map((id) => deriveEventId(pixel, 'Lead', id)));
		const ledger = deliveryLedger(h.standIn, expected);
		const measured = measure(ledger, await markedSent(h.admin, h.prefix), expected, counts([first], rerun));
		recordFigures({ id: 'ids-snowflake', ...ROWS['ids-snowflake'], measured, details: { distinctAsJavaScriptNumbers: asNumbers.size } });
	});

	it("a stranger's captures carrying CRM deal ids never make the deals' events duplicates or write their ledgers", async () => {
		const DEALS = 500;
		const strangers: DispatchItem[] = Array.from({ length: DEALS }, (_, i) => {
			const outcome = processCapture(
				{
					method: 'POST',
					headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': 'Mozilla/5.0 Chrome/126' },
					rawBody: Buffer.from(strangerCapture(dealId(i), i)),
					query: {},
					remoteAddress: '203.0.113.9',
				},
				{ source: 'script', signature: { kind: 'none' }, state: { from: 'preset' } },
			);
			if (outcome.kind !== 'accepted') throw new Error(`capture ${i} not accepted: ${JSON.stringify(outcome)}`);
			return { record: outcome.record, eventName: 'Lead' };
		});
		expect(strangers[0].record.record_id).toBe(`browser:${dealId(0)}`);
		const deals: DispatchItem[] = Array.from({ length: DEALS }, (_, i) => ({
			record: { record_id: dealId(i), state: 'lead', contact: { email: `deal.${i}@example.com` } },
			eventName: 'Lead',
		}));
		const withLedger = { ledger: {} };
		const attack = await h.run(strangers, withLedger);
		const real = await h.run(deals, withLedger);
		expect(real.map((r) => r.status)).toEqual(Array(DEALS).fill('sent'));
		const reruns = [...(await h.run(strangers, withLedger)), ...(await h.run(deals, withLedger))];
		expect(reruns.every((r) => r.status === 'duplicate')).toBe(true);

		// No deal's ledger holds a stranger's click id (or any click id: the CRM sent none).
		const pipeline = h.admin.pipeline();
		for (let i = 0; i < DEALS; i++) pipeline.hgetall(ledgerKey(h.prefix, 'meta', FAULT_PIXEL, dealId(i)));
		const ledgers = ((await pipeline.exec()) ?? []).map(([, hash]) => hash as Record<string, string>);
		expect(ledgers.filter((hash) => hash['first_event'] === 'Lead')).toHaveLength(DEALS);
		expect(ledgers.filter((hash) => JSON.stringify(hash).includes('stranger'))).toEqual([]);

		await h.record(
			{ id: 'ids-browser-vs-server', ...ROWS['ids-browser-vs-server'] },
			[...strangers, ...deals],
			counts([attack, real], reruns),
		);
	});

	it('stages named __proto__, constructor, toString… are recorded once and never resent', async () => {
		const LEADS = 200;
		const at = new Date(Date.now() - 60_000).toISOString();
		const items: DispatchItem[] = Array.from({ length: LEADS }, (_, i) =>
			ODD_STAGES.map((stage) => ({
				record: { record_id: `lead-${i}`, stage, stage_at: at, contact: { email: `odd.${i}@example.com` } },
				eventName: stage,
			})),
		).flat();
		const withLedger = { ledger: {} };
		const first = await h.run(items, withLedger);
		expect(first.map((r) => r.status)).toEqual(Array(items.length).fill('sent'));
		const rerun = await h.run(items, withLedger);
		expect(rerun.every((r) => r.status === 'duplicate')).toBe(true);

		const hash = await h.admin.hgetall(ledgerKey(h.prefix, 'meta', FAULT_PIXEL, 'lead-0'));
		expect(Object.keys(hash).filter((f) => f.startsWith('stage:')).sort()).toEqual(
			ODD_STAGES.map((stage) => `stage:${stage}`).sort(),
		);
		const expected = new Set(
			items.map((item) => deriveEventId(FAULT_PIXEL, item.eventName, String(item.record.record_id))),
		);
		const sentBeforeExpiry = await markedSent(h.admin, h.prefix);
		const dedupKeys = await h.admin.keys(`${h.prefix}:meta:*`);
		expect(dedupKeys).toHaveLength(items.length);
		for (let i = 0; i < dedupKeys.length; i += 500) await h.admin.del(...dedupKeys.slice(i, i + 500));
		const afterExpiry = await h.run(items, withLedger);
		expect(afterExpiry.map((r) => r.status)).toEqual(Array(items.length).fill('duplicate'));
		expect(afterExpiry[0].warnings).toEqual([
			'the stage ledger has this stage for this lead already: not sent again',
		]);

		const ledger = deliveryLedger(h.standIn, expected);
		const measured = measure(ledger, sentBeforeExpiry, expected, counts([first], [...rerun, ...afterExpiry]));
		recordFigures({ id: 'ids-odd-stage-names', ...ROWS['ids-odd-stage-names'], measured });
	});

	it('two clients sharing a pixel with the same record ids: both get every lead delivered', async () => {
		const items: DispatchItem[] = Array.from({ length: 500 }, (_, i) => ({
			record: { record_id: `deal-${i}`, contact: { email: `deal.${i}@example.com` } },
			eventName: 'Lead',
		}));
		const clients = ['acme', 'globex'];
		const send = (clientKey: string) =>
			h.run(items, { keyPrefix: namespacedPrefix(h.prefix, clientKey), clientKey });
		const runs = [];
		for (const client of clients) runs.push(await send(client));
		const reruns = [];
		for (const client of clients) reruns.push(await send(client));
		expect(reruns.flat().every((r) => r.status === 'duplicate')).toBe(true);

		const pixel = runs[0][0].destination;
		const expected = new Set(
			clients.flatMap((client) =>
				items.map((item) => deriveEventId(pixel, 'Lead', String(item.record.record_id), client)),
			),
		);
		expect(expected.size).toBe(1000);
		const sent = new Set<string>();
		for (const client of clients) {
			for (const id of await markedSent(h.admin, namespacedPrefix(h.prefix, client))) sent.add(id);
		}
		const ledger = deliveryLedger(h.standIn, expected);
		const measured = measure(ledger, sent, expected, counts(runs, reruns.flat()));
		recordFigures({ id: 'ids-shared-pixel', ...ROWS['ids-shared-pixel'], measured });
	});
});
