/**
 * What "looks personal" to the capture log (docs/capture.md, "What the log keeps"). One set of
 * tests for URL path segments, query values, UTM values and attribute values, so the log and
 * the capture script's sessionStorage (its own copy of EMAILISH and PHONEISH, test/browser)
 * refuse the same things.
 */

/** An address anywhere in the text (after percent-decoding): `x@y.z`. */
const EMAILISH = /[^\s@/?#&=]+@[^\s@/?#&=]+\.[^\s@/?#&=]+/;
/** Seven digits or more, separators allowed between them: a phone number or an id of a person. */
const PHONEISH = /\d(?:[\s().\-+/]*\d){6,}/;
/** A name slug: 2 to 4 words of letters joined by `-`, `.`, `_` or `+` (`jane-doe`, `Jean.Luc.Picard`). */
const NAME_SLUG = /^\p{L}{2,}(?:[-._+]\p{L}{1,}){1,3}$/u;
/** Path segments after which the next segment names a person (`/u/jane`, `/account/123`). */
const PERSON_SEGMENTS: ReadonlySet<string> = new Set([
	'u', 'user', 'users', 'profile', 'profiles', 'people', 'person', 'member', 'members',
	'account', 'accounts', 'customer', 'customers', 'contact', 'contacts', 'author', 'authors',
	'team', 'staff', 'employee', 'employees', 'client', 'clients', 'me', 'in',
]);
/** What replaces a scrubbed path segment. */
export const SCRUBBED_SEGMENT = '_';
/** How much of a value the patterns read: they never backtrack over a 256 KiB body. */
const SCAN_CHARS = 512;

/** The text with percent-encoding undone (`jane%40example.com` → `jane@example.com`); as is when malformed. */
export function decoded(text: string): string {
	let out = text.slice(0, SCAN_CHARS).replace(/\+/g, ' ');
	for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(out); i++) {
		try {
			out = decodeURIComponent(out);
		} catch {
			break;
		}
	}
	return out;
}

/** The lowercase words (3+ letters) of a text. */
export function wordsOf(text: string): string[] {
	return text.toLowerCase().split(/[^\p{L}]+/u).filter((w) => w.length >= 3);
}

/**
 * True when `text` (percent-decoded) holds an email address, a phone-like run of digits, or one
 * of `identity` (the words of the lead's own name and email local part).
 */
export function looksPersonal(text: string, identity: ReadonlySet<string> = new Set()): boolean {
	const plain = decoded(text);
	if (plain.includes('@') && EMAILISH.test(plain)) return true;
	if (PHONEISH.test(plain)) return true;
	return identity.size > 0 && wordsOf(plain).some((w) => identity.has(w));
}

/** True for a path segment that may name a person: personal (above) or a name slug. */
function personalSegment(segment: string, identity: ReadonlySet<string>): boolean {
	const plain = decoded(segment);
	return plain.startsWith('@') || plain.startsWith('~') || NAME_SLUG.test(plain) || looksPersonal(plain, identity);
}

/**
 * A URL path with every segment that may name a person replaced by `_`: emails (also
 * percent-encoded), phone-like digit runs, name slugs, the lead's own name words, `@handle` and
 * `~user` segments, and any segment after a person segment (`/u/…`, `/account/…`, `/profile/…`).
 */
export function scrubPath(pathname: string, identity: ReadonlySet<string> = new Set()): string {
	const segments = pathname.split('/');
	let afterPerson = false;
	return segments
		.map((segment) => {
			const scrub = segment !== '' && (afterPerson || personalSegment(segment, identity));
			afterPerson = PERSON_SEGMENTS.has(decoded(segment).toLowerCase());
			return scrub ? SCRUBBED_SEGMENT : segment;
		})
		.join('/');
}

/**
 * An enum-like token (`paid_social`, `enterprise`, `1-10`, `de-DE`): 1–64 letters, digits and
 * `_ . : + / -`, no spaces, nothing personal (above). Free text never is one.
 */
export function isToken(text: string, identity: ReadonlySet<string> = new Set()): boolean {
	return /^[\p{L}\p{N}][\p{L}\p{N}_.:+/-]{0,63}$/u.test(text) && !looksPersonal(text, identity);
}
