import { buildPreview, evaluateRules, parseLedger, withLedgerFacts } from '../../../shared';

/** "Send Qualified only within 28 days of the lead" as a rule, not code. */
const QUALIFIED_WITHIN_28_DAYS = {
	combinator: 'and' as const,
	conditions: [
		{ field: 'stage', match_type: 'equals' as const, pattern: 'Qualified' },
		{ field: 'days_since_lead_created', match_type: 'less_than' as const, pattern: '28' },
		{ field: 'previous_stage', match_type: 'not_equals' as const, pattern: 'lost' },
	],
};

const stageRecord = (daysAfter: number, extra: object = {}) => ({
	record_id: 'deal-1',
	stage: 'qualified',
	lead_created_at: '2026-03-01T10:00:00Z',
	stage_at: new Date(Date.parse('2026-03-01T10:00:00Z') + daysAfter * 86_400_000).toISOString(),
	...extra,
});

describe('rules: stage conditions', () => {
	it('stage is, days since the lead was created, previous stage is not', () => {
		const fresh = evaluateRules(QUALIFIED_WITHIN_28_DAYS, stageRecord(12, { previous_stage: 'lead' }));
		expect(fresh.matched).toBe(true);
		const late = evaluateRules(QUALIFIED_WITHIN_28_DAYS, stageRecord(30));
		expect(late.matched).toBe(false);
		expect(late.reason).toBe(
			'condition 2 of 3 failed: days_since_lead_created is less than 28: no (value is 30)',
		);
		const revived = evaluateRules(QUALIFIED_WITHIN_28_DAYS, stageRecord(3, { previous_stage: 'Lost' }));
		expect(revived.reason).toMatch(/condition 3 of 3 failed: previous_stage does not equal "lost": no/);
	});

	it('without the lead creation time the age is missing, and the rule says so', () => {
		const noCreation: Record<string, unknown> = stageRecord(1);
		delete noCreation.lead_created_at;
		expect(evaluateRules(QUALIFIED_WITHIN_28_DAYS, noCreation).reason).toBe(
			'condition 2 of 3 failed: days_since_lead_created is less than 28: no (field is missing)',
		);
	});

	it('the ledger fills in the creation time and the previous stage; the record’s own values win', () => {
		const entry = parseLedger({
			created: String(Date.parse('2026-03-01T10:00:00Z') / 1000),
			'stage:Lead': '1772359200',
			'stage:Contacted': '1772500000',
		});
		const bare: Record<string, unknown> = stageRecord(40);
		delete bare.lead_created_at;
		const filled = withLedgerFacts(bare, entry);
		expect(filled).toMatchObject({ lead_created_at: '2026-03-01T10:00:00.000Z', previous_stage: 'Contacted' });
		expect(evaluateRules(QUALIFIED_WITHIN_28_DAYS, filled).matched).toBe(false);
		expect(withLedgerFacts({ ...bare, previous_stage: 'lead' }, entry).previous_stage).toBe('lead');
	});

	it('preview and live agree: the same records, the same answers, with no clock involved', () => {
		const records = [stageRecord(1), stageRecord(27.9), stageRecord(28), stageRecord(60)];
		const live = records.map((r) => evaluateRules(QUALIFIED_WITHIN_28_DAYS, r).matched);
		expect(live).toEqual([true, true, false, false]);
		const report = buildPreview(
			{ mode: 'automatic_match', rules: QUALIFIED_WITHIN_28_DAYS, rulesApplyTo: 'all' },
			records.map((record, i) => ({ id: `${i}-0`, at: Date.parse('2026-05-01T00:00:00Z'), record })),
			{ now: Date.parse('2026-05-02T00:00:00Z'), windowDays: 7 },
		);
		expect(report.matched).toBe(2);
	});
});
