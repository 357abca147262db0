import { normalizeCity } from '../../../shared/identity';

describe('city: lowercase, no whitespace or punctuation', () => {
	test.each<[unknown, string | null]>([
		['New York', 'newyork'],
		['St. Louis', 'stlouis'],
		['  San Francisco ', 'sanfrancisco'],
		['Winston-Salem', 'winstonsalem'],
		['São Paulo', 'sãopaulo'],
		['München', 'münchen'],
		['서울', '서울'],
		['', null],
		['.', null],
	])('%j → %j', (input, expected) => {
		expect(normalizeCity(input)).toBe(expected);
	});
});
