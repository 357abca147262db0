import { parseTimeMs } from '../events/eventTime';
import type { LeadRecord } from '../types';
import type { LedgerEntry, LedgerWrite } from './types';

/** Ids a later adjustment or stage event may need; click ids are not personal data. */
const ID_FIELDS = ['gclid', 'gbraid', 'wbraid', 'fbclid', 'fbc', 'ttclid', 'msclkid', 'epik'];

/** The ledger hash as stored → its entry; null when the lead has none here. */
export function parseLedger(hash: Record<string, string> | null | undefined): LedgerEntry | null {
	if (!hash || Object.keys(hash).length === 0) return null;
	// Prototype-free maps: any stage name (`__proto__`, `constructor`) is an own key like any other.
	const entry: LedgerEntry = { ids: bare(), stages: bare(), adjustments: bare() };
	const created = Number(hash.created);
	if (Number.isFinite(created) && created > 0) entry.createdAt = created;
	if (hash.first_event && hash.first_event_id) {
		entry.first = {
			event: hash.first_event,
			eventId: hash.first_event_id,
			time: Number(hash.first_time) || 0,
		};
	}
	for (const [field, value] of Object.entries(hash)) {
		if (field.startsWith('id:')) entry.ids[field.slice(3)] = value;
		else if (field.startsWith('stage:')) entry.stages[field.slice(6)] = Number(value) || 0;
		else if (field.startsWith('adj:')) entry.adjustments[field.slice(4)] = Number(value) || 0;
	}
	return entry;
}

function bare<V>(): Record<string, V> {
	return Object.create(null) as Record<string, V>;
}

/** The stage a record carries (trimmed, lower-cased for comparisons), or undefined. */
export function stageOf(record: LeadRecord): string | undefined {
	const raw = record.stage;
	if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
	const text = String(raw).trim();
	return text === '' ? undefined : text;
}

/**
 * What one sent event adds to its lead's ledger (no personal data: ids, names, times). An
 * adjustment (`adjustment: true`: a Google retraction or restatement) is recorded as sent (an
 * `adj:` field, not a `stage:` one: it is never the lead's previous, skipped or out-of-order
 * stage), is never the lead's first event, and its time is never the lead's creation: for a lead the
 * ledger does not know, only an explicit `lead_created_at` is kept, so a later adjustment
 * "From Stage Ledger" never builds its order id from an adjustment.
 */
export function ledgerWriteFor(input: {
	key: string;
	gateKey: string;
	ttlMs: number;
	record: LeadRecord;
	eventName: string;
	eventId: string;
	eventTime: number;
	adjustment?: boolean;
	/** When the event was sent (unix s): `sent` holds the lead's last upload, for the health report. */
	sentAt?: number;
	/** A Meta Conversion Leads (CRM) event: the lead is marked `src: crm` for the health report. */
	crm?: boolean;
	/** The record attribute the platform's adapter names its lead id in (PlatformAdapter.leadIdAttribute). */
	leadIdAttribute?: string;
}): LedgerWrite {
	const { record, eventName, eventId } = input;
	const eventTime = String(input.eventTime);
	const createdMs = parseTimeMs(record.lead_created_at);
	const setIfAbsent: Record<string, string> = {};
	if (createdMs !== null) setIfAbsent.created = String(Math.floor(createdMs / 1000));
	else if (!input.adjustment) setIfAbsent.created = eventTime;
	if (!input.adjustment) {
		setIfAbsent.first_event = eventName;
		setIfAbsent.first_event_id = eventId;
		setIfAbsent.first_time = eventTime;
	}
	const click = (record.click ?? {}) as Record<string, unknown>;
	for (const field of ID_FIELDS) {
		const value = click[field];
		if (typeof value === 'string' && value.trim() !== '') setIfAbsent[`id:${field}`] = value.trim();
	}
	// The platform's lead id where its adapter says its sources put it, else a generic lead_id.
	const attributes = (record.attributes ?? {}) as Record<string, unknown>;
	const own = input.leadIdAttribute !== undefined ? attributes[input.leadIdAttribute] : undefined;
	const leadId = own ?? attributes['lead_id'];
	if (typeof leadId === 'string' || typeof leadId === 'number') {
		setIfAbsent['id:lead_id'] = String(leadId);
	}
	if (input.crm) setIfAbsent.src = 'crm';
	const field = input.adjustment ? `adj:${eventName}` : `stage:${eventName}`;
	const set: Record<string, string> = { [field]: eventTime };
	if (input.sentAt !== undefined) set.sent = String(input.sentAt);
	return { key: input.key, gateKey: input.gateKey, ttlMs: input.ttlMs, set, setIfAbsent };
}
