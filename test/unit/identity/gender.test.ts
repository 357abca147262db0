import { IDENTITY_PROFILES } from '../../../shared/platforms';
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

	it.each(['helicopter', 'Jane Doe', 'Doe'])(
		'omits %j with a warning that never quotes it',
		(input) => {
			const outcome = normalizeGenderText(input);
			expect(outcome).toEqual({
				omitted: 'not a recognised gender (f, m or n; female, male, non-binary…)',
			});
			expect(JSON.stringify(outcome)).not.toContain(input);
		},
	);
});

describe('normalizeGender per platform: n only for Pinterest', () => {
	test.each<[Platform, string, string | null]>([
		['pinterest', 'non-binary', 'n'],
		['meta', 'non-binary', null],
		['tiktok', 'non-binary', null],
		['meta', 'Female', 'f'],
		['pinterest', 'male', 'm'],
	])('%s: %j → %j', (platform, input, expected) => {
		expect(normalizeGender(input, { profile: IDENTITY_PROFILES[platform] })).toBe(expected);
	});
});
