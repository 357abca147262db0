import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { normalizePhone, normalizePhoneText } from '../../../shared/identity';
import {
	PHONE_RESULTS_LIMIT,
	PHONE_RESULTS_MAX_TEXT,
	rememberedPhoneResults,
} from '../../../shared/identity/phone-results';
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
		expect(normalizePhone('(650)555-1212', { profile: IDENTITY_PROFILES[platform], defaultCountry: 'US' })).toBe(expected);
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
		expect(normalizePhone(input, { profile: IDENTITY_PROFILES['meta'], defaultCountry })).toBe(expected);
	});
});

describe('phone results kept in this process', () => {
	it('does not keep texts longer than PHONE_RESULTS_MAX_TEXT, and still reads them', () => {
		// Runs before the memo is filled below: a kept result would show as one more entry.
		const before = rememberedPhoneResults();
		expect(before).toBeLessThan(PHONE_RESULTS_LIMIT);
		const long = `+1 650 555 1212 (mobile, ask for the front desk${'.'.repeat(PHONE_RESULTS_MAX_TEXT)})`;
		expect(normalizePhoneText(long)).toEqual({ value: '+16505551212' });
		expect(normalizePhoneText(long)).toEqual({ value: '+16505551212' });
		expect(rememberedPhoneResults()).toBe(before);
		expect(normalizePhoneText('+1 650 555 1213 (mobile)')).toEqual({ value: '+16505551213' });
		expect(rememberedPhoneResults()).toBe(before + 1);
	});

	it('keeps at most PHONE_RESULTS_LIMIT of them: the ones read again stay, the others go', () => {
		const often = normalizePhoneText('(650) 555-1212', { country: 'US' });
		const once = normalizePhoneText('020 7946 0958', { country: 'GB' });
		// Three times more distinct numbers than the bound (valid and invalid ones alike), the
		// first one read again every 1,000.
		for (let i = 0; i < 3 * PHONE_RESULTS_LIMIT; i++) {
			normalizePhoneText(
				`(415) ${200 + (i % 800)}-${String(1000 + Math.floor(i / 800)).padStart(4, '0')}`,
				{
					country: i % 3 === 0 ? 'US' : 'GB',
				},
			);
			if (i % 1000 === 0)
				expect(normalizePhoneText('(650) 555-1212', { country: 'US' })).toBe(often);
			if (rememberedPhoneResults() > PHONE_RESULTS_LIMIT) {
				throw new Error(`${rememberedPhoneResults()} results kept after ${i + 1} numbers`);
			}
		}
		expect(rememberedPhoneResults()).toBeGreaterThanOrEqual(PHONE_RESULTS_LIMIT / 2);
		// Still the very result first worked out; the other one was dropped and is worked out
		// again, to the same answer.
		expect(normalizePhoneText('(650) 555-1212', { country: 'US' })).toBe(often);
		const again = normalizePhoneText('020 7946 0958', { country: 'GB' });
		expect(again).not.toBe(once);
		expect(again).toEqual(once);
		expect(once).toEqual({ value: '+442079460958' });
	});

	it('gives every caller the same answer, which none of them can change', () => {
		const a = normalizePhoneText('07911 123456', { country: 'gb' });
		const b = normalizePhoneText('07911 123456', { country: 'GB' });
		expect(b).toBe(a);
		expect(() => {
			(a as { value: string }).value = '+10000000000';
		}).toThrow(TypeError);
		expect(normalizePhoneText('07911 123456', { country: 'GB' })).toEqual({
			value: '+447911123456',
		});
	});
});
