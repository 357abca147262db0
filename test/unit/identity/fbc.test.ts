import { buildFbc, type FbcInput, type FbcResult } from '../../../shared/identity';

const CLOCK_MS = 1_764_000_000_000;
const clock = () => CLOCK_MS;
const FBCLID = 'IwAR2xYz_AbC-dEf';
const STORED = `fb.1.1554763741205.${FBCLID}`;

describe('buildFbc', () => {
	test.each<[string, FbcInput, FbcResult]>([
		[
			'keeps a well-formed stored value as it is',
			{ fbc: 'fb.1.1554763741205.AbCdEfGhIjKlMnOpQrStUvWxYz1234567890' },
			{ value: 'fb.1.1554763741205.AbCdEfGhIjKlMnOpQrStUvWxYz1234567890' },
		],
		[
			'keeps a well-formed value with a parameter-builder appendix',
			{ fbc: `${STORED}.AQYBAQIA` },
			{ value: `${STORED}.AQYBAQIA` },
		],
		[
			'builds from a bare fbclid with the click time (ISO)',
			{ fbclid: FBCLID, clickedAt: '2024-01-02T03:04:05.678Z', eventTime: 1 },
			{ value: `fb.1.${Date.UTC(2024, 0, 2, 3, 4, 5, 678)}.${FBCLID}` },
		],
		[
			'builds with the click time in epoch ms',
			{ fbclid: FBCLID, clickedAt: 1_700_000_000_123 },
			{ value: `fb.1.1700000000123.${FBCLID}` },
		],
		[
			'builds with the click time in epoch seconds (number)',
			{ fbclid: FBCLID, clickedAt: 1_700_000_000 },
			{ value: `fb.1.1700000000000.${FBCLID}` },
		],
		[
			'builds with the click time in epoch seconds (string)',
			{ fbclid: FBCLID, clickedAt: '1700000000' },
			{ value: `fb.1.1700000000000.${FBCLID}` },
		],
		[
			'falls back to the event time',
			{ fbclid: FBCLID, eventTime: 1_710_000_000_000 },
			{ value: `fb.1.1710000000000.${FBCLID}` },
		],
		['falls back to the clock', { fbclid: FBCLID }, { value: `fb.1.${CLOCK_MS}.${FBCLID}` }],
		[
			'reads the fbclid from the landing-page URL',
			{
				landingUrl: `https://example.com/offer?utm_source=fb&fbclid=${FBCLID}#form`,
				eventTime: 1_710_000_000_000,
			},
			{ value: `fb.1.1710000000000.${FBCLID}` },
		],
		[
			'reads the fbclid from a scheme-less landing URL',
			{ landingUrl: `example.com/?fbclid=${FBCLID}` },
			{ value: `fb.1.${CLOCK_MS}.${FBCLID}` },
		],
		[
			'keeps the fbclid case (never lowercased)',
			{ fbclid: 'AbCdEF' },
			{ value: `fb.1.${CLOCK_MS}.AbCdEF` },
		],
		[
			'same click as the stored value: keeps the stored value and its original time',
			{ fbc: STORED, fbclid: FBCLID, clickedAt: 1_700_000_000_000 },
			{ value: STORED },
		],
		[
			'same click read from the landing URL: keeps the stored value',
			{ fbc: STORED, landingUrl: `https://example.com/?fbclid=${FBCLID}` },
			{ value: STORED },
		],
		[
			'a newer, different click wins over the stored value',
			{ fbc: STORED, fbclid: 'NewerClick123', clickedAt: 1_700_000_000_000 },
			{ value: 'fb.1.1700000000000.NewerClick123' },
		],
		[
			'fbclids differing only in case are different clicks',
			{ fbc: STORED, fbclid: FBCLID.toLowerCase(), eventTime: 1_710_000_000_000 },
			{ value: `fb.1.1710000000000.${FBCLID.toLowerCase()}` },
		],
		[
			'a malformed stored value is rebuilt from the fbclid',
			{ fbc: `fb.1.1554763741.${FBCLID}`, fbclid: FBCLID, eventTime: 1_710_000_000_000 },
			{
				value: `fb.1.1710000000000.${FBCLID}`,
				warning: 'fbc: stored value is not well formed; rebuilt from fbclid',
			},
		],
		[
			'a malformed stored value without an fbclid is dropped with a warning',
			{ fbc: 'not-an-fbc' },
			{ value: null, warning: 'fbc: not a well-formed fb.<index>.<ms>.<fbclid> value' },
		],
		[
			'an unreadable click time falls back to the event time with a warning',
			{ fbclid: FBCLID, clickedAt: 'last tuesday', eventTime: 1_710_000_000_000 },
			{
				value: `fb.1.1710000000000.${FBCLID}`,
				warning: 'fbc: clicked_at is not a valid time; used the event time',
			},
		],
		[
			'nothing to build from: no value, no warning',
			{ landingUrl: 'https://example.com/' },
			{ value: null },
		],
		['blank inputs are absent', { fbc: '  ', fbclid: '' }, { value: null }],
	])('%s', (_name, input, expected) => {
		expect(buildFbc(input, clock)).toEqual(expected);
	});

	it('uses the system clock when none is injected', () => {
		const before = Date.now();
		const built = buildFbc({ fbclid: FBCLID }).value ?? '';
		const createdAt = Number(built.split('.')[2]);
		expect(createdAt).toBeGreaterThanOrEqual(before);
		expect(createdAt).toBeLessThanOrEqual(Date.now());
	});
});
