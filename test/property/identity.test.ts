import { IDENTITY_PROFILES } from '../../shared/platforms';
import { isIP } from 'node:net';
import fc from 'fast-check';
import {
	CLICK_ID_FIELDS,
	compactFieldMap,
	HASHABLE_FIELDS,
	normalizeCity,
	normalizeClickId,
	normalizeCountry,
	normalizeDateOfBirth,
	normalizeEmail,
	normalizeExternalId,
	normalizeFbp,
	normalizeFirstName,
	normalizeGender,
	normalizeIdentity,
	normalizeIp,
	normalizeLastName,
	normalizePhone,
	normalizePostalCode,
	normalizeRegion,
	normalizeUserAgent,
	renderIdentity,
	type IdentityField,
	type NormalizedIdentity,
} from '../../shared/identity';
import { PLATFORMS, type LeadRecord, type Platform } from '../../shared/types';
import {
	checkProperty,
	holdsSomething,
	hostileString,
	hostileValue,
	must,
	mustNotEchoEmailOrPhone,
	hashedValueDetector,
	rawTexts,
} from '../support/hostile';

/**
 * Every identity field, fed 10,000 hostile values each (test/support/hostile.ts): nothing throws,
 * every value that comes out is a valid normalized value (or an existing SHA-256 passed through),
 * a value that holds something and is dropped leaves a warning, no warning repeats a raw email or
 * phone, and every field a platform profile hashes is rendered as 64 lowercase hex that carries
 * no raw value.
 */

const NOW = Date.parse('2026-03-02T10:00:00Z');
const LOWER_HEX_64 = /^[0-9a-f]{64}$/;
const COMPACT_TEXT = /^[\p{L}\p{M}\p{N}]+$/u;

const isLowerCompact = (v: string) =>
	COMPACT_TEXT.test(v) && v === v.toLowerCase() && v === v.normalize('NFC');

function isCanonicalEmail(v: string): boolean {
	if (/\s/u.test(v) || v !== v.toLowerCase() || v.includes('..')) return false;
	const parts = v.split('@');
	if (parts.length !== 2 || parts[0] === '') return false;
	const labels = parts[1].split('.');
	return labels.length >= 2 && labels.every((label) => label !== '');
}

function isValidBirthDate(v: string): boolean {
	const match = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
	if (!match) return false;
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	const time = Date.UTC(year, month - 1, day);
	const date = new Date(time);
	return (
		year >= 1900 && time <= NOW && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
	);
}

const WELL_FORMED_FBC = /^fb\.\d\.\d{13}\.[^.\s]+(?:\.[A-Za-z0-9_-]+)?$/;
const WELL_FORMED_FBP = /^fb\.\d\.\d{13}\.\d+(?:\.[A-Za-z0-9_-]+)?$/;
const isOpaqueToken = (v: string) => v !== '' && !/\s/u.test(v);

/** What a canonical (platform-neutral) value of each field must look like. */
const CANONICAL: Record<IdentityField, (v: string) => boolean> = {
	email: isCanonicalEmail,
	phone: (v) => /^\+[1-9]\d{6,14}$/.test(v),
	first_name: isLowerCompact,
	last_name: isLowerCompact,
	city: isLowerCompact,
	region: isLowerCompact,
	postal_code: (v) => /^[\p{L}\p{N}]+$/u.test(v) && v === v.toLowerCase(),
	country: (v) => /^[a-z]{2}$/.test(v),
	gender: (v) => /^[fmn]$/.test(v),
	date_of_birth: isValidBirthDate,
	external_id: (v) => isOpaqueToken(v) && v === v.toLowerCase(),
	ip: (v) => isIP(v) !== 0,
	user_agent: (v) => v !== '' && v === v.trim(),
	fbc: (v) => WELL_FORMED_FBC.test(v),
	fbp: (v) => WELL_FORMED_FBP.test(v),
	gclid: isOpaqueToken,
	gbraid: isOpaqueToken,
	wbraid: isOpaqueToken,
	ttclid: isOpaqueToken,
	ttp: isOpaqueToken,
	msclkid: isOpaqueToken,
	epik: isOpaqueToken,
};

function isCanonical(field: IdentityField, value: string, identity: NormalizedIdentity): boolean {
	if (HASHABLE_FIELDS.has(field) && identity.hashedInput[field] && LOWER_HEX_64.test(value))
		return true;
	return CANONICAL[field](value);
}

