import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import { compactLowercase } from './text';

/** City (ct): lowercase, whitespace and punctuation removed (newyork, stlouis). */
export function normalizeCityText(text: string): FieldOutcome {
	const city = compactLowercase(text);
	return city === '' ? { omitted: 'no letters left after removing punctuation' } : { value: city };
}

export function normalizeCity(raw: unknown): string | null {
	return firstFieldValue('city', raw, normalizeCityText);
}
