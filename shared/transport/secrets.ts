/**
 * Secrets (access tokens, app secrets, webhook secrets) never appear in outputs, errors or logs.
 * Every message and every response body that leaves the transport goes through here.
 */
const MASK = '[redacted]';
/** Shorter values are too likely to occur by chance in normal text to be masked safely. */
const MIN_SECRET_LENGTH = 6;

/** Query/body parameters and headers that carry credentials whatever their value is. */
const CREDENTIAL_PATTERNS: RegExp[] = [
	/((?:access_token|appsecret_proof|client_secret|refresh_token|api_key|token)=)[^&\s"']+/gi,
	/("(?:access_token|appsecret_proof|client_secret|refresh_token|api_key|app_secret|password)"\s*:\s*")[^"]*/gi,
	/(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]+/g,
	/((?:Access-Token|developer-token|Authorization)\s*[:=]\s*)[^\r\n,"']+/gi,
];

export function scrubText(text: string, secrets: readonly string[] = []): string {
	let out = text;
	for (const secret of secrets) {
		if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
		if (out.includes(secret)) out = out.split(secret).join(MASK);
		// Also the URL-encoded form, as it appears in query strings.
		const encoded = encodeURIComponent(secret);
		if (encoded !== secret && out.includes(encoded)) out = out.split(encoded).join(MASK);
	}
	for (const pattern of CREDENTIAL_PATTERNS) out = out.replace(pattern, `$1${MASK}`);
	return out;
}

/** Deep copy of a JSON-like value with every string scrubbed. */
export function scrubValue<T>(value: T, secrets: readonly string[] = []): T {
	if (typeof value === 'string') return scrubText(value, secrets) as unknown as T;
	if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets)) as unknown as T;
	if (value && typeof value === 'object') {
		const out: Record<string, unknown> = {};
		for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
			out[key] = /^(access_token|appsecret_proof|app_secret|client_secret|password)$/i.test(key)
				? MASK
				: scrubValue(v, secrets);
		}
		return out as T;
	}
	return value;
}
