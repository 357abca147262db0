import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { hashSha256, normalizeEmail, normalizeEmailText } from '../../../shared/identity';
import type { Platform } from '../../../shared/types';

const HASH = '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f';

describe('normalizeEmail: canonical form (Meta)', () => {
	test.each<[unknown, string | null]>([
		['John_Smith@gmail.com', 'john_smith@gmail.com'],
		['  Person@Example.COM  ', 'person@example.com'],
		['first.last+promo@example.co.uk', 'first.last+promo@example.co.uk'],
		['josé@exämple.de', 'josé@exämple.de'],
		['user@xn--bcher-kva.example', 'user@xn--bcher-kva.example'],
		[['', '  ', 'a@b.io'], 'a@b.io'],
		['', null],
		['   ', null],
		[null, null],
		[undefined, null],
		[HASH.toUpperCase(), HASH],
		[`${HASH}.AQYBAQIA`, HASH],
	])('%j → %j', (input, expected) => {
		expect(normalizeEmail(input, { profile: IDENTITY_PROFILES['meta'] })).toBe(expected);
	});
});

describe('normalizeEmailText: invalid addresses are omitted with a reason and no raw value', () => {
	test.each([
		['foo@bar', 'missing top-level domain'],
		['1234', 'missing @'],
		['john smith@example.com', 'contains spaces'],
		['a@b@example.com', 'more than one @'],
		['@example.com', 'missing local part'],
		['john@', 'missing domain'],
		['john..smith@example.com', 'consecutive dots'],
		['john@example..com', 'consecutive dots'],
		['.john@example.com', 'local part starts or ends with a dot'],
		['john@.example.com', 'empty domain label'],
		['john@example.c0m', 'invalid top-level domain'],
		['john@exa_mple.com', 'invalid character in domain'],
		['jo<hn>@example.com', 'invalid character in local part'],
	])('%j → omitted (%s)', (input, reason) => {
		expect(normalizeEmailText(input)).toEqual({ omitted: `not a valid address (${reason})` });
		expect(JSON.stringify(normalizeEmailText(input))).not.toContain(input);
	});
});

describe('normalizeEmail per platform: gmail dots are removed for Google only, +tags kept', () => {
	test.each<[Platform, string, string]>([
		['google', 'John.Smith+ads@gmail.com', 'johnsmith+ads@gmail.com'],
		['google', 'j.o.h.n@googlemail.com', 'john@googlemail.com'],
		['google', 'first.last@example.com', 'first.last@example.com'],
		['meta', 'John.Smith+ads@gmail.com', 'john.smith+ads@gmail.com'],
		['pinterest', 'John.Smith+ads@gmail.com', 'john.smith+ads@gmail.com'],
		['tiktok', 'John.Smith+ads@gmail.com', 'john.smith+ads@gmail.com'],
		['microsoft', 'John.Smith+ads@gmail.com', 'john.smith+ads@gmail.com'],
	])('%s: %j → %j', (platform, input, expected) => {
		expect(normalizeEmail(input, { profile: IDENTITY_PROFILES[platform] })).toBe(expected);
	});

	it('passes an already-hashed email through for Google untouched', () => {
		const hashed = hashSha256('johnsmith@gmail.com');
		expect(normalizeEmail(hashed, { profile: IDENTITY_PROFILES['google'] })).toBe(hashed);
	});
});

describe('normalizeEmail: emails read as platforms match them (NFKC, invisible characters, display names)', () => {
	const JANE = hashSha256('jane@gmail.com');
	test.each<[string, string]>([
		['fullwidth local part', 'ｊａｎｅ@gmail.com'],
		['fullwidth domain', 'jane@ｇｍａｉｌ.com'],
		['all fullwidth, upper-case, fullwidth @ and dot', 'ＪＡＮＥ＠ＧＭＡＩＬ．ＣＯＭ'],
		['zero-width space', 'ja\u200bne@gmail.com'],
		['zero-width non-joiner and joiner', 'j\u200ca\u200dne@gmail.com'],
		['word joiner', 'jane\u2060@gmail.com'],
		['byte-order mark', '\ufeffjane@gmail.com'],
		['soft hyphen', 'ja\u00adne@gmail.com'],
		['ideographic full stop in the domain', 'jane@gmail\u3002com'],
		['display name', 'Jane Doe <jane@gmail.com>'],
		['quoted display name', '"Doe, Jane" <Jane@Gmail.com>'],
		['mailto:', 'mailto:Jane@Gmail.com'],
		['upper case', 'JANE@GMAIL.COM'],
	])('%s hashes like jane@gmail.com', (_case, input) => {
		for (const platform of ['meta', 'pinterest', 'tiktok', 'microsoft'] as const) {
			const email = normalizeEmail(input, { profile: IDENTITY_PROFILES[platform] });
			expect(email).toBe('jane@gmail.com');
			expect(hashSha256(email as string)).toBe(JANE);
		}
	});

	it('keeps letters NFKC does not fold (accents, other scripts) and punycode as typed', () => {
		expect(normalizeEmail('JOSÉ@exämple.de', { profile: IDENTITY_PROFILES['meta'] })).toBe('josé@exämple.de');
		expect(normalizeEmail('jose\u0301@example.de', { profile: IDENTITY_PROFILES['meta'] })).toBe('josé@example.de');
		expect(normalizeEmail('user@xn--bcher-kva.example', { profile: IDENTITY_PROFILES['meta'] })).toBe(
			'user@xn--bcher-kva.example',
		);
	});

	it('Google: the gmail dot rule applies to the cleaned address', () => {
		expect(normalizeEmail('Ｊ.ａｎｅ@ｇｍａｉｌ.com', { profile: IDENTITY_PROFILES['google'] })).toBe(
			'jane@gmail.com',
		);
	});

	it('a value of invisible characters only is omitted with a reason', () => {
		expect(normalizeEmailText('\u200b\u200d')).toEqual({ omitted: 'not a valid address (empty)' });
	});
});
