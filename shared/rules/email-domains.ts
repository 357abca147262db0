/** Email domains: extracting them, free-mail detection, and "domain in list" with subdomains. */

/**
 * Consumer mailbox providers (and a few well-known disposable-address services): an address at
 * one of these says nothing about the lead's employer, so `is_work_email` fails for it. Exact
 * domains, lowercase; country variants are listed one by one because providers do not share
 * one pattern (yahoo.co.uk but yahoo.de, hotmail.com.br but outlook.jp).
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
	// Google
	'gmail.com',
	'googlemail.com',
	// Yahoo
	'yahoo.com',
	'yahoo.co.uk',
	'yahoo.co.in',
	'yahoo.co.jp',
	'yahoo.co.id',
	'yahoo.co.nz',
	'yahoo.co.th',
	'yahoo.co.za',
	'yahoo.com.au',
	'yahoo.com.ar',
	'yahoo.com.br',
	'yahoo.com.hk',
	'yahoo.com.mx',
	'yahoo.com.my',
	'yahoo.com.ph',
	'yahoo.com.sg',
	'yahoo.com.tw',
	'yahoo.com.vn',
	'yahoo.ca',
	'yahoo.de',
	'yahoo.dk',
	'yahoo.es',
	'yahoo.fr',
	'yahoo.gr',
	'yahoo.ie',
	'yahoo.in',
	'yahoo.it',
	'yahoo.no',
	'yahoo.pl',
	'yahoo.ro',
	'yahoo.se',
	'ymail.com',
	'rocketmail.com',
	// Microsoft
	'hotmail.com',
	'hotmail.co.uk',
	'hotmail.co.jp',
	'hotmail.com.ar',
	'hotmail.com.au',
	'hotmail.com.br',
	'hotmail.com.mx',
	'hotmail.be',
	'hotmail.ca',
	'hotmail.de',
	'hotmail.dk',
	'hotmail.es',
	'hotmail.fr',
	'hotmail.gr',
	'hotmail.it',
	'hotmail.nl',
	'hotmail.no',
	'hotmail.se',
	'outlook.com',
	'outlook.co.uk',
	'outlook.com.au',
	'outlook.com.br',
	'outlook.at',
	'outlook.be',
	'outlook.de',
	'outlook.dk',
	'outlook.es',
	'outlook.fr',
	'outlook.ie',
	'outlook.in',
	'outlook.it',
	'outlook.jp',
	'outlook.nl',
	'outlook.pt',
	'outlook.se',
	'live.com',
	'live.co.uk',
	'live.com.au',
	'live.com.mx',
	'live.be',
	'live.ca',
	'live.de',
	'live.dk',
	'live.fr',
	'live.ie',
	'live.it',
	'live.jp',
	'live.nl',
	'live.no',
	'live.se',
	'msn.com',
	'passport.com',
	'windowslive.com',
	// AOL, Apple
	'aol.com',
	'aol.co.uk',
	'aol.de',
	'aol.fr',
	'aim.com',
	'icloud.com',
	'me.com',
	'mac.com',
	// Privacy-focused and independent providers
	'proton.me',
	'protonmail.com',
	'protonmail.ch',
	'pm.me',
	'tutanota.com',
	'tutanota.de',
	'tuta.io',
	'tutamail.com',
	'fastmail.com',
	'fastmail.fm',
	'hushmail.com',
	'runbox.com',
	'posteo.de',
	'mailbox.org',
	'zoho.com',
	'zohomail.com',
	'mail.com',
	'email.com',
	'usa.com',
	'inbox.com',
	'lycos.com',
	'excite.com',
	// Germany, Austria, Switzerland
	'gmx.com',
	'gmx.net',
	'gmx.de',
	'gmx.at',
	'gmx.ch',
	'gmx.fr',
	'gmx.co.uk',
	'gmx.us',
	'web.de',
	't-online.de',
	'freenet.de',
	'arcor.de',
	'bluewin.ch',
	// France, Italy, Spain, Benelux
	'orange.fr',
	'wanadoo.fr',
	'free.fr',
	'laposte.net',
	'sfr.fr',
	'neuf.fr',
	'libero.it',
	'virgilio.it',
	'tiscali.it',
	'alice.it',
	'tin.it',
	'telefonica.net',
	'terra.es',
	'skynet.be',
	'telenet.be',
	'ziggo.nl',
	'kpnmail.nl',
	// UK and Ireland
	'btinternet.com',
	'sky.com',
	'virginmedia.com',
	'ntlworld.com',
	'talktalk.net',
	'eircom.net',
	// North America
	'comcast.net',
	'verizon.net',
	'att.net',
	'sbcglobal.net',
	'bellsouth.net',
	'cox.net',
	'charter.net',
	'earthlink.net',
	'optonline.net',
	'shaw.ca',
	'rogers.com',
	'sympatico.ca',
	// Australia, New Zealand
	'bigpond.com',
	'bigpond.net.au',
	'optusnet.com.au',
	'xtra.co.nz',
	// Central and Eastern Europe, Russia
	'seznam.cz',
	'centrum.cz',
	'wp.pl',
	'o2.pl',
	'onet.pl',
	'interia.pl',
	'mail.ru',
	'inbox.ru',
	'list.ru',
	'bk.ru',
	'rambler.ru',
	'yandex.com',
	'yandex.ru',
	'yandex.ua',
	'yandex.by',
	'yandex.kz',
	'ya.ru',
	'ukr.net',
	// Asia
	'qq.com',
	'163.com',
	'126.com',
	'yeah.net',
	'sina.com',
	'sina.cn',
	'sohu.com',
	'aliyun.com',
	'foxmail.com',
	'139.com',
	'naver.com',
	'hanmail.net',
	'daum.net',
	'rediffmail.com',
	// Latin America
	'uol.com.br',
	'bol.com.br',
	'terra.com.br',
	'ig.com.br',
	// Disposable addresses: never an employer either
	'mailinator.com',
	'guerrillamail.com',
	'sharklasers.com',
	'10minutemail.com',
	'temp-mail.org',
	'yopmail.com',
	'trashmail.com',
	'getnada.com',
	'dispostable.com',
]);

const DOMAIN = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}][\p{L}\p{N}-]*$/u;

/** A lowercase domain from text that is a domain (no `@`), or null. */
export function bareDomain(text: string): string | null {
	const domain = text.normalize('NFC').trim().toLowerCase().replace(/\.$/, '');
	return DOMAIN.test(domain) ? domain : null;
}

