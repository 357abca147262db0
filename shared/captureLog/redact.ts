import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { normalizeCountry, normalizePhoneText, normalizeRegion } from '../identity';
import type { LeadRecord } from '../types';
import { MAX_ATTRIBUTES, MAX_KEY_CHARS } from './bounds';

/**
 * What the capture log keeps of a lead: what rules need, no raw email, phone or name.
 * Rules read it with the same field paths as a full record (contact.email_domain stands in for
 * contact.email in "email domain in" / "is work email"; contact.has_phone for "exists" on
 * contact.phone). `_redacted: true` tells the rule engine that PII fields are absent on purpose.
 */
export interface RedactedRecord {
	_redacted: true;
	state?: string;
	occurred_at?: string;
	source?: { kind?: string; form_id?: string; page_url?: string; referrer_host?: string };
	contact?: {
		email_domain?: string;
		has_phone?: boolean;
		phone_country?: string;
		city?: string;
		region?: string;
		country?: string;
	};
	client?: { country?: string; region?: string };
	/** Which click ids were present (true), never their values. */
	click?: Record<string, true>;
	value?: { amount?: number; currency?: string };
	consent?: Record<string, unknown>;
	attributes?: Record<string, string | number | boolean>;
}

const EMAIL_IN_TEXT = /[^\s@]+@[^\s@]+\.[^\s@]+/;
const DIGIT_RUN = /\d[\d\s().-]{5,}\d/;
const SENSITIVE_KEY = /(^|_)(e-?mail|phone|tel|mobile|name|first|last|surname|address|street|password|card|cvv|ssn|dob|birth|message|comment|notes?)($|_)/i;
const MAX_ATTRIBUTE_LENGTH = 200;
/**
 * How much of a value the email and digit patterns read: what is kept plus the longest address
 * that could start in it. On a whole value of a 256 KiB body they backtrack quadratically (an
 * `a…@b…` of 120 KB took 7 s), and the trigger redacts before it answers.
 */
const SCAN_LENGTH = MAX_ATTRIBUTE_LENGTH + 256;
/** Longest domain name (RFC 1035). */
const MAX_DOMAIN_LENGTH = 253;
const CLICK_KEYS = ['fbclid', 'fbc', 'fbp', 'gclid', 'gbraid', 'wbraid', 'ttclid', 'ttp', 'msclkid', 'epik'];

function text(raw: unknown): string | undefined {
	if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
	if (typeof raw !== 'string') return undefined;
	const t = raw.trim();
	return t === '' ? undefined : t;
}

function first(raw: unknown): unknown {
	return Array.isArray(raw) ? raw.find((v) => text(v) !== undefined) : raw;
}

function emailDomainOf(raw: unknown): string | undefined {
	const email = text(first(raw));
	if (!email) return undefined;
	const at = email.lastIndexOf('@');
	const domain = at > 0 ? email.slice(at + 1).toLowerCase() : '';
	if (domain.length > MAX_DOMAIN_LENGTH) return undefined;
	return /^[^\s@]+\.[^\s@]+$/.test(domain) ? domain : undefined;
}

/** Origin + path, plus utm_* parameters: a query string may carry an email or a token. */
function safePageUrl(raw: unknown): string | undefined {
	const value = text(raw);
	if (!value) return undefined;
	try {
		const url = new URL(value);
		const kept = new URLSearchParams();
		for (const [k, v] of url.searchParams) {
			const value = /^utm_/i.test(k) ? keptText(v, { digits: false }) : undefined;
			if (value !== undefined) kept.set(k, value);
		}
		const query = kept.toString();
		return `${url.origin}${url.pathname}${query ? `?${query}` : ''}`;
	} catch {
		return undefined;
	}
}

function hostOf(raw: unknown): string | undefined {
	const value = text(raw);
	if (!value) return undefined;
	try {
		return new URL(value).host;
	} catch {
		return undefined;
	}
}

/**
 * The words (3+ letters, lowercase) of the lead's own name and of its email's local part: an
 * attribute holding one of them is most likely the lead's name under a key detection did not
 * know (`Nachname`, a form field's opaque id), and is not kept.
 */
