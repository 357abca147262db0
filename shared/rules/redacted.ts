/**
 * How the rules read a capture-log entry (a redacted record, `_redacted: true`): the preview
 * must give exactly the live filter's answer for a condition, or say that it cannot answer —
 * never a silently different one (docs/capture.md, "What the preview can answer").
 *
 * An entry keeps some fields of the lead exactly and reduces others (a page URL scrubbed of
 * personal-looking parts, an email kept as its domain, a location not kept at all). It says
 * which in `_reduced`: for every field path the log knows (LOGGED_PATHS, the declared attributes)
 * whose live value the entry does not hold exactly, `[visits, ...lengths]` — how the rules'
 * path reader would read it on the live record (nodes visited, then each value's length, at most
 * MAX_VALUE_CHARS, at most MAX_VALUES_PER_CONDITION values). No lengths: the live record has no
 * value there. From that, the rules know what a condition costs live (the budget) and whether
 * the field is present, never its content. A known path not in `_reduced` is held exactly.
 *
 * The capture log writes `_reduced` (shared/captureLog/reduced.ts); the rules read it here.
 */
import { MAX_VALUE_CHARS, MAX_VALUES_PER_CONDITION } from './budget';
import { splitPath } from '../path';

/** The paths (besides attributes) whose live value the capture log can account for. */
export const LOGGED_PATHS: readonly string[] = [
	'state',
	'occurred_at',
	'stage',
	'stage_at',
	'lead_created_at',
	'previous_stage',
	'source.kind',
	'source.form_id',
	'source.page_url',
	'source.referrer',
	'contact.email',
	'contact.phone',
	'contact.first_name',
	'contact.last_name',
	'contact.name',
	'contact.city',
	'contact.region',
	'contact.postal_code',
	'contact.country',
	'client.country',
	'client.region',
	'click.fbclid',
	'click.fbc',
	'click.fbp',
	'click.gclid',
	'click.gbraid',
	'click.wbraid',
	'click.ttclid',
	'click.ttp',
	'click.msclkid',
	'click.epik',
	'value.amount',
	'value.currency',
	'consent.ad_user_data',
	'consent.ad_personalization',
	'consent.limited_data_use',
];

/** The utm_* attributes the log keeps without their being declared. */
export const LOGGED_UTM_ATTRIBUTES: readonly string[] = [
	'utm_source',
	'utm_medium',
	'utm_campaign',
	'utm_term',
	'utm_content',
	'utm_id',
];

/** Declared attributes the log accounts for at most (the rest: cannot answer). */
export const MAX_DECLARED_ATTRIBUTES = 50;

/**
 * `_reduced` key saying the entry's `contact.email_domain` is not the set of domains the live
 * rules read from the lead's email (more distinct domains than kept, or clipped): email-domain
 * conditions cannot be answered. Has a space, so it never is a field path.
 */
export const EMAIL_DOMAINS_INEXACT = 'email domains';

/** Fields the log derives for its own use: not lead fields, a condition on them cannot be previewed. */
const LOG_OWN_FIELDS: ReadonlySet<string> = new Set([
	'contact.email_domain',
	'contact.has_email',
	'contact.has_phone',
	'contact.phone_country',
	'source.referrer_host',
]);

const PII_NOUN: ReadonlyMap<string, string> = new Map([
	['contact.email', 'raw email'],
	['contact.phone', 'raw phone number'],
	['contact.first_name', 'name'],
	['contact.last_name', 'name'],
	['contact.name', 'name'],
	['contact.postal_code', 'postal code'],
]);

/** Why a reduced field cannot be compared (the preview counts these reasons). */
export function reducedReason(path: string): string {
	const pii = PII_NOUN.get(path);
	if (pii) return `the capture log keeps no ${pii}`;
	if (path === 'source.page_url')
		return 'the page URL was scrubbed of personal-looking parts in the capture log (path segments, query values; only utm_* parameters are kept)';
	if (path === 'source.referrer') return 'the capture log keeps only the referrer\'s host';
	if (/^(contact\.(city|region|country)|client\.(country|region))$/.test(path))
		return 'the capture log keeps this location only as set in Location in Capture Log, and only as a place name or code';
	if (path.startsWith('click.')) return 'the capture log keeps only whether a click id was present';
	if (path.startsWith('value.')) return 'the capture log keeps the value only as one number and a 3-letter currency code';
	if (path.startsWith('consent.')) return 'the capture log keeps consent only as a boolean or a known consent word';
	if (/^(occurred_at|stage_at|lead_created_at)$/.test(path))
		return 'the capture log keeps times only as one date or timestamp';
	if (path.startsWith('attributes.'))
		return 'the capture log keeps an attribute only as one boolean, integer below one million or short token';
	return 'the capture log keeps this field only as one short token (no spaces, nothing personal)';
}