/**
 * The lowercase domain of an email address (`Jane <JANE@Sales.Acme.com>` → `sales.acme.com`),
 * or null when the value is not an address. For a list, the first address's domain.
 */
export function emailDomain(value: unknown): string | null {
	if (Array.isArray(value)) {
		for (const element of value) {
			const domain = emailDomain(element);
			if (domain !== null) return domain;
		}
		return null;
	}
	if (typeof value !== 'string') return null;
	let text = value.trim();
	const bracketed = /<([^<>]*)>\s*$/.exec(text);
	if (bracketed) text = bracketed[1].trim();
	if (/^mailto:/i.test(text)) text = text.slice('mailto:'.length);
	const at = text.lastIndexOf('@');
	if (at <= 0 || /\s/.test(text.slice(0, at))) return null;
	return bareDomain(text.slice(at + 1));
}

/** True when `domain` is a consumer or disposable mailbox provider. */
export function isFreeMailDomain(domain: string): boolean {
	return FREE_MAIL_DOMAINS.has(domain.toLowerCase());
}

/**
 * A domain list item as users type it: lowercase, without a leading `@`, `*.` or `.`, and
 * the domain of a whole address when one is pasted.
 */
export function normalizeDomainItem(item: string): string {
	let domain = item.normalize('NFC').trim().toLowerCase();
	const at = domain.lastIndexOf('@');
	if (at !== -1) domain = domain.slice(at + 1);
	return domain.replace(/^\*?\.+/, '').replace(/\.$/, '');
}

/** True when `domain` is one of `listed` or a subdomain of one (sales.acme.com ∈ acme.com). */
export function domainInList(domain: string, listed: readonly string[]): boolean {
	for (const item of listed) {
		if (domain === item) return true;
		if (
			domain.length > item.length &&
			domain.endsWith(item) &&
			domain[domain.length - item.length - 1] === '.'
		) {
			return true;
		}
	}
	return false;
}
