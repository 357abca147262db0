import { LEAD_STATES } from '../types';
import { putFirst, type CaptureDraft } from './draft';
import { normalizeKey, readScalar, readText, readValue } from './values';

/**
 * Field detection: which lead record field a body key, form field name, hidden field or question
 * label stands for. Keys are compared with case, accents and separators ignored
 * (`E-Mail`, `email_address` and `Email Address` all match `email_address`).
 */
export type DetectionTarget =
	| { section: 'contact'; field: string }
	| { section: 'click'; field: string }
	| { section: 'client'; field: string }
	| { section: 'source'; field: string }
	| { section: 'consent'; field: string }
	| { section: 'attributes'; field: string }
	/** A full name: split into first/last when neither is given. */
	| { section: 'name' }
	/** A landing page URL: read for click ids and utm_*, and the page URL when none is given. */
	| { section: 'landing' }
	| { section: 'occurred_at' };

export interface DetectionRule {
	target: DetectionTarget;
	/** Spelled as users write them; matched through normalizeKey. */
	aliases: readonly string[];
}

const contact = (field: string): DetectionTarget => ({ section: 'contact', field });
const click = (field: string): DetectionTarget => ({ section: 'click', field });

/** The detection table (the README's key list). First rule listing a key wins. */
export const DETECTION_RULES: readonly DetectionRule[] = [
	{ target: contact('email'), aliases: ['email', 'e-mail', 'email_address', 'mail'] },
	{
		target: contact('phone'),
		aliases: [
			'phone',
			'phone_number',
			'tel',
			'telephone',
			'mobile',
			'mobile_phone',
			'mobile_number',
			'cell',
			'cell_phone',
		],
	},
	{ target: contact('first_name'), aliases: ['first_name', 'firstname', 'fname', 'given_name'] },
	{
		target: contact('last_name'),
		aliases: ['last_name', 'lastname', 'lname', 'surname', 'family_name'],
	},
	{ target: { section: 'name' }, aliases: ['name', 'full_name', 'fullname', 'your_name'] },
	{ target: { section: 'attributes', field: 'company' }, aliases: ['company', 'company_name'] },
	{ target: contact('city'), aliases: ['city', 'town'] },
	{ target: contact('region'), aliases: ['state', 'region', 'province'] },
	{
		target: contact('postal_code'),
		aliases: ['zip', 'zip_code', 'zipcode', 'postal_code', 'postcode'],
	},
	{ target: contact('country'), aliases: ['country', 'country_code'] },
	{ target: contact('gender'), aliases: ['gender', 'sex'] },
	{
		target: contact('date_of_birth'),
		aliases: ['date_of_birth', 'dob', 'birth_date', 'birthdate', 'birthday'],
	},
	{ target: contact('external_id'), aliases: ['external_id'] },
	{ target: click('fbclid'), aliases: ['fbclid'] },
	{ target: click('fbc'), aliases: ['fbc', '_fbc'] },
	{ target: click('fbp'), aliases: ['fbp', '_fbp'] },
	{ target: click('gclid'), aliases: ['gclid'] },
	{ target: click('gbraid'), aliases: ['gbraid'] },
	{ target: click('wbraid'), aliases: ['wbraid'] },
	{ target: click('ttclid'), aliases: ['ttclid'] },
	{ target: click('ttp'), aliases: ['ttp', '_ttp'] },
	{ target: click('msclkid'), aliases: ['msclkid', '_uetmsclkid'] },
	{ target: click('epik'), aliases: ['epik', '_epik'] },
	{
		target: { section: 'client', field: 'ip' },
		aliases: ['ip', 'ip_address', 'client_ip', 'remote_ip'],
	},
	{ target: { section: 'client', field: 'user_agent' }, aliases: ['user_agent', 'useragent'] },
	{
		target: { section: 'source', field: 'page_url' },
		aliases: ['page_url', 'url', 'page_location'],
	},
	{ target: { section: 'landing' }, aliases: ['landing_page', 'landing_page_url', 'landing_url'] },
	{
		target: { section: 'source', field: 'referrer' },
		aliases: ['referrer', 'referer', 'referrer_url'],
	},
	{ target: { section: 'source', field: 'form_id' }, aliases: ['form_id'] },
	{ target: { section: 'consent', field: 'ad_user_data' }, aliases: ['ad_user_data'] },
	{ target: { section: 'consent', field: 'ad_personalization' }, aliases: ['ad_personalization'] },
	{ target: { section: 'consent', field: 'limited_data_use' }, aliases: ['limited_data_use'] },
	{ target: { section: 'occurred_at' }, aliases: ['occurred_at', 'submitted_at'] },
];

const RULE_BY_KEY: ReadonlyMap<string, DetectionTarget> = buildRuleIndex();

function buildRuleIndex(): Map<string, DetectionTarget> {
	const index = new Map<string, DetectionTarget>();
	for (const rule of DETECTION_RULES) {
		for (const alias of rule.aliases) {
			const key = normalizeKey(alias);
			if (!index.has(key)) index.set(key, rule.target);
		}
	}
	return index;
}

/**
 * Question labels ("What is your first name?") say less exactly what they hold, so only name
 * questions are read from phrases; email and phone come from typed inputs or exact labels.
 */
const QUESTION_PHRASES: ReadonlyArray<[RegExp, DetectionTarget]> = [
	[/\bfirst[\s-]?name\b/i, contact('first_name')],
	[/\b(?:last[\s-]?name|surname|family[\s-]?name)\b/i, contact('last_name')],
	[/\b(?:full[\s-]?name|your[\s-]?name)\b/i, { section: 'name' }],
];

/**
 * Keys never copied into attributes: credentials, card data, government ids and anti-abuse
 * tokens have no place in a lead record or the capture log.
 */
