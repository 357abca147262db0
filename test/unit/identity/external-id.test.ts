import { hashSha256, normalizeExternalId } from '../../../shared/identity';

describe('external id: lowercase, whitespace removed', () => {
	const existing = hashSha256('crm-42');
	test.each<[unknown, string | null]>([
		['CRM-42', 'crm-42'],
		['  Lead 00017 ', 'lead00017'],
		[12345, '12345'],
		['AbC_dEf', 'abc_def'],
		[existing.toUpperCase(), existing],
		['', null],
		['  ', null],
	])('%j → %j', (input, expected) => {
		expect(normalizeExternalId(input)).toBe(expected);
	});
});
