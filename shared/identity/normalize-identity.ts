import type { LeadRecord } from '../types';
import { normalizeCityText } from './city';
import { CLICK_ID_FIELDS, clickIdNormalizer } from './click-ids';
import { normalizeCountryText } from './country';
import { normalizeDateOfBirthText } from './date-of-birth';
import { normalizeEmailText } from './email';
import { normalizeExternalIdText } from './external-id';
import { buildFbc, readEpochMs } from './fbc';
import { normalizeFbpText } from './fbp';
import {
	memoizedText,
	normalizeFieldValues,
	normalizeStringValue,
	type FieldValues,
	type FieldValuesOptions,
	type TextNormalizer,
} from './field-values';
import { emptyFieldMap, type IdentityField } from './fields';
import { normalizeGenderText } from './gender';
import { isSha256Hex } from './hash';
import { normalizeIpText } from './ip';
import { normalizeNameText } from './name';
import { normalizePhoneText } from './phone';
import { normalizePostalCodeText } from './postal-code';
import { normalizeRegionText } from './region';
import { normalizeUserAgentText } from './user-agent';

/**
 * A lead's identity, normalized once into platform-neutral canonical forms: email lowercased
 * and validated (dots and +tags kept), phone E.164 with '+', gender f|m|n, everything else as
 * normalization.md says. Values that arrived already hashed are lowercase 64-hex and listed in
 * `hashedInput`; a canonical clear value of a hashed field is never 64-hex by construction.
 */
export interface NormalizedIdentity {
	/** Canonical values per field; every field is a key, undefined when absent (emptyFieldMap). */
	values: Partial<Record<IdentityField, string[]>>;
	/** Fields with at least one value that arrived already hashed. */
	hashedInput: Partial<Record<IdentityField, true>>;
	/** `field: reason` for every value that was dropped; no raw PII. */
	warnings: string[];
}

export interface NormalizeIdentityOptions {
	/** Country for phone numbers without an international prefix, after the lead's own. */
	defaultCountry?: string;
	/** Event time in epoch ms: the fbc creation time when the click time is unknown. */
	eventTimeMs?: number;
	/** Injectable clock (epoch ms) for tests. */
	clock?: () => number;
}

/** Values that repeat across leads: normalized once per distinct text (see memoizedText). */
const countryText = memoizedText(normalizeCountryText);
const firstNameText = memoizedText(normalizeNameText);
const cityText = memoizedText(normalizeCityText);
const genderText = memoizedText(normalizeGenderText, 256);

const MULTIPLE = { multiple: true } as const;
const SINGLE = { multiple: false } as const;

/** Normalizes every identity field of a canonical lead record. */
export function normalizeIdentity(
	record: LeadRecord,
	opts: NormalizeIdentityOptions = {},
): NormalizedIdentity {
	const clock = opts.clock ?? Date.now;
	const contact = asFields(record?.contact);
	const click = asFields(record?.click);
	const client = asFields(record?.client);
	const source = asFields(record?.source);
	const identity = new IdentityBuilder();

	// Country first: phone, region and postal code are read in its light.
	const contactCountry = normalizeFieldValues(
		'country',
		contact.country,
		countryText,
		MULTIPLE,
	);
	const visitorCountry = normalizeFieldValues('country', client.country, countryText, {
		multiple: false,
		label: 'client.country',
	});
	identity.add('country', contactCountry);
	// Meta asks to always send country. When the lead gave none (or none we could read), the
	// visitor's geo country stands in: it is the same person, seen from the request that
	// carried the lead. It is not used to interpret the address fields below, which keep to
	// the contact's own country so a travelling visitor's geo cannot misread a US state.
	if (contactCountry.values.length === 0 && visitorCountry.values.length > 0) {
		identity.add('country', { ...visitorCountry, warnings: [] });
	}
	const contactCountryCode = firstClearCountry(contactCountry);
	// The visitor country matters only when the lead has no readable country of its own.
	if (contactCountryCode === null) identity.warnings.push(...visitorCountry.warnings);
	const phoneCountry =
		contactCountryCode ?? firstClearCountry(visitorCountry) ?? readDefaultCountry(opts, identity);

	// Each field is read only when the record has it: most records carry a handful of the
	// twenty-odd fields, and this runs once per event per platform.
	identity.field('email', contact.email, normalizeEmailText, MULTIPLE);
	if (isPresent(contact.phone)) {
		identity.field(
			'phone',
			contact.phone,
			(text) => normalizePhoneText(text, { country: phoneCountry }),
			MULTIPLE,
		);
	}
	identity.field('first_name', contact.first_name, firstNameText, MULTIPLE);
	identity.field('last_name', contact.last_name, normalizeNameText, MULTIPLE);
	identity.field('city', contact.city, cityText, MULTIPLE);
	if (isPresent(contact.region)) {
		identity.field(
			'region',
			contact.region,
			(text) => normalizeRegionText(text, { country: contactCountryCode }),
			MULTIPLE,
		);
	}
	if (isPresent(contact.postal_code)) {
		identity.field(
			'postal_code',
			contact.postal_code,
			(text) => normalizePostalCodeText(text, { country: contactCountryCode }),
			MULTIPLE,
		);
	}
	identity.field('gender', contact.gender, genderText, MULTIPLE);
	if (isPresent(contact.date_of_birth)) {
		identity.field(
			'date_of_birth',
			contact.date_of_birth,
			(text) => normalizeDateOfBirthText(text, { now: clock() }),
			MULTIPLE,
		);
	}
	identity.field('external_id', contact.external_id, normalizeExternalIdText, MULTIPLE);

	identity.field('ip', client.ip, normalizeIpText, SINGLE);
	identity.field('user_agent', client.user_agent, normalizeUserAgentText, SINGLE);

	if (mayCarryFbc(click, source.page_url)) {
		const fbc = buildFbc(
			{
				fbc: click.fbc,
				fbclid: click.fbclid,
				landingUrl: source.page_url,
				clickedAt: click.clicked_at,
				// The state change time is the event time when the caller does not pass one.
				eventTime: opts.eventTimeMs ?? readEpochMs(record?.occurred_at) ?? undefined,
			},
			clock,
		);
		if (fbc.value !== null) identity.addValue('fbc', fbc.value);
		if (fbc.warning) identity.warnings.push(fbc.warning);
	}
	identity.field('fbp', click.fbp, normalizeFbpText, SINGLE);
	// A click id the record does not carry may still sit in the landing URL (a CRM that kept
	// the page URL but not the parameters): read it from there, as fbc is built from fbclid.
	// The URL is parsed at most once, and only when a click id is missing.
	let landing: URLSearchParams | null | undefined;
	for (let i = 0; i < CLICK_ID_FIELDS.length; i++) {
		const field = CLICK_ID_FIELDS[i];
		let raw = click[field];
		if (raw === undefined || raw === null) {
			if (landing === undefined) landing = landingParams(source.page_url);
			raw = landing?.get(field) ?? undefined;
		}
		identity.field(field, raw, clickIdNormalizer(field), SINGLE);
	}
	return identity.build();
}