const SENSITIVE_KEY_PARTS = [
	'password',
	'passwd',
	'card',
	'cvv',
	'cvc',
	'ssn',
	'socialsecurity',
	'iban',
	'secret',
	'token',
	'captcha',
	'csrf',
	'apikey',
	'authorization',
];

export function isSensitiveKey(key: string): boolean {
	const normalized = normalizeKey(key);
	return (
		normalized === 'pin' ||
		normalized === 'pwd' ||
		SENSITIVE_KEY_PARTS.some((part) => normalized.includes(part))
	);
}

/** The attribute name of a utm parameter (`utmSource`, `utm-source` → `utm_source`), or null. */
export function utmAttributeKey(key: string): string | null {
	// Without a separator only the standard names count, so `utmost` stays an ordinary key.
	const match =
		/^utm[\s_-]+([a-z0-9][a-z0-9_]*)$/i.exec(key.trim()) ??
		/^utm(source|medium|campaign|term|content|id)$/i.exec(key.trim());
	return match ? `utm_${match[1].toLowerCase()}` : null;
}

/** The detection target of an exact key (not a phrase), or null. */
export function detectKey(key: string): DetectionTarget | null {
	return RULE_BY_KEY.get(normalizeKey(key)) ?? null;
}

/** One value as a source presents it. */
export interface FieldEntry {
	/** Name, hidden field name, ref or body key: matched exactly. */
	key: string;
	value: unknown;
	/** The source knows what this is (a typed email or phone input). */
	hint?: DetectionTarget;
	/** A human label (question text), tried after `key`: exact match, then name phrases. */
	label?: string;
	/** Where an unmatched value goes in attributes; default `key`. */
	attributeKey?: string;
	/** The object holding the key in a nested body (`utm` in `{ utm: { source } }`). */
	parentKey?: string;
}

export interface ApplyOptions {
	/** Whether unmatched values go to attributes. */
	attributes: boolean;
}

/**
 * Puts every entry where it belongs in the draft: typed (hinted) entries first, so a typed email
 * input beats a loosely labelled one; then in the given order. The first value per field wins.
 */
export function applyEntries(
	draft: CaptureDraft,
	entries: FieldEntry[],
	options: ApplyOptions,
): void {
	const ordered = [
		...entries.filter((entry) => entry.hint),
		...entries.filter((entry) => !entry.hint),
	];
	for (const entry of ordered) applyEntry(draft, entry, options);
}

function applyEntry(draft: CaptureDraft, entry: FieldEntry, options: ApplyOptions): void {
	// A typed email or phone input is what it says, whatever its label; anything else named like a
	// credential or card field is dropped before detection and attributes.
	const sensitive =
		isSensitiveKey(entry.key) || (entry.label !== undefined && isSensitiveKey(entry.label));
	if (sensitive && entry.hint === undefined) return;
	const utmKey = utmAttributeKey(entry.key) ?? utmUnderParent(entry);
	if (utmKey !== null) {
		putFirst(draft, 'attributes', utmKey, readText(entry.value));
		return;
	}
	const target = entry.hint ?? targetOf(entry);
	if (target !== null && placeDetected(draft, target, entry.value)) return;
	if (!options.attributes) return;
	const attributeKey = (entry.attributeKey ?? entry.key).trim();
	if (attributeKey !== '') putFirst(draft, 'attributes', attributeKey, readValue(entry.value));
}

/** `{ utm: { source: 'x' } }` reads as utm_source. */
function utmUnderParent(entry: FieldEntry): string | null {
	if (entry.parentKey === undefined || normalizeKey(entry.parentKey) !== 'utm') return null;
	return utmAttributeKey(`utm_${entry.key}`);
}

function targetOf(entry: FieldEntry): DetectionTarget | null {
	const byKey = detectKey(entry.key);
	if (byKey !== null) return byKey;
	if (entry.label === undefined) return null;
	const byLabel = detectKey(entry.label);
	if (byLabel !== null) return byLabel;
	for (const [phrase, target] of QUESTION_PHRASES) if (phrase.test(entry.label)) return target;
	return null;
}

/**
 * Places a detected value. Returns false when the value does not fit the field (then it may go
 * to attributes): `state: "lead"` is a lead state, not a region.
 */
function placeDetected(draft: CaptureDraft, target: DetectionTarget, raw: unknown): boolean {
	switch (target.section) {
		case 'name': {
			const name = readText(raw);
			if (name === undefined) return false;
			draft.fullName ??= name;
			return true;
		}
		case 'occurred_at': {
			const time = readScalar(raw);
			if (time === undefined) return false;
			draft.occurredAt ??= time;
			return true;
		}
		case 'landing': {
			const url = readText(Array.isArray(raw) ? raw[0] : raw);
			if (url === undefined) return false;
			draft.landingUrl ??= url;
			draft.urls.push(url);
			return true;
		}
		case 'contact':
		case 'attributes': {
			const value = readValue(raw);
			if (value === undefined) return false;
			if (target.field === 'region' && isLeadStateWord(value)) return false;
			putFirst(draft, target.section, target.field, value);
			return true;
		}
		case 'consent': {
			const signal = readScalar(raw);
			if (signal === undefined) return false;
			putFirst(draft, 'consent', target.field, signal);
			return true;
		}
		default: {
			// Click ids, client and source fields are single tokens or URLs.
			const text = readText(Array.isArray(raw) ? raw[0] : raw);
			if (text === undefined) return false;
			putFirst(draft, target.section, target.field, text);
			if (target.section === 'source' && target.field === 'page_url') draft.urls.push(text);
			return true;
		}
	}
}

function isLeadStateWord(value: unknown): boolean {
	return (
		typeof value === 'string' && (LEAD_STATES as readonly string[]).includes(value.toLowerCase())
	);
}