function identityWords(contact: Record<string, unknown>): Set<string> {
	const words = new Set<string>();
	const add = (raw: unknown) => {
		for (const value of Array.isArray(raw) ? raw : [raw]) {
			const t = text(value);
			if (t) for (const word of t.toLowerCase().split(/[^\p{L}]+/u)) if (word.length >= 3) words.add(word);
		}
	};
	add(contact.first_name);
	add(contact.last_name);
	const emails = Array.isArray(contact.email) ? contact.email : [contact.email];
	add(emails.map((email) => text(email)?.split('@')[0]));
	return words;
}

function holdsIdentityWord(value: string, words: ReadonlySet<string>): boolean {
	return words.size > 0 && value.toLowerCase().split(/[^\p{L}]+/u).some((word) => words.has(word));
}

function safeAttributes(raw: unknown, words: ReadonlySet<string>): RedactedRecord['attributes'] {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
	const out: Record<string, string | number | boolean> = {};
	let kept = 0;
	for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
		// The log keeps MAX_ATTRIBUTES (boundEntry); one more tells it some were dropped.
		if (kept > MAX_ATTRIBUTES) break;
		if (key.length > MAX_KEY_CHARS || SENSITIVE_KEY.test(key)) continue;
		if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
			out[key] = value;
			kept++;
		} else if (typeof value === 'string') {
			const v = keptText(value.trim(), { digits: true });
			if (v !== undefined && v !== '' && !holdsIdentityWord(v, words)) {
				out[key] = v;
				kept++;
			}
		}
	}
	return Object.keys(out).length ? out : undefined;
}

/**
 * The part of `text` the log keeps (MAX_ATTRIBUTE_LENGTH characters), or undefined when it may
 * hold an email address (or, with `digits`, a phone-like run of digits).
 */
function keptText(text: string, options: { digits: boolean }): string | undefined {
	const scanned = text.slice(0, SCAN_LENGTH);
	// The email pattern backtracks over every start position: only where an @ could make it match.
	if ((scanned.includes('@') && EMAIL_IN_TEXT.test(scanned)) || (options.digits && DIGIT_RUN.test(scanned))) {
		return undefined;
	}
	return text.slice(0, MAX_ATTRIBUTE_LENGTH);
}

function compact<T extends object>(obj: T): T | undefined {
	const entries = Object.entries(obj).filter(([, v]) => v !== undefined);
	return entries.length ? (Object.fromEntries(entries) as T) : undefined;
}

export function redactForLog(record: LeadRecord, options: { defaultCountry?: string } = {}): RedactedRecord {
	const contact = record.contact ?? {};
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
	const amount = Number(record.value?.amount);
	const redacted: RedactedRecord = {
		_redacted: true,
		state: text(record.state),
		occurred_at: text(record.occurred_at),
		source: compact({
			kind: text(record.source?.kind),
			form_id: text(record.source?.form_id),
			page_url: safePageUrl(record.source?.page_url),
			referrer_host: hostOf(record.source?.referrer),
		}),
		contact: compact({
			email_domain: emailDomainOf(contact.email),
			has_phone: phoneRaw ? true : undefined,
			phone_country: phone ? phoneCountry(phone) : undefined,
			city: text(first(contact.city)),
			region: normalizeRegion(first(contact.region), { country }) ?? undefined,
			country,
		}),
		client: compact({
			country: normalizeCountry(record.client?.country) ?? undefined,
			region: text(record.client?.region),
		}),
		click: Object.keys(clicks).length ? clicks : undefined,
		value: compact({
			amount: record.value?.amount !== undefined && Number.isFinite(amount) ? amount : undefined,
			currency: text(record.value?.currency),
		}),
		consent:
			record.consent && typeof record.consent === 'object'
				? compact({ ...record.consent } as Record<string, unknown>)
				: undefined,
		attributes: safeAttributes(record.attributes, identityWords(contact as Record<string, unknown>)),
	};
	return compact(redacted) as RedactedRecord;
}

/** ISO country of an E.164 number (the country libphonenumber attributes it to). */
function phoneCountry(e164: string): string | undefined {
	const country = parsePhoneNumberFromString(e164)?.country;
	return country ? country.toLowerCase() : undefined;
}
