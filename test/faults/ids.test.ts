import {
	deriveEventId,
	namespacedPrefix,
	processCapture,
	type DispatchItem,
	type ItemResult,
} from '../../shared';
import { deliveryLedger, markedSent, measure, recordFigures } from '../support/faultFigures';
import { faultHarness } from '../support/faultHarness';

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
} as const;

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
