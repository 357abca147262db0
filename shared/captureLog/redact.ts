import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { normalizeCountry, normalizePhoneText, normalizeRegion, readEmailText } from '../identity';
import { emailOrBareDomain } from '../identity/email-domains';
import { MAX_VALUES_PER_CONDITION } from '../rules/budget';
import { readBounded, readValues } from '../path';
import type { LeadRecord } from '../types';
import { MAX_ATTRIBUTES, MAX_KEY_CHARS } from './limits';
import { isToken, looksPersonal, scrubPath, wordsOf } from './scrub';
import { reducedShapes } from './reduced';
import { keepSections } from './sections';
import { MAX_DECLARED_ATTRIBUTES } from '../rules/redacted';
import { DEFAULT_LOG_LOCATION, type LogLocation, type RedactedRecord, type RedactOptions } from './types';


const MAX_ATTRIBUTE_LENGTH = 200;
/** Longest email text read for its domain (the rules' own limit). */
const MAX_EMAIL_CHARS = 320;
/** Distinct email domains kept (a record may list several addresses). */
const MAX_EMAIL_DOMAINS = 5;
/**
 * Keys never kept, declared or not: free text and identity under any name (`project_details`,
 * `message`, `notes`, `referred_by`, `contact_person`, `msg_body`, `full_name`, …).
 */
const FREE_TEXT_KEY =
	/(^|_)(e-?mail|phone|tel|mobile|name|first|last|surname|address|street|password|card|cvv|ssn|dob|birth|message|msg|comments?|notes?|details?|description|body|text|person|referr?ed|referral|about|bio|question|answer|feedback|remarks?)($|_)/i;
