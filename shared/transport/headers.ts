/**
 * Response header names lower-cased, values as text (a repeated header joined with commas), for
 * every executor (Node's http, n8n's request helper): the transport and the platforms' error
 * maps read `retry-after`, `www-authenticate`… by their lower-case names.
 */
export function lowerCaseHeaders(headers: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	if (headers && typeof headers === 'object') {
		for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
			if (value !== undefined && value !== null) out[key.toLowerCase()] = String(value);
		}
	}
	return out;
}
