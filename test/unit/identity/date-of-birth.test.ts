import { normalizeDateOfBirth, normalizeDateOfBirthText } from '../../../shared/identity';

const NOW = Date.UTC(2026, 10, 30);

describe('date of birth → YYYYMMDD', () => {
	test.each<[unknown, string]>([
		['2/16/1997', '19970216'],
		['02/16/1997', '19970216'],
		['1997-02-16', '19970216'],
		['1997-02-16T00:00:00Z', '19970216'],
		['1997-2-6', '19970206'],
		['1997/02/16', '19970216'],
		['19970216', '19970216'],
		[19970216, '19970216'],
		['16.02.1997', '19970216'],
		['6.2.1997', '19970206'],
		['16-02-1997', '19970216'],
		['05-05-1990', '19900505'],
		['16/02/1997', '19970216'],
		['2000-02-29', '20000229'],
		[new Date(Date.UTC(1997, 1, 16)), '19970216'],
	])('%j → %s', (input, expected) => {
		expect(normalizeDateOfBirth(input, { now: NOW })).toBe(expected);
	});

	test.each<[string, string]>([
		['2/16/97', 'two-digit year'],
		['16.02.97', 'two-digit year'],
		['02-03-1997', 'ambiguous day and month order (use YYYY-MM-DD)'],
		['1997-02-30', 'impossible date'],
		['1999-02-29', 'impossible date'],
		['13/13/1997', 'impossible date'],
		['1997-13-01', 'impossible date'],
		['00/10/1997', 'impossible date'],
		['1899-12-31', 'year before 1900'],
		['2027-01-01', 'date in the future'],
		['Feb 16 1997', 'not a recognised date format'],
		['yesterday', 'not a recognised date format'],
	])('%j → omitted (%s)', (input, reason) => {
		expect(normalizeDateOfBirthText(input, { now: NOW })).toEqual({ omitted: reason });
	});
});
