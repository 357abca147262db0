import { normalizeFbp } from '../../../shared/identity';

describe('fbp: kept when well formed, dropped when malformed, never synthesized', () => {
	test.each<[unknown, string | null]>([
		['fb.1.1596403881668.1116446470', 'fb.1.1596403881668.1116446470'],
		[' fb.2.1596403881668.1116446470 ', 'fb.2.1596403881668.1116446470'],
		['fb.1.1596403881668.1116446470.AQYBAQIA', 'fb.1.1596403881668.1116446470.AQYBAQIA'],
		['fb.1.1596403881.1116446470', null],
		['fb.1.1596403881668.abc', null],
		['FB.1.1596403881668.1116446470', null],
		['1116446470', null],
		['', null],
		[undefined, null],
	])('%j → %j', (input, expected) => {
		expect(normalizeFbp(input)).toBe(expected);
	});
});
