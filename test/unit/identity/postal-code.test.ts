import { normalizePostalCode, normalizePostalCodeText } from '../../../shared/identity';

describe('postal code: lowercase, no whitespace or dashes, US ZIP+4 → 5 digits', () => {
	test.each<[unknown, string | undefined, string]>([
		['94105-1234', 'us', '94105'],
		['94105-1234', undefined, '94105'],
		['941051234', 'us', '94105'],
		['94105', 'us', '94105'],
		[94035, 'us', '94035'],
		['M1 1AE', 'gb', 'm11ae'],
		['M1 1AE', undefined, 'm11ae'],
		['K1A 0B1', 'ca', 'k1a0b1'],
		['75018', 'fr', '75018'],
		['1987', 'ch', '1987'],
		['100-0001', 'jp', '1000001'],
		['941051234', undefined, '941051234'],
	])('%j (country %s) → %j', (input, country, expected) => {
		expect(normalizePostalCode(input, { country })).toBe(expected);
	});

	test.each<[string, string | undefined, string]>([
		['9410', 'us', 'not a US ZIP code'],
		['SW1A 1AA', 'us', 'not a US ZIP code'],
		['94105/12', undefined, 'contains characters other than letters and digits'],
		['7', 'de', 'too short'],
	])('%j (country %s) → omitted: %s', (input, country, reason) => {
		expect(normalizePostalCodeText(input, { country })).toEqual({ omitted: reason });
	});
});
