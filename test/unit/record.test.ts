import { readLeadRecord } from '../../shared/capture/input';
import { LEAD_RECORD_FIELDS, withRecordFields } from '../../shared/record';

describe('readLeadRecord', () => {
	it.each([
		[{ record_id: 'a' }, '', { record_id: 'a' }],
		[{ lead: { record_id: 'b' } }, 'lead', { record_id: 'b' }],
		[{ body: { lead: { record_id: 'c' } } }, ' body.lead ', { record_id: 'c' }],
		[{ lead: 'text' }, 'lead', null],
		[{ other: {} }, 'lead.x', null],
		[[1, 2], '', null],
		[{ leads: [{ record_id: 'd' }, { record_id: 'e' }] }, 'leads.1', { record_id: 'e' }],
		[{ body : { lead: { record_id: 'f' } } }, 'body . lead', { record_id: 'f' }],
	])('%j at %j', (json, path, expected) => {
		expect(readLeadRecord(json, path)).toEqual(expected);
	});

	// Issue 13 point 2: it followed inherited properties (`__proto__` returned Object.prototype).
	it.each(['__proto__', 'constructor', 'constructor.prototype', 'lead.__proto__', 'toString', 'hasOwnProperty'])(
		'never follows an inherited property: %s reads as missing',
		(path) => {
			expect(readLeadRecord({ lead: { record_id: 'a' } }, path)).toBeNull();
		},
	);

	it('reads the same paths as the rules and the capture (one reader)', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { readPathValue } = require('../../shared/path');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { readPath } = require('../../shared/capture/values');
		const json = JSON.parse('{"__proto__": {"record_id": "own"}, "answers": [{"lead": {"record_id": "x"}}]}');
		for (const path of ['__proto__', 'answers.0.lead', 'answers.lead', ' answers . 0 . lead ']) {
			const viaRules = readPathValue(json, path);
			expect(readPath(json, path)).toBe(viaRules);
			expect(readLeadRecord(json, path)).toEqual(viaRules ?? null);
		}
		expect(readLeadRecord(json, '__proto__')).toEqual({ record_id: 'own' });
	});
});

describe('withRecordFields', () => {
	it('sets dotted paths on a copy, leaving the input untouched', () => {
		const input = { record_id: 'r1', contact: { email: 'a@example.com', phone: '1' } };
		const out = withRecordFields(input, [
			{ path: 'contact.phone', value: '+1 650 555 1212' },
			{ path: 'value.amount', value: 10 },
			{ path: 'attributes.utm_source', value: 'fb' },
		]);
		expect(out).toEqual({
			record_id: 'r1',
			contact: { email: 'a@example.com', phone: '+1 650 555 1212' },
			value: { amount: 10 },
			attributes: { utm_source: 'fb' },
		});
		expect(input.contact.phone).toBe('1');
	});

	it.each(['', null, undefined])('treats %j as no value and removes the field', (value) => {
		expect(withRecordFields({ contact: { email: 'a@x.io', city: 'Oslo' } }, [{ path: 'contact.city', value }])).toEqual({
			contact: { email: 'a@x.io' },
		});
	});

	it('refuses a field that is not part of the lead record', () => {
		expect(() => withRecordFields({}, [{ path: 'contact.shoe_size', value: 9 }])).toThrow(/unknown lead record field "contact.shoe_size"/);
	});

	it('offers every documented record field', () => {
		expect(LEAD_RECORD_FIELDS).toEqual(expect.arrayContaining(['record_id', 'contact.email', 'click.fbclid', 'value.currency', 'consent.ad_user_data']));
	});
});
