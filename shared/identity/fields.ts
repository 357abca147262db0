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

export const IDENTITY_FIELDS: readonly IdentityField[] = [
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
	'ip',
	'user_agent',
	'fbc',
	'fbp',
	'gclid',
	'gbraid',
	'wbraid',
	'ttclid',
	'ttp',
	'msclkid',
	'epik',
];

/**
 * Fields that at least one platform hashes. Only for these is a 64-hex input taken to be an
 * existing SHA-256 (normalization.md "Already hashed"); a click id or user agent that happens
 * to be 64 hex characters is just a value.
 */
export const HASHABLE_FIELDS: ReadonlySet<IdentityField> = new Set<IdentityField>([
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
]);

/**
 * What normalizing one input value gave:
 * - `{ value }` the canonical value (`hashed` when it arrived as a SHA-256 and passes through),
 * - `{ omitted }` the value was unusable; the reason becomes a warning and never echoes raw PII,
 * - `null` nothing was there (absent or blank): omit without a warning.
 */
export type FieldOutcome = { value: string; hashed?: true } | { omitted: string } | null;
