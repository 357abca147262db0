import { assessStage, daysSinceCreated, ledgerWriteFor, parseLedger } from '../../../shared/ledger';
import { withLedgerFacts } from '../../../shared/rules/stage';
import { metaAdapter } from '../../../shared/platforms/meta';

const ORDER = ['Lead', 'Qualified', 'Booked', 'Won'];
const entry = (stages: Record<string, number>, created = 1_000) =>
	parseLedger({
		created: String(created),
		first_event: 'Lead',
		first_event_id: 'abc',
		first_time: '1000',
		...Object.fromEntries(Object.entries(stages).map(([k, v]) => [`stage:${k}`, String(v)])),
	});

describe('stage ledger: assessStage', () => {
	it('a stage already in the ledger is already sent, whatever its case', () => {
		expect(assessStage(entry({ Qualified: 2_000 }), 'qualified', 3_000, ORDER)).toEqual({
			alreadySent: true,
			warnings: [],
		});
	});
	it('the next stage in order passes without a warning; a lead with no ledger is not warned for its first stage', () => {
		expect(assessStage(entry({ Lead: 1_000 }), 'Qualified', 2_000, ORDER).warnings).toEqual([]);
		expect(assessStage(null, 'Lead', 2_000, ORDER).warnings).toEqual([]);
	});
	it('names every skipped stage', () => {
		const { warnings } = assessStage(entry({ Lead: 1_000 }), 'Won', 2_000, ORDER);
		expect(warnings).toEqual([
			'stage "Won" skips "qualified", "booked": not sent for this lead; Meta asks for every stage change to be sent',
		]);
	});
	it('an earlier stage after a later one is out of order (by the order, or by time without one)', () => {
		expect(assessStage(entry({ Lead: 1_000, Won: 5_000 }), 'Booked', 6_000, ORDER).warnings).toEqual([
			'stage "Booked" skips "qualified": not sent for this lead; Meta asks for every stage change to be sent',
			'stage "Booked" arrives after the later stage "won": out of order',
		]);
		expect(assessStage(entry({ Contacted: 5_000 }), 'Demo', 4_000).warnings).toEqual([
			'stage "Demo" is older than stage "contacted" sent before: out of order',
		]);
	});
	it('days since the lead was created', () => {
		expect(daysSinceCreated(entry({}, 0 + 86_400), 86_400 * 29)).toBe(28);
		expect(daysSinceCreated(null, 5)).toBeUndefined();
	});
});

describe('stage ledger: an adjustment is recorded as sent, never as one of the lead\'s stages', () => {
	/** The hash the writes leave (set overwrites, setIfAbsent keeps the first), as the settle script does. */
	const hashAfter = (writes: Array<{ eventName: string; eventTime: number; adjustment?: boolean }>) => {
		const hash: Record<string, string> = {};
		for (const w of writes) {
			const write = ledgerWriteFor({ key: 'k', gateKey: 'g', ttlMs: 1, record: { record_id: 'deal-7' }, eventId: `id-${w.eventName}`, ...w });
			for (const [f, v] of Object.entries(write.setIfAbsent)) hash[f] ??= v;
			Object.assign(hash, write.set);
		}
		return hash;
	};
	const ledger = parseLedger(
		hashAfter([
			{ eventName: 'Lead', eventTime: 1_000 },
			{ eventName: 'Qualified', eventTime: 2_000 },
			{ eventName: 'retraction:lead', eventTime: 3_000, adjustment: true },
		]),
	);

	it('the previous stage is the last stage, not the retraction sent after it', () => {
		expect(ledger?.stages).toEqual({ Lead: 1_000, Qualified: 2_000 });
		expect(withLedgerFacts<Record<string, unknown>>({ record_id: 'deal-7', stage: 'Booked' }, ledger).previous_stage).toBe('Qualified');
	});
	it('the adjustment is not sent twice, and is neither a skipped nor a later stage', () => {
		expect(assessStage(ledger, 'retraction:lead', 4_000, ORDER)).toEqual({ alreadySent: true, warnings: [] });
		expect(assessStage(ledger, 'Booked', 2_500, ORDER)).toEqual({ alreadySent: false, warnings: [] });
	});
});

describe('stage ledger: what one sent event writes', () => {
	it('first-event fields and ids only if absent, the stage with its time; no contact data', () => {
		const write = ledgerWriteFor({
			key: 'k',
			gateKey: 'g',
			ttlMs: 1,
			record: {
				record_id: 'deal-9',
				lead_created_at: '2026-01-01T00:00:00Z',
				contact: { email: 'a@b.example' },
				click: { gclid: ' G-1 ', fbclid: '' },
				attributes: { lead_id: 1234567890 },
			},
			eventName: 'Won',
			eventId: 'e1',
			eventTime: 1_800_000_000,
		});
		expect(write.set).toEqual({ 'stage:Won': '1800000000' });
		expect(write.setIfAbsent).toEqual({
			created: String(Date.parse('2026-01-01T00:00:00Z') / 1000),
			first_event: 'Won',
			first_event_id: 'e1',
			first_time: '1800000000',
			'id:gclid': 'G-1',
			'id:lead_id': '1234567890',
		});
		expect(JSON.stringify(write)).not.toContain('a@b.example');
	});
	it("keeps Meta's lead id from where the Meta sources put it (attributes.meta_lead_id, as Meta's adapter declares)", () => {
		const write = ledgerWriteFor({
			key: 'k',
			gateKey: 'g',
			ttlMs: 1,
			record: { record_id: '123456789012345', attributes: { meta_lead_id: '123456789012345' } },
			eventName: 'Qualified',
			eventId: 'e2',
			eventTime: 1_800_000_000,
			leadIdAttribute: metaAdapter.leadIdAttribute,
		});
		expect(write.setIfAbsent['id:lead_id']).toBe('123456789012345');
	});
	it('an empty hash is no entry', () => {
		expect(parseLedger({})).toBeNull();
		expect(parseLedger(null)).toBeNull();
	});
});
