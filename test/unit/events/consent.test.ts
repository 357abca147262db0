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
	it.each([
		[{ amount: 99.5, currency: 'usd' }, { amount: 99.5, currency: 'USD', warnings: [] }],
		[{ amount: '120', currency: 'EUR' }, { amount: 120, currency: 'EUR', warnings: [] }],
		[{ amount: '1,200.50', currency: 'usd' }, { amount: 1200.5, currency: 'USD', warnings: [] }],
		[{ amount: '$99', currency: 'USD' }, { amount: 99, currency: 'USD', warnings: [] }],
		[{ amount: 0, currency: 'EUR' }, { amount: 0, currency: 'EUR', warnings: [] }],
		[undefined, { warnings: [] }],
		[{ amount: 50 }, { warnings: [expect.stringMatching(/without value.currency/)] }],
		[{ currency: 'USD' }, { warnings: [] }],
		[{ amount: 'lots', currency: 'USD' }, { warnings: [expect.stringMatching(/not a non-negative number/)] }],
		[{ amount: 10, currency: 'dollars' }, { warnings: [expect.stringMatching(/ISO 4217/), expect.stringMatching(/without value.currency/)] }],
	])('%j', (raw, expected) => {
		const r = readValue(raw as never);
		expect({ ...r, amount: r.amount, currency: r.currency }).toEqual({
			amount: undefined,
			currency: undefined,
			...expected,
		});
	});
});
