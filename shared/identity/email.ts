import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import type { IdentityProfile } from './profiles';

/**
 * Zero-width space, non-joiner and joiner, word joiner, byte-order mark and soft hyphen: invisible,
 * never part of an address, yet they change its bytes (and its hash) when pasted along with it.
 */
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;
/** Full stops UTS #46 reads as the dot between domain labels (after NFKC, U+FF61 is U+3002). */
const IDEOGRAPHIC_FULL_STOP = /\u3002/g;
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * Text as every email reader of the package sees it: NFKC (fullwidth `ｊａｎｅ` is `jane`),
 * invisible characters removed, trimmed. ASCII text is only trimmed (NFKC leaves it as it is).
 */
export function cleanEmailText(text: string): string {
	if (!NOT_ASCII.test(text)) return text.trim();
	return text.normalize('NFKC').replace(INVISIBLE, '').replace(IDEOGRAPHIC_FULL_STOP, '.').trim();
}

/**
 * The one reading of an email address (normalization.md): cleaned as above, the address taken
 * out of `Jane Doe <jane@example.com>` and `mailto:jane@example.com`, then lowercased. Not
 * validated: the identity normalizer validates it, the rules take its domain.
 */
export function readEmailText(text: string): string {
	let email = cleanEmailText(text);
	const bracketed = /<([^<>]*)>\s*$/.exec(email);
	if (bracketed) email = bracketed[1].trim();
	if (/^mailto:/i.test(email)) email = email.slice('mailto:'.length).replace(/\?.*$/s, '').trim();
	return email.toLowerCase();
}

/**
 * Email (em): read as above (NFKC, invisible characters removed, display name and `mailto:`
 * removed, lowercase), then validate `local@domain.tld` (normalization.md). Dots and +tags are
 * kept in the canonical form; Google's gmail rule is applied when rendering.
 */
export function normalizeEmailText(text: string): FieldOutcome {
	const email = readEmailText(text);
	if (email === '') return { omitted: 'not a valid address (empty)' };
	const problem = findEmailProblem(email);
	return problem === null ? { value: email } : { omitted: `not a valid address (${problem})` };
}

/** Why `email` is not a deliverable-looking address, or null when it is fine. */
function findEmailProblem(email: string): string | null {
	if (/\s/u.test(email)) return 'contains spaces';
	const at = email.indexOf('@');
	if (at === -1) return 'missing @';
	if (email.indexOf('@', at + 1) !== -1) return 'more than one @';
	const local = email.slice(0, at);
	const domain = email.slice(at + 1);
	if (local === '') return 'missing local part';
	if (domain === '') return 'missing domain';
	if (email.includes('..')) return 'consecutive dots';
	if (local.startsWith('.') || local.endsWith('.')) return 'local part starts or ends with a dot';
	if (/[<>()[\]\\,;:"]/.test(local)) return 'invalid character in local part';
	const labels = domain.split('.');
	if (labels.some((label) => label === '')) return 'empty domain label';
	if (labels.length < 2) return 'missing top-level domain';
	if (
		labels.some(
			(label) => !/^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u.test(label),
		)
	) {
		return 'invalid character in domain';
	}
	const topLevel = labels[labels.length - 1];
	if (!/^(?:\p{L}{2,}|xn--[a-z0-9-]+)$/u.test(topLevel)) return 'invalid top-level domain';
	return null;
}

const GOOGLE_DOT_FREE_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

/** Renders a canonical email in the platform's style (Google: gmail local-part dots removed). */
export function renderEmail(canonical: string, style: IdentityProfile['email']): string {
	if (style !== 'gmail-dots-removed') return canonical;
	const at = canonical.lastIndexOf('@');
	if (at === -1) return canonical;
	const domain = canonical.slice(at + 1);
	if (!GOOGLE_DOT_FREE_DOMAINS.has(domain)) return canonical;
	return `${canonical.slice(0, at).replace(/\./g, '')}@${domain}`;
}

/**
 * The email as the profile's platform wants it before hashing, or null to omit. An input that already is
 * a SHA-256 is returned lowercased, as it is.
 */
export function normalizeEmail(raw: unknown, opts: { profile: IdentityProfile }): string | null {
	const canonical = firstFieldValue('email', raw, normalizeEmailText);
	if (canonical === null || !canonical.includes('@')) return canonical;
	return renderEmail(canonical, opts.profile.email);
}
