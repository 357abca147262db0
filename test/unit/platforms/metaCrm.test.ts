import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { createHash } from 'node:crypto';
import { readEventContext } from '../../../shared/events/context';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import { metaAdapter, readMetaLeadId, type MetaConfig } from '../../../shared/platforms/meta';
import type { LeadRecord } from '../../../shared/types';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const NOW_MS = 1_796_000_000_000;
const NOW = NOW_MS / 1000;
const DAY = 86_400;

const config = (overrides: Partial<MetaConfig> = {}): MetaConfig => ({
	pixelId: '42',
	accessToken: 'token-123456',
	actionSource: 'system_generated',
	limitedDataUse: 'auto',
	eventSource: 'crm',
	leadEventSource: 'HubSpot',
	...overrides,
});

function build(record: LeadRecord, overrides: Partial<MetaConfig> = {}, eventName = 'Qualified') {
	const identity = normalizeIdentity(record, { eventTimeMs: NOW_MS });
	return metaAdapter.buildEvent(
		{
			record,
			eventName,
			eventId: 'eid',
			eventTime: NOW,
			identity,
			user: renderIdentity(identity, IDENTITY_PROFILES['meta']),
			event: readEventContext(record, { identity }),
		},
		config(overrides),
	);
}

describe('Meta Conversion Leads (CRM) events', () => {
	it("sends the stage with Meta's lead id, system_generated, event_source crm and the CRM's name", () => {
		const r = build({
			record_id: 'deal-1',
			stage: 'Qualified',
			stage_at: (NOW - 3600) * 1000,
			contact: { email: 'Ann@Example.com' },
			attributes: { meta_lead_id: '1234567890123456' },
		});
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.payload).toEqual({
			event_name: 'Qualified',
			event_time: NOW,
			event_id: 'eid',
			action_source: 'system_generated',
			user_data: { lead_id: '1234567890123456', em: sha('ann@example.com') },
			custom_data: { event_source: 'crm', lead_event_source: 'HubSpot' },
		});
		expect(r.matchKeys).toEqual(['lead_id', 'em']);
	});

	it('falls back to hashed email or phone when there is no lead id', () => {
		const r = build({ contact: { phone: '+1 650 555 1212' } });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.payload.user_data).toEqual({ ph: sha('16505551212') });
		expect(r.payload.action_source).toBe('system_generated');
	});

	it.each([
		['too short', '12345678901234'],
		['too long', '123456789012345678'],
		['letters', '12345678901234a'],
	])('drops a lead id that is %s (Meta rejects invalid ones) and says so', (_label, id) => {
		const r = build({ contact: { email: 'a@example.com' }, attributes: { meta_lead_id: id } });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.payload.user_data.lead_id).toBeUndefined();
		expect(r.warnings.join(' ')).toMatch(/not a Meta lead id \(15 to 17 digits/);
	});

	it('fails a lead with neither a valid lead id nor email, phone, fbc or external id', () => {
		const r = build({ contact: { first_name: 'Ann' }, attributes: { meta_lead_id: '42' } });
		expect(r).toMatchObject({ ok: false, status: 'failed' });
		if (r.ok) return;
		expect(r.reason).toMatch(/nothing Meta can match/);
	});

	it.each([
		['a 15-digit string', '123456789012345', '123456789012345'],
		['a 17-digit string', '12345678901234567', '12345678901234567'],
		['a safe number', 123456789012345, '123456789012345'],
	])('reads %s as a lead id', (_label, raw, expected) => {
		expect(readMetaLeadId({ attributes: { meta_lead_id: raw } })).toEqual({ value: expected });
	});

	it('refuses a lead id number beyond exact integers instead of sending changed digits', () => {
		expect(
			readMetaLeadId({ attributes: { meta_lead_id: Number('12345678901234567') } }).warning,
		).toMatch(/too large to be exact/);
	});

	it("sends the dispatch's event time as it is: the builder does not time CRM events itself", () => {
		const r = build({
			occurred_at: (NOW - 20 * DAY) * 1000,
			stage_at: (NOW - 8 * DAY) * 1000,
			attributes: { meta_lead_id: '123456789012345' },
		});
		// The one timing rule is the dispatch plan's (test/integration/metaConversionLeads.test.ts).
		expect(r.ok && r.payload.event_time).toBe(NOW);
		expect(metaAdapter.stageTimed?.(config())).toBe(true);
		expect(metaAdapter.stageTimed?.(config({ eventSource: 'server' }))).toBe(false);
	});

	it('sends value and currency of a won stage in custom_data next to the CRM fields', () => {
		const r = build(
			{
				attributes: { meta_lead_id: '123456789012345' },
				value: { amount: '1200', currency: 'eur' },
			},
			{},
			'Won',
		);
		expect(r.ok && r.payload.custom_data).toEqual({
			event_source: 'crm',
			lead_event_source: 'HubSpot',
			value: 1200,
			currency: 'EUR',
		});
	});

	it('skips a lead whose consent denies ad_user_data', () => {
		const r = build({
			attributes: { meta_lead_id: '123456789012345' },
			consent: { ad_user_data: 'denied' },
		});
		expect(r).toMatchObject({ ok: false, status: 'skipped' });
	});

	it('leaves server events as they were when the event source is not crm', () => {
		const r = build(
			{ contact: { email: 'a@example.com' }, attributes: { meta_lead_id: '123456789012345' } },
			{ eventSource: 'server', actionSource: 'auto' },
			'Lead',
		);
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.payload.user_data.lead_id).toBeUndefined();
		expect(r.payload.custom_data).toBeUndefined();
	});
});
