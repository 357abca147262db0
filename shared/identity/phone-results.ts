import type { FieldOutcome } from './fields';

/**
 * Phone results already worked out in this process. The same lead's number is read again and
 * again: by each platform node of a fan-out, at each stage of the lead (partial, submit, booking,
 * CRM stage), when n8n re-runs an execution. Parsing and validating a number with
 * libphonenumber-js's full metadata takes tens of µs (it compiles a regular expression for every
 * pattern it checks); looking the result up here, under one.
 *
 * Raw phone numbers are personal data: these results live in this process's memory only, are
 * never written anywhere (no Redis, no file, no log), and are bounded: at most
 * {@link PHONE_RESULTS_LIMIT} (10,000) entries, each keyed by a text of at most
 * {@link PHONE_RESULTS_MAX_TEXT} (64) characters plus a country code — about 3.5 MB of heap at
 * most (3.4 MB measured when full of distinct numbers, Node 20). The results read longest ago
 * go first (below); a longer text is worked out every time and never kept. The answers are the
 * same with and without this (test/property/phone.test.ts).
 */
export const PHONE_RESULTS_LIMIT = 10_000;
/** Longest text kept (a formatted number with an extension and a label fits many times). */
export const PHONE_RESULTS_MAX_TEXT = 64;

/**
 * Two generations, each at most half the bound: results are looked up in both and added to the
 * recent one; when it is full it becomes the older one and the older one is dropped whole. A
 * result found in the older one moves to the recent one. So the results of the last 5,000 to
 * 10,000 distinct readings are kept, and nothing is ever scanned (a single Map kept in order of
 * use would have to skip its deleted entries to find the oldest one).
 */
const GENERATION = PHONE_RESULTS_LIMIT / 2;
let recent = new Map<string, FieldOutcome>();
let older = new Map<string, FieldOutcome>();

function remember(key: string, outcome: FieldOutcome): void {
	if (recent.size >= GENERATION) {
		older = recent;
		recent = new Map();
	}
	recent.set(key, outcome);
}

/**
 * The outcome of `text` read with `country` (the supported code, or undefined): the remembered
 * one, or `workOut()`'s, then remembered. Outcomes are frozen: every caller gets the same object.
 */
export function rememberedPhoneOutcome(
	text: string,
	country: string | undefined,
	workOut: () => FieldOutcome,
): FieldOutcome {
	if (text.length > PHONE_RESULTS_MAX_TEXT) return workOut();
	// A country code is [A-Z]{2}, so "US|…" and "|…" cannot be confused whatever the text holds.
	const key = `${country ?? ''}|${text}`;
	const known = recent.get(key);
	if (known !== undefined) return known;
	const kept = older.get(key);
	if (kept !== undefined) {
		older.delete(key);
		remember(key, kept);
		return kept;
	}
	const outcome = workOut();
	remember(key, outcome === null ? null : Object.freeze(outcome));
	return outcome;
}

/** How many results are remembered now (never more than PHONE_RESULTS_LIMIT). */
export function rememberedPhoneResults(): number {
	return recent.size + older.size;
}
