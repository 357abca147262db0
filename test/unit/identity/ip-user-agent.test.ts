import { normalizeIp, normalizeIpText, normalizeUserAgent } from '../../../shared/identity';

describe('ip: a valid IPv4/IPv6 address, in clear', () => {
	test.each<[string, string]>([
		['203.0.113.7', '203.0.113.7'],
		[' 203.0.113.7 ', '203.0.113.7'],
		['203.0.113.7, 10.0.0.1', '203.0.113.7'],
		['203.0.113.7:51234', '203.0.113.7'],
		['::ffff:203.0.113.7', '203.0.113.7'],
		['2001:DB8::1', '2001:db8::1'],
		['[2001:db8::1]:443', '2001:db8::1'],
	])('%j → %j', (input, expected) => {
		expect(normalizeIp(input)).toBe(expected);
	});

	test.each<[string]>([['999.1.1.1'], ['localhost'], ['2001:db8:::1']])(
		'%j is omitted with a warning',
		(input) => {
			expect(normalizeIpText(input)).toEqual({ omitted: 'not a valid IP address' });
		},
	);
});

describe('user agent: passed through as captured', () => {
	const ua =
		'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko)';
	test.each<[unknown, string | null]>([
		[ua, ua],
		[`  ${ua}  `, ua],
		['', null],
	])('%j → %j', (input, expected) => {
		expect(normalizeUserAgent(input)).toBe(expected);
	});
});
