import { emailDomain, FREE_MAIL_DOMAINS, isFreeMailDomain } from '../../../shared/identity';
import { checkCondition } from './helpers';

describe('is_work_email: free-mail vs work addresses', () => {
	test.each<[string, boolean, string]>([
		[
			'jane@gmail.com',
			false,
			'contact.email is a work email: no (gmail.com is a free-mail domain)',
		],
		[
			'jane@googlemail.com',
			false,
			'contact.email is a work email: no (googlemail.com is a free-mail domain)',
		],
		[
			'jane@yahoo.co.uk',
			false,
			'contact.email is a work email: no (yahoo.co.uk is a free-mail domain)',
		],
		[
			'jane@outlook.com',
			false,
			'contact.email is a work email: no (outlook.com is a free-mail domain)',
		],
		[
			'JANE@Hotmail.FR',
			false,
			'contact.email is a work email: no (hotmail.fr is a free-mail domain)',
		],
		[
			'jane@mailinator.com',
			false,
			'contact.email is a work email: no (mailinator.com is a free-mail domain)',
		],
		['jane@acme.com', true, 'contact.email is a work email: yes'],
		['jane@sales.acme.io', true, 'contact.email is a work email: yes'],
		['jane@gmail.acme.com', true, 'contact.email is a work email: yes'],
		// Look-alike and subdomain forms of free-mail domains (issue 13).
		[
			'jane@ｇｍａｉｌ.com',
			false,
			'contact.email is a work email: no (gmail.com is a free-mail domain)',
		],
		[
			'ｊａｎｅ＠ＧＭＡＩＬ．ＣＯＭ',
			false,
			'contact.email is a work email: no (gmail.com is a free-mail domain)',
		],
		[
			'jane@gm\u200bail.com',
			false,
			'contact.email is a work email: no (gmail.com is a free-mail domain)',
		],
		[
			'jane@g\u00admail.com',
			false,
			'contact.email is a work email: no (gmail.com is a free-mail domain)',
		],
		[
			'jane@mail.gmail.com',
			false,
			'contact.email is a work email: no (mail.gmail.com is a free-mail domain)',
		],
		[
			'x@eu.yahoo.com',
			false,
			'contact.email is a work email: no (eu.yahoo.com is a free-mail domain)',
		],
		[
			'x@uk.mail.yahoo.co.uk',
			false,
			'contact.email is a work email: no (uk.mail.yahoo.co.uk is a free-mail domain)',
		],
		[
			'jane@gm\u0430il.com',
			false,
			'contact.email is a work email: no (gm\u0430il.com is a free-mail domain)',
		],
		[
			'jane@xn--gmil-63d.com',
			false,
			'contact.email is a work email: no (gm\u0430il.com is a free-mail domain)',
		],
		[
			'Jane Doe <jane@Gmail.com>',
			false,
			'contact.email is a work email: no (gmail.com is a free-mail domain)',
		],
		['jane@notgmail.com', true, 'contact.email is a work email: yes'],
		['jane@gmail.com.acme.io', true, 'contact.email is a work email: yes'],
		['jane@xn--mnchen-3ya.de', true, 'contact.email is a work email: yes'],
		['jane@сайт.рф', true, 'contact.email is a work email: yes'],
		['jane@', false, 'contact.email is a work email: no (not an email address)'],
		['jane', false, 'contact.email is a work email: no (not an email address)'],
	])('%j → %s', (email, passed, reason) => {
		const result = checkCondition({ contact: { email } }, 'contact.email', 'is_work_email');
		expect(result.passed).toBe(passed);
		expect(result.reason).toBe(reason);
	});
});

describe('FREE_MAIL_DOMAINS', () => {
	it('is a good list: 100+ providers with country variants', () => {
		expect(FREE_MAIL_DOMAINS.size).toBeGreaterThanOrEqual(100);
		for (const domain of [
			'gmail.com',
			'googlemail.com',
			'yahoo.com',
			'yahoo.co.uk',
			'yahoo.co.jp',
			'yahoo.fr',
			'hotmail.com',
			'hotmail.co.uk',
			'outlook.com',
			'outlook.de',
			'live.com',
			'live.fr',
			'msn.com',
			'aol.com',
			'icloud.com',
			'me.com',
			'mac.com',
			'proton.me',
			'protonmail.com',
			'gmx.de',
			'gmx.net',
			'web.de',
			'mail.ru',
			'yandex.ru',
			'qq.com',
			'163.com',
			'126.com',
			'zoho.com',
			't-online.de',
			'orange.fr',
			'free.fr',
			'libero.it',
		]) {
			expect({ domain, free: FREE_MAIL_DOMAINS.has(domain) }).toEqual({ domain, free: true });
		}
	});

	it('holds lowercase domains only', () => {
		for (const domain of FREE_MAIL_DOMAINS) expect(domain).toMatch(/^[a-z0-9.-]+\.[a-z]{2,}$/);
	});

	test.each([
		['Gmail.com', true],
		['acme.com', false],
		['mail.gmail.com', true],
		['eu.yahoo.com', true],
		['ｇｍａｉｌ.com', true],
		['gmail.com.', true],
		['xn--gmil-63d.com', true],
		['me.com', true],
		['acme.com', false],
		['yahoo.co', false],
		['co.uk', false],
		['com', false],
	])('isFreeMailDomain(%j) → %s', (domain, free) => {
		expect(isFreeMailDomain(domain)).toBe(free);
	});
});

describe('emailDomain', () => {
	test.each<[unknown, string | null]>([
		['jane@acme.com', 'acme.com'],
		['  Jane.Doe+tag@Sales.ACME.com ', 'sales.acme.com'],
		['Jane Doe <jane@acme.com>', 'acme.com'],
		['mailto:jane@acme.com', 'acme.com'],
		['jane@acme.com.', 'acme.com'],
		['jane@münchen.de', 'münchen.de'],
		['jane@xn--mnchen-3ya.de', 'münchen.de'],
		['jane@MU\u0308nchen.de', 'münchen.de'],
		['jane@ｇｍａｉｌ.com', 'gmail.com'],
		['ｊａｎｅ＠ｇｍａｉｌ．ｃｏｍ', 'gmail.com'],
		['jane@gmail\u3002com', 'gmail.com'],
		['\ufeffjane@\u200bgmail.com\u2060', 'gmail.com'],
		['MAILTO:Jane@Acme.com?subject=hi', 'acme.com'],
		['"Doe, Jane" <JANE@ACME.COM>', 'acme.com'],
		[['', 'x', 'b@globex.io'], 'globex.io'],
		['jane@localhost', null],
		['jane@', null],
		['@acme.com', null],
		['jane doe@acme.com', null],
		['acme.com', null],
		['', null],
		[42, null],
		[null, null],
		[undefined, null],
	])('%j → %j', (value, domain) => {
		expect(emailDomain(value)).toBe(domain);
	});
});

describe('email_domain_in: list items and addresses compare in one canonical form', () => {
	test.each<[string, string, boolean]>([
		['jane@xn--mnchen-3ya.de', 'münchen.de', true],
		['jane@münchen.de', 'xn--mnchen-3ya.de', true],
		['jane@ｓａｌｅｓ.acme.com', 'acme.com', true],
		['jane@sales.acme.com', '@ＡＣＭＥ.com', true],
		['jane@acme.com', 'a\u200bcme.com', true],
		['jane@acme.com', 'globex.com', false],
	])('%j in %j → %s', (email, list, passed) => {
		const result = checkCondition({ contact: { email } }, 'contact.email', 'email_domain_in', list);
		expect(result.passed).toBe(passed);
	});
});
