import { IDENTITY_PROFILES } from '../../shared/platforms';
import fc from 'fast-check';
import {
	emailDomain,
	FREE_MAIL_DOMAINS,
	hashSha256,
	isFreeMailDomain,
	normalizeEmail,
	normalizeIdentity,
	renderIdentity,
} from '../../shared/identity';
import { evaluateRules } from '../../shared/rules';
import { PLATFORMS, type LeadRecord } from '../../shared/types';
import { checkProperty, must } from '../support/hostile';

/**
 * Emails as people and systems paste them — fullwidth letters (a Japanese or Chinese keyboard),
 * zero-width characters and soft hyphens (copied from a web page or a PDF), upper case, a display
 * name (`Jane <jane@acme.com>`), `mailto:` — over 10,000 generated addresses: each form hashes
 * exactly like the plain address for every platform, has the same domain, and gets the same
 * *Is Work Email* and *Email Domain In* answer (issue 13).
 */

const LOCAL_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789._+-'.split('');
const LABEL_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789-'.split('');
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'];

const label = fc
	.array(fc.constantFrom(...LABEL_CHARS), { minLength: 1, maxLength: 10 })
	.map((chars) => chars.join(''))
	.filter((l) => !l.startsWith('-') && !l.endsWith('-'));
const localPart = fc
	.array(fc.constantFrom(...LOCAL_CHARS), { minLength: 1, maxLength: 16 })
	.map((chars) => chars.join(''))
	.filter((l) => !l.startsWith('.') && !l.endsWith('.') && !l.includes('..'));
const freeMail = [...FREE_MAIL_DOMAINS];
/** A work domain, a free-mail domain, or a subdomain of either. */
const domain = fc.oneof(
	fc.tuple(label, fc.constantFrom('com', 'io', 'de', 'co.uk')).map(([l, tld]) => `${l}.${tld}`),
	fc.constantFrom(...freeMail),
	fc.tuple(label, fc.constantFrom(...freeMail)).map(([l, d]) => `${l}.${d}`),
);

/** Fullwidth form of a printable ASCII character (NFKC folds it back). */
const fullwidth = (ch: string) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0);

interface Disguise {
	/** Per character: 0 plain, 1 upper case, 2 fullwidth, 3 fullwidth upper case. */
	forms: number[];
	/** Per character: an invisible character inserted before it, or none. */
	invisible: Array<string | null>;
	wrapper: 'none' | 'display' | 'quoted' | 'mailto' | 'spaces';
}

const disguise = fc.record<Disguise>({
	forms: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 64 }),
	invisible: fc.array(fc.option(fc.constantFrom(...INVISIBLE), { freq: 4 }), { maxLength: 64 }),
	wrapper: fc.constantFrom('none', 'display', 'quoted', 'mailto', 'spaces'),
});

function disguised(email: string, d: Disguise): string {
	let text = '';
	[...email].forEach((ch, i) => {
		text += d.invisible[i] ?? '';
		const form = d.forms[i] ?? 0;
		const cased = form % 2 === 1 ? ch.toUpperCase() : ch;
		text += form >= 2 ? fullwidth(cased) : cased;
	});
	switch (d.wrapper) {
		case 'display':
			return `Jane Doe <${text}>`;
		case 'quoted':
			return `"Doe, Jane" <${text}>`;
		case 'mailto':
			return `mailto:${text}`;
		case 'spaces':
			return `  ${text}\t`;
		default:
			return text;
	}
}

const ruleAnswer = (
	email: string,
	matchType: 'is_work_email' | 'email_domain_in',
	pattern?: string,
) =>
	evaluateRules(
		{ combinator: 'and', conditions: [{ field: 'contact.email', match_type: matchType, pattern }] },
		{ contact: { email } },
	).matched;

describe('emails in every pasted form normalize, hash and classify like the plain address', () => {
	it('10,000 generated addresses with fullwidth, zero-width, upper-case and display-name forms', () => {
		let forms = 0;
		checkProperty(
			fc.property(localPart, domain, disguise, (local, dom, d) => {
				const plain = `${local}@${dom}`;
				const typed = disguised(plain, d);
				if (typed !== plain) forms += 1;
				const show = () => `${JSON.stringify(typed)} vs ${plain}`;
				for (const platform of PLATFORMS) {
					const expected = normalizeEmail(plain, { profile: IDENTITY_PROFILES[platform] });
					must(expected !== null, () => `plain address rejected: ${plain}`);
					must(normalizeEmail(typed, { profile: IDENTITY_PROFILES[platform] }) === expected, () => `${platform}: ${show()}`);
				}
				const identity = normalizeIdentity({ contact: { email: typed } } as LeadRecord);
				must(identity.values.email?.[0] === plain, () => `identity: ${show()}`);
				const meta = renderIdentity(identity, IDENTITY_PROFILES['meta']);
				must(meta.values.email?.[0] === hashSha256(plain), () => `meta hash: ${show()}`);
				must(emailDomain(typed) === dom, () => `domain: ${show()}`);
				const free = isFreeMailDomain(dom);
				must(ruleAnswer(typed, 'is_work_email') === !free, () => `is_work_email: ${show()}`);
				must(
					ruleAnswer(typed, 'email_domain_in', dom.split('.').slice(-2).join('.')),
					() => `email_domain_in: ${show()}`,
				);
			}),
		);
		expect(forms).toBeGreaterThan(9_000);
	});

	it('a subdomain of any free-mail domain is free mail, in plain and fullwidth form', () => {
		checkProperty(
			fc.property(label, fc.constantFrom(...freeMail), (sub, dom) => {
				const wide = [...`${sub}.${dom}`].map(fullwidth).join('');
				must(isFreeMailDomain(`${sub}.${dom}`), () => `${sub}.${dom}`);
				must(isFreeMailDomain(wide), () => wide);
				must(!ruleAnswer(`x@${wide}`, 'is_work_email'), () => `x@${wide}`);
			}),
		);
	});
});
