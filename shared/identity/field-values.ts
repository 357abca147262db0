import { HASHABLE_FIELDS, type FieldOutcome, type IdentityField } from './fields';
import { readExistingSha256 } from './hash';
import { cleanText, readCandidateTexts } from './raw-values';

const SHA256_OF_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Normalizes one trimmed, non-empty, NFC text of a field. */
export type TextNormalizer = (text: string) => FieldOutcome;

export interface FieldValues {
	/** Canonical values, de-duplicated, in input order. */
	values: string[];
	/** Whether any value arrived already hashed (and passed through). */
	hashed: boolean;
	/** `<label>: <reason>` for every dropped value, de-duplicated. */
	warnings: string[];
}

export interface FieldValuesOptions {
	/** Keep every valid value (contact fields) or only the first (client and click fields). */
	multiple: boolean;
	/** Name used in warnings; defaults to the field. */
	label?: string;
}

const NONE: readonly string[] = Object.freeze([]);
/** What an absent or blank input gives; shared (read-only) because it is by far the commonest. */
const NO_VALUES: FieldValues = Object.freeze({
	values: NONE as string[],
	hashed: false,
	warnings: NONE as string[],
});

/**
 * Applies a field's text normalizer to every value of a raw input: the general rules of
 * normalization.md (lists, blanks, already-hashed values, de-duplication) live here once, so a
 * field module only states its own rule. The result's arrays are read-only.
 */
export function normalizeFieldValues(
	field: IdentityField,
	raw: unknown,
	normalizeText: TextNormalizer,
	options: FieldValuesOptions,
): FieldValues {
	// Absent and single-string inputs (nearly every value of every lead) take a path that
	// builds no candidate list; lists, numbers and dates take the general one below.
	if (raw === undefined || raw === null) return NO_VALUES;
	if (typeof raw === 'string') {
		const outcome = normalizeStringValue(field, raw, normalizeText);
		if (outcome === null) return NO_VALUES;
		if ('omitted' in outcome) {
			return { values: NONE as string[], hashed: false, warnings: [`${options.label ?? field}: ${outcome.omitted}`] };
		}
		return { values: [outcome.value], hashed: outcome.hashed === true, warnings: NONE as string[] };
	}
	const label = options.label ?? field;
	const candidates = readCandidateTexts(raw);
	const values: string[] = [];
	const warnings = new Set<string>(candidates.rejected.map((reason) => `${label}: ${reason}`));
	let hashed = false;
	for (const text of candidates.texts) {
		const outcome = normalizeCandidate(field, text, normalizeText);
		if (outcome === null) continue;
		if ('omitted' in outcome) {
			warnings.add(`${label}: ${outcome.omitted}`);
			continue;
		}
		if (outcome.hashed) hashed = true;
		if (!values.includes(outcome.value)) values.push(outcome.value);
		if (!options.multiple) break;
	}
	return { values, hashed, warnings: [...warnings] };
}

/** One raw string of a field: blank → null, else what its normalizer (or an existing hash) gives. */
export function normalizeStringValue(
	field: IdentityField,
	raw: string,
	normalizeText: TextNormalizer,
): FieldOutcome {
	const text = cleanText(raw);
	return text === '' ? null : normalizeCandidate(field, text, normalizeText);
}

/**
 * A text normalizer with a bounded memo, for fields whose values repeat from lead to lead (first
 * names, cities, countries, genders): the same answers, worked out once per distinct text. The
 * memo is cleared when full, so memory stays bounded; it lives in this process only.
 */
export function memoizedText(normalizeText: TextNormalizer, limit = 4096): TextNormalizer {
	const memo = new Map<string, FieldOutcome>();
	return (text) => {
		let outcome = memo.get(text);
		if (outcome === undefined) {
			outcome = normalizeText(text);
			if (memo.size >= limit) memo.clear();
			memo.set(text, outcome);
		}
		return outcome;
	};
}

/** The field's first canonical value, for the single-value convenience functions. */
export function firstFieldValue(
	field: IdentityField,
	raw: unknown,
	normalizeText: TextNormalizer,
): string | null {
	return normalizeFieldValues(field, raw, normalizeText, { multiple: false }).values[0] ?? null;
}

function normalizeCandidate(
	field: IdentityField,
	text: string,
	normalizeText: TextNormalizer,
): FieldOutcome {
	if (HASHABLE_FIELDS.has(field)) {
		// A hash is passed through as it is: hashing it again would match nobody.
		const existing = readExistingSha256(text);
		// The digest of "" is what an upstream system sends when it hashed an empty field: it
		// matches nobody, so it is dropped like the empty value it stands for.
		if (existing === SHA256_OF_EMPTY) return { omitted: 'the SHA-256 of an empty value' };
		if (existing !== null) return { value: existing, hashed: true };
	}
	return normalizeText(text);
}
