import { firstFieldValue } from './field-values';
import { CLICK_ID_FIELDS, type ClickIdField, type FieldOutcome } from './fields';

export { CLICK_ID_FIELDS, type ClickIdField };

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
