import * as path from 'node:path';
import metadata from 'libphonenumber-js/metadata.max.json';
import { normalizePhone, normalizePhoneText, phonePatternCache } from '../../../shared/identity';
import type { Platform } from '../../../shared/types';

describe('normalizePhoneText: canonical E.164 with +', () => {
	test.each<[string, string | undefined, string]>([
		['(650)555-1212', 'US', '+16505551212'],
		['650.555.1212', 'us', '+16505551212'],
		['+1 650 555 1212', 'GB', '+16505551212'],
		['1 (650) 555-1212', 'US', '+16505551212'],
		['(800)555-0100', 'US', '+18005550100'],
		['+44 844 412 4653', undefined, '+448444124653'],
		['07911 123456', 'GB', '+447911123456'],
		['030 12345678', 'DE', '+493012345678'],
		['+49 (0) 30 12345678', undefined, '+493012345678'],
		// IDD honoured where it is that country's international prefix
		['011 44 20 7946 0958', 'US', '+442079460958'],
		['00 44 20 7946 0958', 'GB', '+442079460958'],
		['0044 20 7946 0958', 'DE', '+442079460958'],
		// extensions and labels are dropped
		['+1 650 555 1212 ext. 123', undefined, '+16505551212'],
		['650-555-1212 x12', 'US', '+16505551212'],
		['+1 650-555-1212 (mobile)', undefined, '+16505551212'],
		['(mobile) 650-555-1212', 'US', '+16505551212'],
		['mobile: 650 555 1212', 'US', '+16505551212'],
		['tel:+1-650-555-1212', undefined, '+16505551212'],
		// digits that already carry a country code
		['16505551212', undefined, '+16505551212'],
		['447911123456', 'US', '+447911123456'],
		['16505551212 ext 7', undefined, '+16505551212'],
	])('%j (country %s) → %s', (input, country, expected) => {
		expect(normalizePhoneText(input, { country })).toEqual({ value: expected });
	});
});

describe('normalizePhoneText: invalid numbers are omitted, the warning names the country', () => {
	test.each<[string, string | undefined, string]>([
		['555-1212', 'US', 'not a valid number for US'],
		// NANP exchanges cannot start with 1: the Segment/Google sample "6161729102" is not valid
		['6161729102', 'US', 'not a valid number for US'],
		// 00 is not the US international prefix, 011 is not the UK one
		['00 44 20 7946 0958', 'US', 'not a valid number for US'],
		['011 44 20 7946 0958', 'GB', 'not a valid number for GB'],
		// TikTok/Segment sample values: fine as strings, not as phone numbers
		[
			'12345678901234',
			undefined,
			'not a valid number, and no country to read it as a national number',
		],
		['12345678901234', 'US', 'not a valid number for US'],
		['+12345678901234', undefined, 'not a valid number for +1'],
		['+0044 20 7946 0958', undefined, 'not a valid international number'],
		[
			'650 555 1212',
			undefined,
			'not a valid number, and no country to read it as a national number',
		],
		['call me', 'US', 'not a valid number for US'],
	])('%j (country %s) → %s', (input, country, reason) => {
		expect(normalizePhoneText(input, { country })).toEqual({ omitted: reason });
	});
});

describe('normalizePhone per platform', () => {
	test.each<[Platform, string]>([
		['meta', '16505551212'],
		['pinterest', '16505551212'],
		['tiktok', '+16505551212'],
		['google', '+16505551212'],
		['microsoft', '+16505551212'],
	])('%s renders (650)555-1212 as %s', (platform, expected) => {
		expect(normalizePhone('(650)555-1212', { platform, defaultCountry: 'US' })).toBe(expected);
	});

	test.each<[unknown, string | undefined, string | null]>([
		[16505551212, undefined, '16505551212'],
		[6505551212, 'United States', '16505551212'],
		[['', 'not a phone', '+44 844 412 4653'], undefined, '448444124653'],
		['', 'US', null],
		['   ', 'US', null],
		[{ number: '6505551212' }, 'US', null],
		[
			'E323EC626319CA94EE8BFF2E4C87CF613BE6EA19919ED1364124E16807AB3176',
			'US',
			'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176',
		],
	])('meta: %j (default %s) → %j', (input, defaultCountry, expected) => {
		expect(normalizePhone(input, { platform: 'meta', defaultCountry })).toBe(expected);
	});
});

describe('phone pattern checks reuse compiled expressions', () => {
	it('is in place for the installed libphonenumber-js (an upgrade that changes its layout fails here)', () => {
		expect(phonePatternCache()).toBe(true);
	});

	it('answers every pattern check exactly as the library\'s own helper does', () => {
		// The library's helper, written out as it ships (build/helpers/matchesEntirely.js).
		const stock = (text: string, pattern: string) => new RegExp('^(?:' + pattern + ')$').test(text || '');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const helper = require(
			path.join(path.dirname(require.resolve('libphonenumber-js/max')), '..', 'build', 'helpers', 'matchesEntirely.js'),
		) as { default: (text: string, pattern: string) => boolean };
		const patterns = Object.values(metadata.countries as unknown as Record<string, unknown[]>)
			.map((country) => country[2])
			.filter((p): p is string => typeof p === 'string')
			.slice(0, 60);
		expect(patterns.length).toBeGreaterThan(50);
		const texts = ['', '2125551212', '4155552671', '3012345678', '7911123456', '800', '12345678901234567'];
		for (const pattern of patterns) {
			for (const text of texts) {
				// Twice: a reused expression must answer like a fresh one.
				expect([helper.default(text, pattern), helper.default(text, pattern)]).toEqual([
					stock(text, pattern),
					stock(text, pattern),
				]);
			}
		}
	});
});