/** Whether buildFbc could find anything: a stored fbc, an fbclid, or a landing URL with one. */
function mayCarryFbc(click: Record<string, unknown>, pageUrl: unknown): boolean {
	return (
		isPresent(click.fbc) ||
		isPresent(click.fbclid) ||
		(isPresent(pageUrl) && (typeof pageUrl !== 'string' || pageUrl.includes('fbclid=')))
	);
}

/** Whether a raw value is there at all (blank strings are read, and dropped, downstream). */
function isPresent(raw: unknown): boolean {
	return raw !== undefined && raw !== null;
}

class IdentityBuilder {
	private readonly values: Partial<Record<IdentityField, string[]>> = emptyFieldMap();
	private readonly hashedInput: Partial<Record<IdentityField, true>> = {};
	readonly warnings: string[] = [];

	add(field: IdentityField, found: FieldValues): void {
		// Index loops here and below: this runs for every field of every event, and for…of over
		// these small arrays allocates an iterator each time.
		for (let i = 0; i < found.warnings.length; i++) this.warnings.push(found.warnings[i]);
		if (found.values.length === 0) return;
		const earlier = this.values[field];
		// A non-empty FieldValues list is the builder's own to keep; it is never extended in
		// place (a second list for the same field makes a new array).
		this.values[field] = earlier === undefined ? found.values : [...earlier, ...found.values];
		if (found.hashed) this.hashedInput[field] = true;
	}

	/** Normalizes one raw field straight into the identity (see normalizeFieldValues). */
	field(field: IdentityField, raw: unknown, normalizeText: TextNormalizer, options: FieldValuesOptions): void {
		if (raw === undefined || raw === null) return;
		if (typeof raw !== 'string') {
			this.add(field, normalizeFieldValues(field, raw, normalizeText, options));
			return;
		}
		// One string, nearly every value of every lead: nothing is built on the way.
		const outcome = normalizeStringValue(field, raw, normalizeText);
		if (outcome === null) return;
		if ('omitted' in outcome) this.warnings.push(`${options.label ?? field}: ${outcome.omitted}`);
		else {
			this.addValue(field, outcome.value);
			if (outcome.hashed) this.hashedInput[field] = true;
		}
	}

	addValue(field: IdentityField, value: string): void {
		const earlier = this.values[field];
		this.values[field] = earlier === undefined ? [value] : [...earlier, value];
	}

	build(): NormalizedIdentity {
		return {
			values: this.values,
			hashedInput: this.hashedInput,
			warnings: this.warnings.length < 2 ? this.warnings : [...new Set(this.warnings)],
		};
	}
}

function firstClearCountry(found: FieldValues): string | null {
	return found.values.find((value) => !isSha256Hex(value)) ?? null;
}

function readDefaultCountry(
	opts: NormalizeIdentityOptions,
	identity: IdentityBuilder,
): string | null {
	if (opts.defaultCountry === undefined || opts.defaultCountry.trim() === '') return null;
	const outcome = countryText(opts.defaultCountry.normalize('NFC').trim());
	if (outcome !== null && 'value' in outcome) return outcome.value;
	identity.warnings.push('phone: the default country is not a recognised country');
	return null;
}

/**
 * Could a query string hold a click id? Any of their names, or an escape that might spell one:
 * anything else needs no URL parsing.
 */
const MAY_HOLD_CLICK_ID = /gclid|gbraid|wbraid|ttclid|ttp|msclkid|epik|[%+]/;

/** The query parameters of a landing-page URL, or null when it is not a URL. */
function landingParams(raw: unknown): URLSearchParams | null {
	if (typeof raw !== 'string' || !/^https?:\/\//i.test(raw.trim())) return null;
	const query = raw.indexOf('?');
	if (query === -1 || !MAY_HOLD_CLICK_ID.test(raw.slice(query))) return null;
	try {
		return new URL(raw.trim()).searchParams;
	} catch {
		return null;
	}
}

/** The record's sub-objects arrive from webhooks and expressions; anything else reads as empty. */
function asFields(section: unknown): Record<string, unknown> {
	return typeof section === 'object' && section !== null && !Array.isArray(section)
		? (section as Record<string, unknown>)
		: {};
}
