import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import { compactLowercase } from './text';

/**
 * First and last name (fn, ln): lowercase, whitespace and punctuation removed, letters of any
 * script kept with their accents (josé, müller, 정).
 */
export function normalizeNameText(text: string): FieldOutcome {
	const name = compactLowercase(text);
	return name === '' ? { omitted: 'no letters left after removing punctuation' } : { value: name };
}

/** A first or last name ready for hashing (or an existing SHA-256), or null to omit. */
export function normalizeName(raw: unknown): string | null {
	return firstFieldValue('first_name', raw, normalizeNameText);
}

export function normalizeFirstName(raw: unknown): string | null {
	return firstFieldValue('first_name', raw, normalizeNameText);
}

export function normalizeLastName(raw: unknown): string | null {
	return firstFieldValue('last_name', raw, normalizeNameText);
}