/** The single-value functions, per platform where the platform changes the answer. */
const SINGLE: Partial<Record<IdentityField, (raw: unknown, platform: Platform) => string | null>> =
	{
		email: (raw, platform) => normalizeEmail(raw, { profile: IDENTITY_PROFILES[platform] }),
		phone: (raw, platform) => normalizePhone(raw, { profile: IDENTITY_PROFILES[platform], defaultCountry: 'US' }),
		first_name: normalizeFirstName,
		last_name: normalizeLastName,
		city: normalizeCity,
		region: (raw) => normalizeRegion(raw),
		postal_code: (raw) => normalizePostalCode(raw),
		country: normalizeCountry,
		gender: (raw, platform) => normalizeGender(raw, { profile: IDENTITY_PROFILES[platform] }),
		date_of_birth: (raw) => normalizeDateOfBirth(raw, { now: NOW }),
		external_id: normalizeExternalId,
		ip: normalizeIp,
		user_agent: normalizeUserAgent,
		fbp: normalizeFbp,
		...Object.fromEntries(
			CLICK_ID_FIELDS.map((field) => [field, (raw: unknown) => normalizeClickId(field, raw)]),
		),
	};

/**
 * Where a platform changes a single-value function's answer, the platforms that tell the
 * variants apart (phone: digits or E.164; email: gmail dots; gender: n); elsewhere one is enough.
 */
const SINGLE_PLATFORMS: Partial<Record<IdentityField, readonly Platform[]>> = {
	email: ['meta', 'google'],
	phone: ['meta', 'google'],
	gender: ['meta', 'pinterest'],
};

function isValidForPlatform(field: IdentityField, value: string, platform: Platform): boolean {
	if (HASHABLE_FIELDS.has(field) && LOWER_HEX_64.test(value)) return true;
	const profile = IDENTITY_PROFILES[platform];
	switch (field) {
		case 'phone':
			return profile.phone === 'digits' ? /^[1-9]\d{6,14}$/.test(value) : CANONICAL.phone(value);
		case 'email': {
			const [local, domain] = value.split('@');
			const dotless =
				profile.email === 'gmail-dots-removed' && /^(?:gmail|googlemail)\.com$/.test(domain ?? '');
			return isCanonicalEmail(value) && !(dotless && local.includes('.'));
		}
		case 'gender':
			return (profile.genders as readonly string[]).includes(value);
		case 'postal_code':
			return CANONICAL.postal_code(value);
		default:
			return CANONICAL[field](value);
	}
}

/** Inputs dropped without a warning by design: explicit non-answers, a bare cookie prefix. */
const GENDER_NON_ANSWERS = /^(?:u|unknown|na|none|prefernottosay|notspecified|unspecified)$/;
function silentlyOmittable(field: IdentityField, raw: unknown): boolean {
	const texts = rawTexts(raw).filter((text) => text.trim() !== '');
	const key = (text: string) =>
		text
			.normalize('NFD')
			.replace(/\p{M}/gu, '')
			.toLowerCase()
			.replace(/&/g, 'and')
			.replace(/[^a-z0-9]/g, '');
	if (field === 'gender')
		return texts.length > 0 && texts.every((text) => GENDER_NON_ANSWERS.test(key(text)));
	if (field === 'msclkid') return texts.length > 0 && texts.every((text) => text.trim() === '_uet');
	return false;
}

/** PII fields whose raw emails and phone numbers must never show up in a warning. */
const PII_FIELDS: readonly IdentityField[] = [
	'email',
	'phone',
	'first_name',
	'last_name',
	'date_of_birth',
	'external_id',
];

/** Renders for every platform and checks every field: hashed ones by the raw-value detector. */
function mustRenderSafely(identity: NormalizedIdentity, raws: readonly string[]): void {
	const rawIn = hashedValueDetector(raws);
	for (const platform of PLATFORMS) {
		const rendered = renderIdentity(identity, IDENTITY_PROFILES[platform]);
		for (const [field, values] of Object.entries(compactFieldMap(rendered.values)) as Array<
			[IdentityField, string[]]
		>) {
			must(
				values.length > 0 && rendered.matchKeys.includes(field),
				() => `${platform} ${field}: empty list or no match key`,
			);
			for (const value of values) {
				if (IDENTITY_PROFILES[platform].fields[field]?.hashed) {
					const problem = rawIn(value);
					must(problem === null, () => `${platform} ${field} (hashed): ${problem}`);
				} else {
					must(
						typeof value === 'string' && value !== '',
						() => `${platform} ${field} (clear): ${JSON.stringify(value)}`,
					);
				}
			}
		}
	}
}

type Placement = (raw: unknown, extra: unknown) => LeadRecord;

const contactField =
	(field: IdentityField): Placement =>
	(raw, country) => ({ contact: { [field]: raw, ...(country === undefined ? {} : { country }) } });

const COUNTRY_CONTEXT = fc.option(
	fc.constantFrom('US', 'us', 'CA', 'Germany', 'GB', 'fr', 'XX', ''),
	{
		nil: undefined,
	},
);

