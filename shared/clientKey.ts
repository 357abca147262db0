/**
 * The Client Key rule, once for the whole package: an agency's client is a short slug — 1-64
 * letters, digits, dots, dashes or underscores — so it can take part in event ids (events/) and
 * in Redis key prefixes (dedup/) without breaking either. A key is valid everywhere or nowhere.
 */
const CLIENT_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * An agency's Client Key, trimmed; undefined when empty. Throws (a configuration error, for the
 * node to raise) when it breaks the rule above.
 */
export function readClientKey(raw: unknown): string | undefined {
	const key = typeof raw === 'string' ? raw.trim() : raw == null ? '' : String(raw).trim();
	if (!key) return undefined;
	if (!CLIENT_KEY.test(key)) {
		throw new Error(`client key "${key.slice(0, 70)}" must be 1-64 letters, digits, dots, dashes or underscores`);
	}
	return key;
}

/** The prefix of every Redis key the package writes (dedup, stage ledger, outbox) when none is set. */
export const DEFAULT_KEY_PREFIX = 'leadcapi';
