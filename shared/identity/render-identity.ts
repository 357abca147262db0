import { renderEmail } from './email';
import { emptyFieldMap, type IdentityField } from './fields';
import { hashSha256, hashSha256Memoized, isSha256Hex } from './hash';
import type { NormalizedIdentity } from './normalize-identity';
import { renderPhone } from './phone';
import type { IdentityFieldRule, IdentityProfile } from './profiles';

export interface PlatformIdentity {
	/**
	 * Values per field: SHA-256 hex where the profile hashes, clear otherwise; every field is a
	 * key, undefined when absent (emptyFieldMap).
	 */
	values: Partial<Record<IdentityField, string[]>>;
	/** Fields with at least one value, in profile order. */
	matchKeys: IdentityField[];
	/** Rendering warnings only; the normalization warnings stay on the NormalizedIdentity. */
	warnings: string[];
}

/** Low-cardinality fields whose hashes repeat across a batch (first names follow a steep Zipf curve). */
const MEMOIZED_FIELDS: ReadonlySet<IdentityField> = new Set<IdentityField>([
	'first_name',
	'country',
	'region',
	'city',
	'gender',
]);

/** Each profile's fields as a list, computed once per profile: rendering runs per event per platform. */
const PROFILE_FIELDS = new WeakMap<IdentityProfile, Array<[IdentityField, IdentityFieldRule]>>();

function fieldsOf(profile: IdentityProfile): Array<[IdentityField, IdentityFieldRule]> {
	let fields = PROFILE_FIELDS.get(profile);
	if (fields === undefined) {
		fields = Object.entries(profile.fields) as Array<[IdentityField, IdentityFieldRule]>;
		PROFILE_FIELDS.set(profile, fields);
	}
	return fields;
}

/**
 * Renders a normalized identity for one platform, by its profile (the platform adapter's
 * `identity`): its fields only, in its formats, hashed where it hashes. No parsing happens here;
 * it runs per event per platform.
 */
export function renderIdentity(identity: NormalizedIdentity, profile: IdentityProfile): PlatformIdentity {
	const values: Partial<Record<IdentityField, string[]>> = emptyFieldMap();
	const matchKeys: IdentityField[] = [];
	const warnings = new Set<string>();
	const fields = fieldsOf(profile);
	// An index loop: for…of with destructuring allocates per field, and this runs per event.
	for (let i = 0; i < fields.length; i++) {
		const field = fields[i][0];
		const rule = fields[i][1];
		const canonical = identity.values[field];
		if (canonical === undefined || canonical.length === 0) continue;
		const mayBeHashed = identity.hashedInput[field] === true;
		let output: string[];
		if (canonical.length === 1) {
			// One value per field is what nearly every lead has.
			const value = canonical[0];
			const one = renderValue(field, value, mayBeHashed && isSha256Hex(value), rule, profile, warnings);
			if (one === null || one === '') continue;
			output = [one];
		} else {
			const rendered = new Set<string>();
			for (const value of canonical) {
				const one = renderValue(field, value, mayBeHashed && isSha256Hex(value), rule, profile, warnings);
				if (one !== null && one !== '') rendered.add(one);
			}
			if (rendered.size === 0) continue;
			output = [...rendered];
		}
		values[field] = output;
		matchKeys.push(field);
	}
	return { values, matchKeys, warnings: warnings.size === 0 ? [] : [...warnings] };
}

function renderValue(
	field: IdentityField,
	value: string,
	arrivedHashed: boolean,
	rule: IdentityFieldRule,
	profile: IdentityProfile,
	warnings: Set<string>,
): string | null {
	if (arrivedHashed) {
		// Never hash twice; and a hash where clear text is expected is only fine for opaque ids.
		if (rule.hashed || rule.hashedInputAllowed) return value;
		warnings.add(`${field}: arrived hashed, but ${profile.platform} takes it in clear; omitted`);
		return null;
	}
	const clear = renderClear(field, value, profile, warnings);
	if (clear === null || clear === '') return null;
	if (!rule.hashed) return clear;
	return MEMOIZED_FIELDS.has(field) ? hashSha256Memoized(clear) : hashSha256(clear);
}

function renderClear(
	field: IdentityField,
	value: string,
	profile: IdentityProfile,
	warnings: Set<string>,
): string | null {
	switch (field) {
		case 'email':
			return renderEmail(value, profile.email);
		case 'phone':
			return renderPhone(value, profile.phone);
		case 'postal_code':
			if (profile.postalCode !== 'digits' || /^\d+$/.test(value)) return value;
			warnings.add(
				`postal_code: contains letters, and ${profile.platform} takes digits-only postal codes; omitted`,
			);
			return null;
		case 'gender':
			if ((profile.genders as readonly string[]).includes(value)) return value;
			warnings.add(
				`gender: ${profile.platform} accepts only ${profile.genders.join(' or ')}; omitted`,
			);
			return null;
		default:
			return value;
	}
}
