import { createHash } from 'node:crypto';

import { deriveRecordId, processCapture, type CaptureConfig } from '../../../shared/capture';
import { config, NOW, request } from './helpers';

const derivation: Partial<CaptureConfig> = { deriveRecordId: true, formId: 'newsletter' };

function recordIdOf(body: object, overrides: Partial<CaptureConfig> = derivation): unknown {
	const outcome = processCapture(request(body), config('generic', overrides), NOW);
	if (outcome.kind !== 'accepted')
		throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
	return outcome.record.record_id;
}

describe('record id derivation', () => {
	it('is derived:sha256_hex(form_id|canonical email), exactly', () => {
		const expected = `derived:${createHash('sha256').update('newsletter|a@x.com').digest('hex')}`;
		expect(deriveRecordId('newsletter', 'a@x.com')).toBe(expected);
		expect(recordIdOf({ email: 'a@x.com' })).toBe(expected);
	});

	it('same lead → same id, on every delivery', () => {
		expect(recordIdOf({ email: 'a@x.com', plan: 'a' })).toBe(
			recordIdOf({ email: 'a@x.com', plan: 'b' }),
		);
	});

	it.each<[string, string]>([
		['A@X.com ', 'a@x.com'],
		['  a@X.COM', 'a@x.com'],
	])('email normalization makes %j and %j equal', (left, right) => {
		expect(recordIdOf({ email: left })).toBe(recordIdOf({ email: right }));
	});

	it('different form → different id', () => {
		expect(recordIdOf({ email: 'a@x.com' })).not.toBe(
			recordIdOf({ email: 'a@x.com' }, { ...derivation, formId: 'webinar' }),
		);
	});

	it('the body’s form_id wins over the node’s Form ID', () => {
		expect(recordIdOf({ email: 'a@x.com', form_id: 'webinar' })).toBe(
			deriveRecordId('webinar', 'a@x.com'),
		);
	});

	it('uses the E.164 phone (with +) when there is no valid email', () => {
		const expected = deriveRecordId('newsletter', '+14155550100');
		expect(recordIdOf({ phone: '(415) 555-0100' }, { ...derivation, defaultCountry: 'US' })).toBe(
			expected,
		);
		expect(recordIdOf({ phone: '+1 415 555 0100', email: 'broken@' })).toBe(expected);
	});

	it('never uses time or chance: the receipt time does not change it', () => {
		const at = (now: number) =>
			processCapture(request({ email: 'a@x.com' }), config('generic', derivation), now);
		expect(at(NOW)).toMatchObject({ record: { record_id: recordIdOf({ email: 'a@x.com' }) } });
		expect(at(NOW + 86_400_000)).toMatchObject({
			record: { record_id: recordIdOf({ email: 'a@x.com' }) },
		});
	});

	it('is not used when the body has an id', () => {
		expect(recordIdOf({ submission_id: 'S-1', email: 'a@x.com' })).toBe('S-1');
	});

	it.each<[string, object, Partial<CaptureConfig>, string]>([
		[
			'off',
			{ email: 'a@x.com' },
			{},
			'no usable record id: no id field found (looked for record_id, submission_id, response_id, lead_id, entry_id, uuid, id); set the record id field or turn on record id derivation',
		],
		[
			'on without a form id',
			{ email: 'a@x.com' },
			{ deriveRecordId: true },
			'no usable record id: no id field found (looked for record_id, submission_id, response_id, lead_id, entry_id, uuid, id); set the record id field or turn on record id derivation; derivation needs a form id (none in the body and no Form ID set)',
		],
		[
			'on without email or phone',
			{ gclid: 'Cj0' },
			derivation,
			'no usable record id: no id field found (looked for record_id, submission_id, response_id, lead_id, entry_id, uuid, id); set the record id field or turn on record id derivation; derivation needs a valid email or phone number',
		],
	])('%s → 422', (_case, body, overrides, reason) => {
		expect(processCapture(request(body), config('generic', overrides), NOW)).toEqual({
			kind: 'rejected',
			status: 422,
			reason,
		});
	});

	it('a record id longer than 256 characters is not usable', () => {
		expect(
			processCapture(request({ id: 'x'.repeat(257), email: 'a@x.com' }), config('generic'), NOW),
		).toEqual({
			kind: 'rejected',
			status: 422,
			reason: 'no usable record id: id is longer than 256 characters',
		});
	});
});
