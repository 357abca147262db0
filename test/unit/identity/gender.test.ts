import { normalizeGender, normalizeGenderText } from '../../../shared/identity';
import type { Platform } from '../../../shared/types';

describe('gender: f, m or n from common words', () => {
	test.each<[string, string]>([
		['f', 'f'],
		['F', 'f'],
		['Female', 'f'],
		['woman', 'f'],
		['m', 'm'],
		['MALE', 'm'],
		['man', 'm'],
		['männlich', 'm'],
		['non-binary', 'n'],
		['Nonbinary', 'n'],
		['n', 'n'],
	])('%j → %j', (input, expected) => {
		expect(normalizeGenderText(input)).toEqual({ value: expected });
	});

	test.each<[string]>([['unknown'], ['Prefer not to say'], ['N/A']])(
		'%j is a non-answer: omitted silently',
		(input) => {
			expect(normalizeGenderText(input)).toBeNull();
		},
	);

	it('omits anything else with a warning', () => {
		expect(normalizeGenderText('helicopter')).toEqual({ omitted: '"helicopter" is not f, m or n' });
	});
});

describe('normalizeGender per platform: n only for Pinterest', () => {
	test.each<[Platform, string, string | null]>([
		['pinterest', 'non-binary', 'n'],
		['meta', 'non-binary', null],
		['tiktok', 'non-binary', null],
		['meta', 'Female', 'f'],
		['pinterest', 'male', 'm'],
	])('%s: %j → %j', (platform, input, expected) => {
		expect(normalizeGender(input, { platform })).toBe(expected);
	});
});
