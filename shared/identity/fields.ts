/**
 * The identity fields the module knows, and the result shape every field normalizer shares.
 */
export type IdentityField =
	| 'email'
	| 'phone'
	| 'first_name'
	| 'last_name'
	| 'city'
	| 'region'
	| 'postal_code'
	| 'country'
	| 'gender'
	| 'date_of_birth'
	| 'external_id'
	| 'ip'
	| 'user_agent'
	| 'fbc'
	| 'fbp'
	| 'gclid'
	| 'gbraid'
	| 'wbraid'
	| 'ttclid'
	| 'ttp'
	| 'msclkid'
	| 'epik';

/**
 * Fields that at least one platform hashes. Only for these is a 64-hex input taken to be an
 * existing SHA-256 (normalization.md "Already hashed"); a click id or user agent that happens
 * to be 64 hex characters is just a value.
 */
const HASHABLE_FIELD_LIST: readonly IdentityField[] = [
	'email',
	'phone',
	'first_name',
	'last_name',
	'city',
	'region',
	'postal_code',
	'country',
	'gender',
	'date_of_birth',
	'external_id',
];
export const HASHABLE_FIELDS: ReadonlySet<IdentityField> = new Set(HASHABLE_FIELD_LIST);

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

export const IDENTITY_FIELDS: readonly IdentityField[] = [
	...HASHABLE_FIELD_LIST,
	'ip',
	'user_agent',
	'fbc',
	'fbp',
	...CLICK_ID_FIELDS,
];

/**
 * A fresh per-field map with every identity field present, undefined until set. Every lead's map
 * then has one object shape, so the per-event code that reads and writes fields by name stays on
 * V8's fast path (objects that gain their fields in varying orders fall back to slow lookups: about
 * a sixth of a dispatch's time). An undefined field reads as absent everywhere, and JSON leaves
 * it out; `compactFieldMap` drops them for output.
 */
export function emptyFieldMap<T>(): Partial<Record<IdentityField, T>> {
	const map = {
		email: undefined,
		phone: undefined,
		first_name: undefined,
		last_name: undefined,
		city: undefined,
		region: undefined,
		postal_code: undefined,
		country: undefined,
		gender: undefined,
		date_of_birth: undefined,
		external_id: undefined,
		ip: undefined,
		user_agent: undefined,
		fbc: undefined,
		fbp: undefined,
		gclid: undefined,
		gbraid: undefined,
		wbraid: undefined,
		ttclid: undefined,
		ttp: undefined,
		msclkid: undefined,
		epik: undefined,
	} satisfies Record<IdentityField, undefined>;
	return map;
}

/** The fields of a map that have a value, as a new object (for what users see). */
export function compactFieldMap<T>(map: Partial<Record<IdentityField, T>>): Partial<Record<IdentityField, T>> {
	const out: Partial<Record<IdentityField, T>> = {};
	for (const field of IDENTITY_FIELDS) {
		const value = map[field];
		if (value !== undefined) out[field] = value;
	}
	return out;
}

/**
 * What normalizing one input value gave:
 * - `{ value }` the canonical value (`hashed` when it arrived as a SHA-256 and passes through),
 * - `{ omitted }` the value was unusable; the reason becomes a warning and never echoes raw PII,
 * - `null` nothing was there (absent or blank): omit without a warning.
 */
export type FieldOutcome = { value: string; hashed?: true } | { omitted: string } | null;
