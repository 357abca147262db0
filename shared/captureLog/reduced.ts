import { emailOrBareDomain } from '../identity/email-domains';
import { MAX_VALUE_CHARS, MAX_VALUES_PER_CONDITION } from '../rules/budget';
import { readBounded, splitPath, type ReadResult } from '../path';
import { EMAIL_DOMAINS_INEXACT, LOGGED_PATHS, LOGGED_UTM_ATTRIBUTES } from '../rules/redacted';
import { textHead } from '../rules/text';

/** Longest text the rules read as an email address (conditions.ts). */
const MAX_EMAIL_CHARS = 320;

/**
 * `_reduced` of a capture-log entry (shared/rules/redacted.ts): for every path the log accounts
 * for (LOGGED_PATHS, the utm_* attributes, the declared attributes) that the rules' path reader
 * reads differently on the entry than on the live record — another value, fewer values, a value
 * not kept, another number of nodes visited — the live shape `[visits, ...lengths]`: what the
 * rules need to give the live answer of a missing field and of exists / not_exists, and the live
 * cost of any condition, without the value. A path read alike on both is not listed.
 *
 * The comparison is made with the rules' own reader (readBounded), so whatever the allow-list
 * does — scrubbing, clipping, keeping the first of several values, dropping a section for the
 * byte cap — the entry never claims to hold a value it does not.
 */
export function reducedShapes(record: object, entry: object, declared: readonly string[]): Record<string, number[]> {
	const out: Record<string, number[]> = {};
	const paths = new Set([
		...LOGGED_PATHS,
		...LOGGED_UTM_ATTRIBUTES.map((key) => `attributes.${key}`),
		...declared.map((key) => `attributes.${key}`),
	]);
	for (const path of paths) {
		const parts = partsOf(path);
		const live = readBounded(record, parts, MAX_VALUES_PER_CONDITION);
		if (!sameRead(live, readBounded(entry, parts, MAX_VALUES_PER_CONDITION))) out[path] = shapeOf(live);
	}
	const email = readBounded(record, ['contact', 'email'], MAX_VALUES_PER_CONDITION);
	if (email.values.length > 0) {
		// Email-domain conditions read the address live, the kept domains on the entry.
		const live = new Set(
			email.values
				.map((v) => (textHead(v, MAX_VALUE_CHARS).length > MAX_EMAIL_CHARS ? null : emailOrBareDomain(v)))
				.filter((d): d is string => d !== null),
		);
		const kept = readBounded(entry, ['contact', 'email_domain'], MAX_VALUES_PER_CONDITION).values;
		const same = kept.length === live.size && kept.every((d) => typeof d === 'string' && live.has(d));
		if (!same) out[EMAIL_DOMAINS_INEXACT] = [];
	} else {
		// Without an address the live rules read the record's own contact.email_domain.
		const parts = ['contact', 'email_domain'];
		const live = readBounded(record, parts, MAX_VALUES_PER_CONDITION);
		if (!sameRead(live, readBounded(entry, parts, MAX_VALUES_PER_CONDITION))) out['contact.email_domain'] = shapeOf(live);
	}
	return out;
}

const PARTS = new Map<string, string[]>(LOGGED_PATHS.map((path) => [path, splitPath(path)]));

/** The parts of a path (the fixed ones split once). */
function partsOf(path: string): string[] {
	return PARTS.get(path) ?? splitPath(path);
}

/** `[visits, ...lengths]`: each value's text length (as the rules measure it), at most MAX_VALUE_CHARS. */
function shapeOf(read: ReadResult): number[] {
	return [
		read.visits,
		...read.values.map((value) => Math.min(textHead(value, MAX_VALUE_CHARS + 64).length, MAX_VALUE_CHARS)),
	];
}

/** The same values (identical primitives) read in the same number of visits. */
function sameRead(a: ReadResult, b: ReadResult): boolean {
	return (
		a.visits === b.visits &&
		a.cut === b.cut &&
		a.values.length === b.values.length &&
		a.values.every((value, i) => (typeof value !== 'object' || value === null) && Object.is(value, b.values[i]))
	);
}
