import type { Platform } from '../types';
import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import { IDENTITY_PROFILES, type IdentityProfile } from './profiles';

/**
 * Email (em): trim, lowercase, validate `local@domain.tld` (normalization.md). Dots and +tags
 * are kept in the canonical form; Google's gmail rule is applied when rendering.
 */
export function normalizeEmailText(text: string): FieldOutcome {
	const email = text.toLowerCase();
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
 * The email as `platform` wants it before hashing, or null to omit. An input that already is
 * a SHA-256 is returned lowercased, as it is.
 */
export function normalizeEmail(raw: unknown, opts: { platform: Platform }): string | null {
	const canonical = firstFieldValue('email', raw, normalizeEmailText);
	if (canonical === null || !canonical.includes('@')) return canonical;
	return renderEmail(canonical, IDENTITY_PROFILES[opts.platform].email);
}
