import { hashSha256, isSha256Hex } from '../../../shared/identity';
import { hashSha256Memoized } from '../../../shared/identity/hash';

describe('hashSha256', () => {
	test.each([
		['john_smith@gmail.com', '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f'],
		['16505551212', 'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176'],
		['정', '8fa8cd9c440be61d0151429310034083132b35975c4bea67fdd74158eb51db14'],
		['valéry', '08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c'],
		['n', '1b16b1df538ba12dc3f97edbb85caa7050d46c148134290feba80f8236c83db9'],
	])('hashes %j as lowercase hex of its UTF-8 bytes', (input, expected) => {
		expect(hashSha256(input)).toBe(expected);
	});

	it('refuses to hash an empty string', () => {
		expect(() => hashSha256('')).toThrow(RangeError);
	});
});

describe('isSha256Hex', () => {
	test.each([
		['62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f', true],
		['62A14E44F765419D10FEA99367361A727C12365E2520F32218D505ED9AA0F62F', true],
		['62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62', false],
		['62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62ff', false],
		['g2a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f', false],
		['098f6bcd4621d373cade4e832627b4f6', false],
		['', false],
	])('%j → %s', (input, expected) => {
		expect(isSha256Hex(input)).toBe(expected);
	});
});

describe('hashSha256Memoized', () => {
	it('agrees with hashSha256 across more values than the memo holds', () => {
		for (let index = 0; index < 5000; index += 1) {
			const value = `city${index % 4500}`;
			expect(hashSha256Memoized(value)).toBe(hashSha256(value));
		}
	});
});
