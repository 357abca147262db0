import * as crypto from 'node:crypto';

/**
 * One-shot `crypto.hash` (Node ≥ 20.12) is about twice as fast as createHash → update → digest
 * for short inputs like an email; fall back to the stream API on older Node.
 */
const oneShot = (crypto as unknown as { hash?: (algorithm: string, data: string) => string }).hash;
const sha256Hex: (value: string) => string = oneShot
	? (value) => oneShot('sha256', value)
	: (value) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * Meta's parameter builder emits hashed PII as `<64-hex>.<appendix>` (platforms.md §1.4); the
 * hash before the dot is the plain SHA-256, which is all any platform needs.
 */
const SHA256_HEX_WITH_APPENDIX = /^([0-9a-fA-F]{64})\.[A-Za-z0-9_-]{1,32}$/;

/** Lowercase hex SHA-256 of the UTF-8 bytes of `value`. */
export function hashSha256(value: string): string {
	// An empty string hashes to a valid-looking digest that matches nobody; refusing here keeps
	// that mistake from ever reaching a platform.
	if (value === '') throw new RangeError('hashSha256: refusing to hash an empty string');
	return sha256Hex(value);
}

/** Whether `value` is a SHA-256 digest in hex (64 hex characters, any case). */
export function isSha256Hex(value: string): boolean {
	return SHA256_HEX.test(value);
}

/** The lowercase digest when `text` already is a SHA-256 (appendix allowed), else null. */
export function readExistingSha256(text: string): string | null {
	// Every value of every hashable field comes through here; almost none is a digest.
	if (text.length < 64) return null;
	if (SHA256_HEX.test(text)) return text.toLowerCase();
	const withAppendix = SHA256_HEX_WITH_APPENDIX.exec(text);
	return withAppendix ? withAppendix[1].toLowerCase() : null;
}

const MEMO_LIMIT = 4096;
const memo = new Map<string, string>();

/**
 * hashSha256 with a small memo, for low-cardinality values (country, region, city, gender) that
 * every event of a batch repeats. Cleared when full so memory stays bounded.
 */
export function hashSha256Memoized(value: string): string {
	const known = memo.get(value);
	if (known !== undefined) return known;
	const digest = hashSha256(value);
	if (memo.size >= MEMO_LIMIT) memo.clear();
	memo.set(value, digest);
	return digest;
}
