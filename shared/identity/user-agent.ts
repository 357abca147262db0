import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';

/** User agent: passed through as captured (trimmed), never hashed. */
export function normalizeUserAgentText(text: string): FieldOutcome {
	return { value: text };
}

export function normalizeUserAgent(raw: unknown): string | null {
	return firstFieldValue('user_agent', raw, normalizeUserAgentText);
}
