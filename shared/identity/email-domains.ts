/** Email domains: extracting them, free-mail detection, and "domain in list" with subdomains. */
import { domainToUnicode } from 'node:url';
import { cleanEmailText, readEmailText } from './email';

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

const DOMAIN =
	/^(?:[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?\.)+[\p{L}\p{N}][\p{L}\p{M}\p{N}-]*$/u;

/**
 * The canonical form of a domain, or null when the text is not one: cleaned like every email
 * (NFKC, invisible characters removed — `ｇｍａｉｌ.com` is `gmail.com`), lowercase, without a
 * trailing dot, and with punycode labels in their Unicode form (`xn--mnchen-3ya.de` is
 * `münchen.de`), so a domain compares equal however it was typed.
 */
export function bareDomain(text: string): string | null {
	const domain = cleanEmailText(text).toLowerCase().replace(/\.$/, '');
	const unicode = domain.includes('xn--') ? domainToUnicode(domain) || domain : domain;
	return DOMAIN.test(unicode) ? unicode : null;
}

/**
 * The domain of an email address in its canonical form (`Jane <JANE@Sales.Acme.com>` →
 * `sales.acme.com`, `ｊａｎｅ@ｇｍａｉｌ.com` → `gmail.com`), or null when the value is not an
 * address. The address is read as the identity normalizer reads it (readEmailText: display name,
 * `mailto:`, NFKC, invisible characters). For a list, the first address's domain.
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
	const address = readEmailText(value);
	const at = address.lastIndexOf('@');
	if (at <= 0 || /\s/.test(address.slice(0, at))) return null;
	return bareDomain(address.slice(at + 1));
}

/**
 * The domain a rule reads from an email field's value: the address's domain (emailDomain), or
 * the value itself when it is a bare domain without `@` (contact.email_domain in the capture
 * log). The one reading used by the rules, the capture log and the preview.
 */
export function emailOrBareDomain(value: unknown): string | null {
	const fromAddress = emailDomain(value);
	if (fromAddress !== null) return fromAddress;
	return typeof value === 'string' && !value.includes('@') ? bareDomain(value) : null;
}

/**
 * Latin letters' look-alikes from the Cyrillic, Greek and Armenian scripts (and Latin's own
 * script g): `gmаil.com` with a Cyrillic `а` is not Gmail, but no employer either.
 */
const LOOKALIKES = 'авеёкмнорстухіїјѕԁԛԝһӏαεικνορτυχωոսօɡı';
const LATIN_LETTERS = 'abeekmhopctyxiijsdqwhlaeikvoptuxwnuogi';
const NON_ASCII = /[\u0080-\uffff]/g;

/** The domain with look-alike letters read as the Latin letters they imitate. */
function latinSkeleton(domain: string): string {
	return domain.replace(NON_ASCII, (ch) => {
		const at = LOOKALIKES.indexOf(ch);
		return at === -1 ? ch : LATIN_LETTERS[at];
	});
}

/** True when `domain` or one of its parent domains is in FREE_MAIL_DOMAINS. */
function underFreeMailDomain(domain: string): boolean {
	for (let dot = -1; ; dot = domain.indexOf('.', dot + 1)) {
		const suffix = domain.slice(dot + 1);
		if (!suffix.includes('.')) return false;
		if (FREE_MAIL_DOMAINS.has(suffix)) return true;
	}
}

/**
 * True when `domain` is a consumer or disposable mailbox provider: its canonical form (see
 * bareDomain) is a listed domain or a subdomain of one (`mail.gmail.com`, `eu.yahoo.com`), also
 * when it imitates one with look-alike letters (`gmаil.com` with a Cyrillic `а`). This is the
 * rule of *Is Work Email* (docs/nodes/lead-rule-filter.md).
 */
export function isFreeMailDomain(domain: string): boolean {
	const canonical = bareDomain(domain) ?? domain.toLowerCase();
	if (underFreeMailDomain(canonical)) return true;
	const skeleton = latinSkeleton(canonical);
	return skeleton !== canonical && underFreeMailDomain(skeleton);
}

/**
 * A domain list item as users type it, in bareDomain's canonical form: without a leading `@`,
 * `*.` or `.`, and the domain of a whole address when one is pasted.
 */
export function normalizeDomainItem(item: string): string {
	let domain = cleanEmailText(item).toLowerCase();
	const at = domain.lastIndexOf('@');
	if (at !== -1) domain = domain.slice(at + 1);
	domain = domain.replace(/^\*?\.+/, '').replace(/\.$/, '');
	return bareDomain(domain) ?? domain;
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
