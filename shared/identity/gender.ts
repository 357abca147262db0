import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import type { Gender, IdentityProfile } from './profiles';
import { lookupKey } from './text';

const GENDER_WORDS: ReadonlyMap<string, Gender> = new Map<string, Gender>([
	...[
		'f',
		'female',
		'woman',
		'w',
		'weiblich',
		'frau',
		'femme',
		'mujer',
		'femenino',
		'feminino',
	].map((word) => [word, 'f'] as const),
	...['m', 'male', 'man', 'mannlich', 'mann', 'homme', 'hombre', 'masculino'].map(
		(word) => [word, 'm'] as const,
	),
	...['n', 'nonbinary', 'nb', 'enby', 'x', 'divers', 'genderqueer'].map(
		(word) => [word, 'n'] as const,
	),
]);

/** Explicit non-answers: omitted without a warning, since nothing is wrong with the data. */
const NON_ANSWERS = new Set([
	'u',
	'unknown',
	'na',
	'none',
	'prefernottosay',
	'notspecified',
	'unspecified',
]);

/** Gender (ge): f, m or n (non-binary) from common words; anything else is omitted. */
export function normalizeGenderText(text: string): FieldOutcome {
	const key = lookupKey(text);
	const gender = GENDER_WORDS.get(key);
	if (gender !== undefined) return { value: gender };
	if (NON_ANSWERS.has(key)) return null;
	// Never quoted: a name mapped into the wrong field is personal data (issue 13).
	return { omitted: 'not a recognised gender (f, m or n; female, male, non-binary…)' };
}

/** The gender as the profile's platform accepts it (`n` only for Pinterest), or null to omit. */
export function normalizeGender(raw: unknown, opts: { profile: IdentityProfile }): string | null {
	const gender = firstFieldValue('gender', raw, normalizeGenderText);
	if (gender === null || gender.length > 1) return gender;
	return (opts.profile.genders as readonly string[]).includes(gender)
		? gender
		: null;
}
