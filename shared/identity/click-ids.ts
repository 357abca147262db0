import { firstFieldValue } from './field-values';
import type { FieldOutcome, IdentityField } from './fields';

/** Click ids and cookies passed through as captured: never lowercased, never hashed. */
export type ClickIdField = Extract<
	IdentityField,
	'gclid' | 'gbraid' | 'wbraid' | 'ttclid' | 'ttp' | 'msclkid' | 'epik'
>;

export const CLICK_ID_FIELDS: readonly ClickIdField[] = [
	'gclid',
	'gbraid',
	'wbraid',
	'ttclid',
	'ttp',
	'msclkid',
	'epik',
];

/** Click ids are opaque tokens; whitespace inside one means it was mangled on the way. */
export function normalizeClickIdText(text: string): FieldOutcome {
	return /\s/u.test(text) ? { omitted: 'contains whitespace' } : { value: text };
}

/**
 * msclkid: the `_uetmsclkid` cookie stores the click id behind a `_uet` prefix, which Stape
 * strips (platforms.md §5.4); the bare id is what the `?msclkid=` parameter carried.
 */
export function normalizeMsclkidText(text: string): FieldOutcome {
	const id = text.startsWith('_uet') ? text.slice('_uet'.length) : text;
	return id === '' ? null : normalizeClickIdText(id);
}

export function clickIdNormalizer(field: ClickIdField): (text: string) => FieldOutcome {
	return field === 'msclkid' ? normalizeMsclkidText : normalizeClickIdText;
}

export function normalizeClickId(field: ClickIdField, raw: unknown): string | null {
	return firstFieldValue(field, raw, clickIdNormalizer(field));
}