const FIELD_CASES: ReadonlyArray<[IdentityField, Placement, fc.Arbitrary<unknown>]> = [
	['email', contactField('email'), fc.constant(undefined)],
	['phone', contactField('phone'), COUNTRY_CONTEXT],
	['first_name', contactField('first_name'), fc.constant(undefined)],
	['last_name', contactField('last_name'), fc.constant(undefined)],
	['city', contactField('city'), fc.constant(undefined)],
	['region', contactField('region'), COUNTRY_CONTEXT],
	['postal_code', contactField('postal_code'), COUNTRY_CONTEXT],
	[
		'country',
		(raw, visitor) => ({ contact: { country: raw }, client: { country: visitor } }),
		COUNTRY_CONTEXT,
	],
	['gender', contactField('gender'), fc.constant(undefined)],
	['date_of_birth', contactField('date_of_birth'), fc.constant(undefined)],
	['external_id', contactField('external_id'), fc.constant(undefined)],
	['ip', (raw) => ({ client: { ip: raw } }), fc.constant(undefined)],
	['user_agent', (raw) => ({ client: { user_agent: raw } }), fc.constant(undefined)],
	['fbp', (raw) => ({ click: { fbp: raw } }), fc.constant(undefined)],
	...CLICK_ID_FIELDS.map((field): [IdentityField, Placement, fc.Arbitrary<unknown>] => [
		field,
		(raw, pageUrl) => ({ click: { [field]: raw }, source: { page_url: pageUrl } }),
		fc.option(fc.oneof(hostileString, fc.constant(`https://x.example/?${field}=from_url_1`)), {
			nil: undefined,
		}),
	]),
];

describe('identity fields under 10,000 hostile values each', () => {
	test.each(FIELD_CASES)('%s', (field, place, extraArbitrary) => {
		checkProperty(
			fc.property(
				hostileValue,
				extraArbitrary,
				fc.constantFrom(undefined, 'US', 'de', 'Nowhere'),
				(raw, extra, defaultCountry) => {
					const record = place(raw, extra);
					const identity = normalizeIdentity(record, {
						defaultCountry,
						clock: () => NOW,
						eventTimeMs: NOW,
					});
					const values = identity.values[field] ?? [];
					for (const value of values) {
						must(
							isCanonical(field, value, identity),
							() => `not a valid ${field}: ${JSON.stringify(value)}`,
						);
					}
					// The field's own input (not the URL or country beside it) decides the warning.
					if (holdsSomething(raw) && values.length === 0 && !silentlyOmittable(field, raw)) {
						must(
							identity.warnings.some((w) => w.startsWith(`${field}: `)),
							() => `${field} dropped without a warning`,
						);
					}
					const raws = [...rawTexts(raw), ...rawTexts(extra)];
					if (PII_FIELDS.includes(field)) {
						mustNotEchoEmailOrPhone(identity.warnings, raws, { strict: true });
					}
					mustRenderSafely(identity, raws);

					const single = SINGLE[field];
					if (single) {
						for (const platform of SINGLE_PLATFORMS[field] ?? ['meta']) {
							const value = single(raw, platform);
							must(
								value === null || isValidForPlatform(field, value, platform),
								() => `${platform} ${field}: ${JSON.stringify(value)}`,
							);
						}
					}
				},
			),
		);
	});

	test('fbc, from a stored cookie, a bare fbclid, a landing URL and a click time', () => {
		const landingUrl = fc.oneof(
			hostileString,
			fc.constantFrom('https://x.example/?fbclid=IwAR_url', 'x.example/?fbclid=a%20b'),
		);
		checkProperty(
			fc.property(
				hostileValue,
				hostileValue,
				fc.option(landingUrl, { nil: undefined }),
				hostileValue,
				hostileValue,
				(fbc, fbclid, pageUrl, clickedAt, occurredAt) => {
					const record: LeadRecord = {
						occurred_at: occurredAt,
						click: { fbc, fbclid, clicked_at: clickedAt },
						source: { page_url: pageUrl },
					};
					const identity = normalizeIdentity(record, { clock: () => NOW });
					const values = identity.values.fbc ?? [];
					must(values.length <= 1, () => `several fbc values: ${values}`);
					for (const value of values)
						must(WELL_FORMED_FBC.test(value), () => `malformed fbc ${JSON.stringify(value)}`);
					if ((holdsSomething(fbc) || holdsSomething(fbclid)) && values.length === 0) {
						must(
							identity.warnings.some((w) => w.startsWith('fbc: ')),
							() => 'fbc dropped without a warning',
						);
					}
					mustRenderSafely(
						identity,
						[fbc, fbclid, pageUrl, clickedAt].flatMap((raw) => rawTexts(raw)),
					);
				},
			),
		);
	});
});
