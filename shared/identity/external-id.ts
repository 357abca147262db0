import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';

/**
 * External id: lowercase, whitespace removed. Hashed for Meta, Pinterest and TikTok; the same
 * canonical form everywhere so it matches what the pixel sends.
 */
export function normalizeExternalIdText(text: string): FieldOutcome {
	const id = text.toLowerCase().replace(/\s/gu, '');
	return id === '' ? null : { value: id };
}

export function normalizeExternalId(raw: unknown): string | null {
	return firstFieldValue('external_id', raw, normalizeExternalIdText);
}
