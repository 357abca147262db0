import { readConsent, readValue } from '../../../shared/events';

describe('readConsent', () => {
	it.each([
		[true, 'granted'],
		['GRANTED', 'granted'],
		['yes', 'granted'],
		[1, 'granted'],
		[false, 'denied'],
		['denied', 'denied'],
		['No', 'denied'],
		[0, 'denied'],
		[undefined, undefined],
		['maybe', undefined],
	])('%j → %j', (raw, expected) => {
		expect(readConsent(raw)).toBe(expected);
	});
});

describe('readValue', () => {
	const nothing = 'without value.amount and value.currency';
	it.each([
		[{ amount: 99.5, currency: 'usd' }, { amount: 99.5, currency: 'USD', warnings: [] }],
		[{ amount: '120', currency: 'EUR' }, { amount: 120, currency: 'EUR', warnings: [] }],
		[{ amount: '1,200.50', currency: 'usd' }, { amount: 1200.5, currency: 'USD', warnings: [] }],
		[{ amount: '$99', currency: 'USD' }, { amount: 99, currency: 'USD', warnings: [] }],
		[{ amount: 0, currency: 'EUR' }, { amount: 0, currency: 'EUR', warnings: [] }],
		[undefined, { warnings: [], absence: nothing }],
		[{ amount: '  ', currency: '' }, { warnings: [], absence: nothing }],
		[{ amount: 50 }, { warnings: [expect.stringMatching(/without value.currency/)], absence: 'with value.amount but without value.currency' }],
		[{ currency: 'USD' }, { warnings: [], absence: 'with value.currency but without value.amount' }],
		[{ amount: 'lots', currency: 'USD' }, { warnings: ['value.amount: text shaped "AAAA" is not a non-negative number, omitted'], absence: 'with an unreadable value.amount (text shaped "AAAA")' }],
		[{ amount: '1.200,50 EUR', currency: 'EUR' }, { warnings: [expect.stringContaining('text shaped "9.999,99 AAA"')], absence: 'with an unreadable value.amount (text shaped "9.999,99 AAA")' }],
		[{ amount: -5, currency: 'EUR' }, { warnings: [expect.stringContaining('the number -5')], absence: 'with an unreadable value.amount (the number -5)' }],
		[{ amount: [10, 20], currency: 'EUR' }, { warnings: [expect.stringContaining('a list of 2')], absence: 'with an unreadable value.amount (a list of 2)' }],
		[{ amount: 10, currency: 'dollars' }, { warnings: [expect.stringMatching(/text shaped "AAAAAAA" is not an ISO 4217/), expect.stringMatching(/without value.currency/)], absence: 'with an unreadable value.currency (text shaped "AAAAAAA")' }],
		[{ amount: 10, currency: 840 }, { warnings: [expect.stringMatching(/the number 840 is not an ISO 4217/), expect.stringMatching(/without value.currency/)], absence: 'with an unreadable value.currency (the number 840)' }],
		// A phone number mapped into the currency: its shape is told, never its digits.
		[{ amount: 10, currency: 447911123456 }, { warnings: [expect.stringMatching(/a number shaped "999999999999" is not an ISO 4217/), expect.stringMatching(/without value.currency/)], absence: 'with an unreadable value.currency (a number shaped "999999999999")' }],
		[{ amount: -4155552671, currency: 'USD' }, { warnings: [expect.stringContaining('a number shaped "-9999999999"')], absence: 'with an unreadable value.amount (a number shaped "-9999999999")' }],
	])('%j', (raw, expected) => {
		const r = readValue(raw as never);
		expect({ ...r, amount: r.amount, currency: r.currency }).toEqual({
			amount: undefined,
			currency: undefined,
			...expected,
		});
	});
});
