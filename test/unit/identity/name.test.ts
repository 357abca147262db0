import { normalizeFirstName, normalizeLastName, normalizeNameText } from '../../../shared/identity';

describe('names: lowercase, no whitespace or punctuation, any script and accents kept', () => {
	test.each<[unknown, string | null]>([
		['Mary', 'mary'],
		['  Eg  ', 'eg'],
		['Valéry', 'valéry'],
		['Vale\u0301ry', 'valéry'], // decomposed accent is put in NFC first
		['정', '정'],
		['José', 'josé'],
		['Müller', 'müller'],
		['Mary-Jane', 'maryjane'],
		["O'Brien", 'obrien'],
		['J. R. R.', 'jrr'],
		['Van der Berg', 'vanderberg'],
		['Владимир', 'владимир'],
		['محمد', 'محمد'],
		['', null],
		['   ', null],
		[null, null],
	])('%j → %j', (input, expected) => {
		expect(normalizeFirstName(input)).toBe(expected);
		expect(normalizeLastName(input)).toBe(expected);
	});

	it('omits a value with no letters, with a reason', () => {
		expect(normalizeNameText('--')).toEqual({
			omitted: 'no letters left after removing punctuation',
		});
	});
});
