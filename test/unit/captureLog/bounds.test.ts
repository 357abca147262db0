import fc from 'fast-check';
import {
	boundEntry,
	DEFAULT_MAX_ENTRY_BYTES,
	type RedactedRecord,
} from '../../../shared/captureLog';
import { checkProperty } from '../../support/hostile';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const big = (char: string, n = 200_000) => char.repeat(n);

/**
 * The capture log's per-entry byte cap: whatever a stranger posts to the public capture
 * endpoint, its entry in Redis stays within DEFAULT_MAX_ENTRY_BYTES (4 KiB), and the lead is
 * never dropped (its state survives; `_truncated` says what was cut).
 */
describe('capture-log entry bounds', () => {
	it('huge values: every kept text is clipped (page URL 512, the rest 200 characters) and the entry says how many', () => {
		// Redaction keeps no value this long (tokens are 64 characters at most): the bounds hold
		// on their own for any record handed to them.
		const entry = boundEntry({
			_redacted: true,
			state: 'lead',
			source: { kind: 'script', form_id: big('f'), page_url: `https://example.com/${big('p')}` },
			contact: { email_domain: 'example.com', city: big('c'), region: big('r') },
			consent: { ad_user_data: big('g') },
			attributes: { plan: big('x') },
		});
		expect(entry.bytes).toBeLessThanOrEqual(DEFAULT_MAX_ENTRY_BYTES);
		expect(entry.record.source?.form_id).toBe('f'.repeat(200));
		expect(entry.record.source?.page_url).toHaveLength(512);
		expect(entry.record.contact?.city).toBe('c'.repeat(200));
		expect(entry.record.consent).toEqual({ ad_user_data: 'g'.repeat(200) });
		expect(entry.record.attributes).toEqual({ plan: 'x'.repeat(200) });
		// form id, page URL, city, region, consent, attribute.
		expect(entry.record._truncated).toEqual({ clipped: 6, dropped: [] });
		expect(JSON.parse(entry.json)).toEqual(entry.record);
	});

	it('many fields: 5,000 attributes keep the first ones that fit in 4 KiB, in order; long keys are dropped', () => {
		const attributes: Record<string, string> = { [big('k', 65)]: 'long key' };
		for (let i = 0; i < 5_000; i++) attributes[`a${String(i).padStart(4, '0')}`] = `value ${'v'.repeat(150)}`;
		const entry = boundEntry({ _redacted: true, state: 'lead', attributes });
		expect(entry.bytes).toBeLessThanOrEqual(DEFAULT_MAX_ENTRY_BYTES);
		const kept = Object.keys(entry.record.attributes ?? {});
		expect(kept.length).toBeGreaterThan(10);
		expect(kept).toEqual(kept.map((_, i) => `a${String(i).padStart(4, '0')}`));
		expect(entry.record._truncated?.dropped).toEqual(['attributes']);
	});

	it('deep nesting: nested consent and attribute values are dropped, scalars kept', () => {
		let deep: Record<string, unknown> = { leaf: 'x' };
		for (let i = 0; i < 10_000; i++) deep = { deep };
		const entry = boundEntry({
			_redacted: true,
			state: 'lead',
			consent: { ad_user_data: 'granted', nested: deep },
			attributes: { plan: 'pro', nested: deep as unknown as string },
		});
		expect(entry.record.consent).toEqual({ ad_user_data: 'granted' });
		expect(entry.record.attributes).toEqual({ plan: 'pro' });
		expect(entry.record._truncated?.dropped.sort()).toEqual(['attributes', 'consent']);
	});

	it('a cap smaller than the fields: sections go in order, the state stays', () => {
		const record: RedactedRecord = {
			_redacted: true,
			state: 'qualified',
			occurred_at: '2026-12-01T10:00:00.000Z',
			source: { kind: 'script', form_id: big('f'), page_url: `https://example.com/${big('p')}` },
			contact: { email_domain: 'example.com', city: big('c'), region: big('r'), country: 'us' },
			client: { country: 'us', region: big('r') },
			value: { amount: 5, currency: big('u') },
			consent: { a: big('1'), b: big('2') },
			attributes: { x: big('3') },
		};
		const entry = boundEntry(record, 1024);
		expect(entry.bytes).toBeLessThanOrEqual(1024);
		expect(entry.record.state).toBe('qualified');
		expect(entry.record._truncated?.dropped).toEqual(
			expect.arrayContaining(['attributes', 'consent', 'source.page_url']),
		);
	});

	it('any redacted record, any cap from 1 KiB: the entry fits, keeps its state and parses back', () => {
		const text = fc.string({ unit: 'binary', maxLength: 3_000 });
		const scalars = fc.dictionary(fc.string({ maxLength: 80 }), fc.oneof(text, fc.integer(), fc.boolean()), {
			maxKeys: 200,
		});
		checkProperty(
			fc.property(
				fc.record({
					state: fc.constantFrom('lead', 'partial', 'qualified'),
					source: fc.record({ form_id: text, page_url: text, kind: text }, { requiredKeys: [] }),
					contact: fc.record({ city: text, region: text, email_domain: text }, { requiredKeys: [] }),
					consent: scalars,
					attributes: scalars,
				}),
				fc.integer({ min: 1024, max: 16_384 }),
				(record, cap) => {
					const entry = boundEntry({ _redacted: true, ...record } as RedactedRecord, cap);
					expect(bytes(entry.json)).toBe(entry.bytes);
					expect(entry.bytes).toBeLessThanOrEqual(cap);
					expect(entry.record.state).toBe(record.state);
					expect(JSON.parse(entry.json)).toEqual(entry.record);
				},
			),
			500,
		);
	});
});