const CLICK_KEYS = ['fbclid', 'fbc', 'fbp', 'gclid', 'gbraid', 'wbraid', 'ttclid', 'ttp', 'msclkid', 'epik'];
/** The standard utm_* attributes, kept (when not personal) without being declared. */
const UTM_KEYS: ReadonlySet<string> = new Set(['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'utm_id']);
const CONSENT_VALUES: ReadonlySet<string> = new Set(['granted', 'denied', 'true', 'false', 'yes', 'no', '1', '0', 'unspecified', 'unknown']);
const CONSENT_KEYS = ['ad_user_data', 'ad_personalization', 'limited_data_use'];

const NO_WORDS: ReadonlySet<string> = new Set();

function text(raw: unknown): string | undefined {
	if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
	if (typeof raw !== 'string') return undefined;
	const t = raw.trim();
	return t === '' ? undefined : t;
}

function first(raw: unknown): unknown {
	return Array.isArray(raw) ? raw.find((v) => text(v) !== undefined) : raw;
}

/** A token value (isToken) of the field, or undefined. */
function token(raw: unknown, identity: ReadonlySet<string>): string | undefined {
	const t = text(first(raw));
	return t !== undefined && isToken(t, identity) ? t : undefined;
}

/** A place name (city, region): short, letters and spaces, nothing personal. */
function placeName(raw: unknown, identity: ReadonlySet<string>): string | undefined {
	const t = text(first(raw));
	if (t === undefined || t.length > 64 || !/^[\p{L}\p{M}][\p{L}\p{M}\s.'-]*$/u.test(t)) return undefined;
	return looksPersonal(t, identity) ? undefined : t;
}

/**
 * The email domains of contact.email as the rules read them (emailOrBareDomain, the one reader;
 * every element of a list), at most MAX_EMAIL_DOMAINS: one as a string, several as a list.
 */
function emailDomains(raw: unknown): string | string[] | undefined {
	const domains: string[] = [];
	for (const value of readBounded(raw, [], MAX_VALUES_PER_CONDITION).values) {
		if (typeof value === 'string' && value.length > MAX_EMAIL_CHARS) continue;
		const domain = emailOrBareDomain(value);
		if (domain !== null && !domains.includes(domain)) domains.push(domain);
		if (domains.length === MAX_EMAIL_DOMAINS) break;
	}
	return domains.length > 1 ? domains : domains[0];
}

/**
 * Origin + path + utm_* parameters, each scrubbed: path segments that may name a person become
 * `_` (scrubPath), utm values that look personal are left out, every other parameter is dropped.
 */
function safePageUrl(raw: unknown, identity: ReadonlySet<string>): string | undefined {
	const value = text(raw);
	if (!value) return undefined;
	try {
		const url = new URL(value);
		if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
		const kept = new URLSearchParams();
		for (const [k, v] of url.searchParams) {
			const utm = utmValue(k, v, identity);
			if (utm !== undefined) kept.set(k.toLowerCase(), utm);
		}
		const query = kept.toString();
		return `${url.protocol}//${url.hostname}${url.port ? `:${url.port}` : ''}${scrubPath(url.pathname, identity)}${query ? `?${query}` : ''}`;
	} catch {
		return undefined;
	}
}

/** A utm_* value the log may keep: short, not personal (looksPersonal); undefined otherwise. */
function utmValue(key: string, value: string, identity: ReadonlySet<string>): string | undefined {
	if (!/^utm_[a-z0-9_]{1,40}$/i.test(key)) return undefined;
	const t = value.trim();
	if (t === '' || t.length > MAX_ATTRIBUTE_LENGTH || looksPersonal(t, identity)) return undefined;
	return t;
}

function hostOf(raw: unknown, identity: ReadonlySet<string>): string | undefined {
	const value = text(raw);
	if (!value) return undefined;
	try {
		const host = new URL(value).hostname;
		return host && !looksPersonal(host, identity) ? host : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The words (3+ letters, lowercase) of the lead's own name and of its email's local part: a
 * value holding one of them is most likely the lead's name (a slug, a UTM term), and is not kept.
 */
function identityWords(contact: Record<string, unknown>): Set<string> {
	const words = new Set<string>();
	for (const field of ['first_name', 'last_name', 'name']) {
		for (const value of readValues(contact, [field])) if (typeof value === 'string') wordsOf(value).forEach((w) => words.add(w));
	}
	for (const value of readValues(contact, ['email'])) {
		if (typeof value !== 'string') continue;
		const address = readEmailText(value.slice(0, MAX_EMAIL_CHARS));
		wordsOf(address.slice(0, Math.max(0, address.lastIndexOf('@')))).forEach((w) => words.add(w));
	}
	return words;
}

/**
 * The attributes the log keeps: declared ones (`declared`, the trigger's Capture Log Attributes)
 * and the six standard utm_* ones, under a key that is not free text (FREE_TEXT_KEY), whose value is a boolean, an
 * integer of at most 6 digits, or a token (isToken: enum-like, no spaces, nothing personal).
 * Everything else — free text above all — is never stored.
 */
function safeAttributes(
	raw: unknown,
	declared: ReadonlySet<string>,
	identity: ReadonlySet<string>,
): RedactedRecord['attributes'] {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
	const out: Record<string, string | number | boolean> = {};
	let kept = 0;
	for (const key of Object.keys(raw)) {
		// The log keeps MAX_ATTRIBUTES (boundEntry); one more tells it some were dropped.
		if (kept > MAX_ATTRIBUTES) break;
		if (key.length > MAX_KEY_CHARS || FREE_TEXT_KEY.test(key)) continue;
		const isUtm = UTM_KEYS.has(key);
		if (!isUtm && !declared.has(key)) continue;
		const value = readValues(raw, [key])[0];
		let kept_: string | number | boolean | undefined;
		if (typeof value === 'boolean') kept_ = value;
		else if (typeof value === 'number') kept_ = Number.isInteger(value) && Math.abs(value) < 1e6 ? value : undefined;
		else if (typeof value === 'string') {
			kept_ = isUtm ? utmValue(key, value, identity) : token(value, identity);
		}
		if (kept_ !== undefined) {
			out[key] = kept_;
			kept++;
		}
	}
	return Object.keys(out).length ? out : undefined;
}

function compact<T extends object>(obj: T): T | undefined {
	const entries = Object.entries(obj).filter(([, v]) => v !== undefined);
	return entries.length ? (Object.fromEntries(entries) as T) : undefined;
}

/** Consent signals under their known keys: booleans, or one of CONSENT_VALUES. */
function safeConsent(raw: unknown): Record<string, unknown> | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const out: Record<string, unknown> = {};
	for (const key of CONSENT_KEYS) {
		const value = readValues(raw, [key])[0];
		if (typeof value === 'boolean') out[key] = value;
		else if (typeof value === 'string' && CONSENT_VALUES.has(value.trim().toLowerCase())) out[key] = value.trim();
	}
	return compact(out);
}

const LOCATION_LEVEL: Record<LogLocation, number> = { none: 0, country: 1, region: 2, city: 3 };


/**
 * The entry the capture log keeps of a lead (the allow-list, docs/capture.md), with `_reduced`
 * saying which of the fields the rules can ask about it does not hold exactly (reduced.ts).
 */
export function redactForLog(record: LeadRecord, options: RedactOptions = {}): RedactedRecord {
	const redacted = allowListed(record, options);
	const declared = declaredKeys(options);
	return { ...redacted, ...(declared.length ? { _declared: declared } : {}), _reduced: reducedShapes(record, redacted, declared) };
}

/** The declared attribute keys the log accounts for (at most MAX_DECLARED_ATTRIBUTES, distinct). */
export function declaredKeys(options: RedactOptions): string[] {
	const keys = (options.attributes ?? []).map((k) => k.trim()).filter((k) => k !== '' && k.length <= MAX_KEY_CHARS);
	return [...new Set(keys)].slice(0, MAX_DECLARED_ATTRIBUTES);
}

function allowListed(record: LeadRecord, options: RedactOptions): RedactedRecord {
	const contact = record.contact ?? {};
	const identity = identityWords(contact as Record<string, unknown>);
	const level = LOCATION_LEVEL[options.location ?? DEFAULT_LOG_LOCATION] ?? LOCATION_LEVEL[DEFAULT_LOG_LOCATION];
	const country = normalizeCountry(first(contact.country)) ?? undefined;
	const phoneRaw = text(first(contact.phone));
	const phoneOutcome = phoneRaw
		? normalizePhoneText(phoneRaw, {
				country: country ?? normalizeCountry(record.client?.country) ?? options.defaultCountry,
			})
		: null;
	const phone = phoneOutcome && 'value' in phoneOutcome ? phoneOutcome.value : null;
	const clicks: Record<string, true> = {};
	for (const key of CLICK_KEYS) {
		if (text(first((record.click as Record<string, unknown> | undefined)?.[key]))) clicks[key] = true;
	}
	const redacted: RedactedRecord = {
		_redacted: true,
		// Fixed vocabularies: tokens, not read for the lead's own name words (a lead@… address
		// must not hide the state "lead").
		state: token(record.state, NO_WORDS),
		occurred_at: occurredAt(record.occurred_at),
		stage: token(record.stage, identity),
		stage_at: occurredAt(record.stage_at),
		lead_created_at: occurredAt(record.lead_created_at),
		previous_stage: token(record.previous_stage, identity),
		source: compact({
			kind: token(record.source?.kind, NO_WORDS),
			form_id: token(record.source?.form_id, identity),
			page_url: safePageUrl(record.source?.page_url, identity),
			referrer_host: hostOf(record.source?.referrer, identity),
		}),
		contact: compact({
			email_domain: emailDomains(contact.email),
			has_email: readValues(contact, ['email']).length > 0 ? true : undefined,
			has_phone: readValues(contact, ['phone']).length > 0 ? true : undefined,
			phone_country: phone && level >= 1 ? phoneCountry(phone) : undefined,
			city: level >= 3 ? placeName(contact.city, identity) : undefined,
			region: level >= 2 ? regionName(contact.region, country, identity) : undefined,
			country: level >= 1 ? countryName(contact.country) : undefined,
		}),
		client: compact({
			country: level >= 1 ? countryName(record.client?.country) : undefined,
			region: level >= 2 ? placeName(record.client?.region, identity) : undefined,
		}),
		click: Object.keys(clicks).length ? clicks : undefined,
		value: compact({
			amount: amountOf(record.value?.amount),
			currency: currencyCode(record.value?.currency),
		}),
		consent: safeConsent(record.consent),
		attributes: safeAttributes(record.attributes, new Set(options.attributes ?? []), identity),
	};
	keepSections(redacted, record);
	return compact(redacted) as RedactedRecord;
}



/** A country as written (`US`, `Germany`) when it is a recognised country name or code. */
function countryName(raw: unknown): string | undefined {
	const t = text(raw);
	return t !== undefined && t.length <= 64 && normalizeCountry(t) !== null ? (raw as string) : undefined;
}

/** A region as written when it is a place name or a recognised region code of the country. */
function regionName(raw: unknown, country: string | undefined, identity: ReadonlySet<string>): string | undefined {
	const place = placeName(raw, identity);
	if (place !== undefined) return place;
	const t = text(raw);
	return t !== undefined && t.length <= 16 && /^[A-Za-z0-9-]+$/.test(t) && normalizeRegion(t, { country }) !== null && !looksPersonal(t, identity)
		? t
		: undefined;
}

/** The value's amount: a finite number as is; a short amount text (`1,200.50`) without a phone-like digit run. */
function amountOf(raw: unknown): number | string | undefined {
	if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
	if (typeof raw !== 'string' || raw.length > 20 || !/^[\d\s.,'$€£+-]+$/.test(raw) || !/\d/.test(raw)) return undefined;
	return looksPersonal(raw) ? undefined : raw;
}

/** A three-letter currency code, or undefined. */
function currencyCode(raw: unknown): string | undefined {
	const t = text(first(raw));
	return t !== undefined && /^[A-Za-z]{3}$/.test(t) ? t : undefined;
}

/**
 * A time when it reads as a date or timestamp (a finite number, or digits, `-:.TZ+` and
 * spaces), as written; else undefined.
 */
function occurredAt(raw: unknown): string | number | undefined {
	if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
	const t = text(raw);
	return t !== undefined && t.length <= 40 && /^[0-9TZ:.+\- ]+$/i.test(t) ? t : undefined;
}

/** ISO country of an E.164 number (the country libphonenumber attributes it to). */
function phoneCountry(e164: string): string | undefined {
	const country = parsePhoneNumberFromString(e164)?.country;
	return country ? country.toLowerCase() : undefined;
}
