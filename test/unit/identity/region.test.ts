import { normalizeRegion, normalizeRegionText } from '../../../shared/identity';

describe('region: US states and Canadian provinces become their 2-letter code', () => {
	test.each<[string, string | undefined, string]>([
		['California', 'us', 'ca'],
		['CA', 'us', 'ca'],
		['ca', undefined, 'ca'],
		['New York', 'us', 'ny'],
		['N.Y.', 'us', 'ny'],
		['  north carolina ', 'us', 'nc'],
		['District of Columbia', 'us', 'dc'],
		['Washington, D.C.', 'us', 'dc'],
		['Puerto Rico', 'us', 'pr'],
		['Ontario', 'ca', 'on'],
		['Québec', 'ca', 'qc'],
		['Quebec', undefined, 'qc'],
		['Newfoundland and Labrador', 'ca', 'nl'],
		['British Columbia', undefined, 'bc'],
		['Texas', undefined, 'tx'],
	])('%j (country %s) → %j', (input, country, expected) => {
		expect(normalizeRegion(input, { country })).toBe(expected);
	});
});

describe('region elsewhere: lowercase, no whitespace or punctuation; names not mapped', () => {
	test.each<[string, string | undefined, string]>([
		['Greater London', 'gb', 'greaterlondon'],
		['Île-de-France', 'fr', 'îledefrance'],
		['Bavaria', undefined, 'bavaria'],
		// Georgia the country's region field is not the US state
		['Georgia', 'gb', 'georgia'],
		['California', 'mx', 'california'],
	])('%j (country %s) → %j', (input, country, expected) => {
		expect(normalizeRegion(input, { country })).toBe(expected);
	});
});

describe('region that is not a state of the given country is omitted with a warning', () => {
	test.each<[string, string, string]>([
		['Ontario', 'us', 'not a US state or territory'],
		['Calfornia', 'us', 'not a US state or territory'],
		['Texas', 'ca', 'not a Canadian province or territory'],
	])('%j (country %s) → %s', (input, country, reason) => {
		expect(normalizeRegionText(input, { country })).toEqual({ omitted: reason });
	});
});