/** What the live record holds at a path, as far as the entry can tell. */
export type LoggedField =
	/** The entry holds the live value exactly: read the entry. */
	| { kind: 'exact' }
	/** The live shape: nodes visited and each value's length (none: missing live). */
	| { kind: 'shape'; visits: number; lengths: number[]; reason: string }
	/** The entry cannot tell (a field the log does not keep, an entry of an earlier version). */
	| { kind: 'unknown'; reason: string };

/** True for a capture-log entry (it keeps no raw email, phone or name). */
export function isRedactedRecord(record: object): boolean {
	return (record as { _redacted?: unknown })._redacted === true;
}

function reducedOf(record: object): Record<string, unknown> | null {
	const reduced = (record as { _reduced?: unknown })._reduced;
	return reduced && typeof reduced === 'object' && !Array.isArray(reduced)
		? (reduced as Record<string, unknown>)
		: null;
}

/** True when `key` is one of the entry's declared attribute keys (`_declared`). */
function isDeclared(record: object, key: string): boolean {
	const declared = (record as { _declared?: unknown })._declared;
	return Array.isArray(declared) && declared.indexOf(key) !== -1 && declared.indexOf(key) < MAX_DECLARED_ATTRIBUTES;
}

/** True when the capture log accounts for `path` on this entry (LOGGED_PATHS, utm, declared). */
const LOGGED_PATH_SET: ReadonlySet<string> = new Set(LOGGED_PATHS);

function isLoggedPath(path: string, record: object): boolean {
	if (LOGGED_PATH_SET.has(path)) return true;
	const parts = splitPath(path);
	if (parts.length !== 2 || parts[0] !== 'attributes') return false;
	return LOGGED_UTM_ATTRIBUTES.includes(parts[1]) || isDeclared(record, parts[1]);
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * What a redacted entry knows of the live record at `path` (a dotted path as the rules write
 * it, parts trimmed). Only for redacted records.
 */
export function loggedField(record: object, path: string): LoggedField {
	const reduced = reducedOf(record);
	if (!reduced) {
		return {
			kind: 'unknown',
			reason: 'this capture was logged by an earlier version, whose entries do not say which fields they reduced',
		};
	}
	const normalized = path.includes(' ') ? splitPath(path).join('.') : path;
	if (LOG_OWN_FIELDS.has(normalized)) {
		return {
			kind: 'unknown',
			reason: `${normalized} is the capture log's own summary, not a lead field (write the condition on the lead's field: contact.email, contact.phone, source.referrer…)`,
		};
	}
	if (!isLoggedPath(normalized, record)) {
		return {
			kind: 'unknown',
			reason: normalized.startsWith('attributes.')
				? 'the capture log keeps only the attributes listed in the trigger\'s Capture Log Attributes'
				: `the capture log does not keep ${normalized}`,
		};
	}
	const shape = reducedShape(record, normalized);
	if (shape === null) return { kind: 'exact' };
	if (shape === 'malformed') return { kind: 'unknown', reason: 'the capture log entry is malformed' };
	return { kind: 'shape', ...shape, reason: reducedReason(normalized) };
}

/**
 * The live shape `_reduced` gives for `path` (any path, also the log's own fields), null when it
 * gives none, 'malformed' when the entry's value is not a shape.
 */
export function reducedShape(
	record: object,
	path: string,
): { visits: number; lengths: number[] } | null | 'malformed' {
	const reduced = reducedOf(record);
	if (!reduced || !hasOwn.call(reduced, path)) return null;
	const shape = reduced[path];
	if (
		!Array.isArray(shape) ||
		shape.length === 0 ||
		shape.length > MAX_VALUES_PER_CONDITION + 1 ||
		!shape.every((n) => Number.isInteger(n) && n >= 0 && n <= MAX_VALUE_CHARS)
	) {
		return 'malformed';
	}
	return { visits: shape[0] as number, lengths: (shape as number[]).slice(1) };
}

/** True when the entry's contact.email_domain is the set of domains the live rules read. */
export function emailDomainsExact(record: object): boolean {
	const reduced = reducedOf(record);
	return reduced !== null && !hasOwn.call(reduced, EMAIL_DOMAINS_INEXACT);
}

/**
 * Why the preview cannot answer for `path` on this entry, or null when the entry gives the live
 * value (held exactly, or missing live). For the send modes' own reads (state, approval field).
 */
export function unanswerableField(record: object, path: string): string | null {
	if (!isRedactedRecord(record)) return null;
	const field = loggedField(record, path);
	if (field.kind === 'exact') return null;
	if (field.kind === 'shape' && field.lengths.length === 0) return null;
	return `${splitPath(path).join('.')}: ${field.reason}`;
}
