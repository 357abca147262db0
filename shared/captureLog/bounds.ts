import {
	DEFAULT_MAX_ENTRY_BYTES,
	MAX_ATTRIBUTES,
	MAX_CONSENT_KEYS,
	MAX_KEY_CHARS,
	MAX_TEXT_CHARS,
	MAX_URL_CHARS,
	MIN_MAX_ENTRY_BYTES,
} from './limits';
import { keepSections } from './sections';
import type { BoundedEntry, EntryCut, RedactedRecord } from './types';

/** Sections dropped whole, in this order, when attributes and consent alone do not make room. */
const SECTION_DROP_ORDER = [
	'source.page_url',
	'consent',
	'attributes',
	'client',
	'value',
	'click',
	'contact',
	'source',
	'occurred_at',
] as const;

/** Slices to `max` UTF-16 units without leaving half of a surrogate pair at the end. */
function clipText(value: string, max: number): string {
	if (value.length <= max) return value;
	const cut = value.slice(0, max);
	const last = cut.charCodeAt(cut.length - 1);
	return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

class Clipper {
	clipped = 0;
	readonly dropped = new Set<string>();

	text(value: unknown, max = MAX_TEXT_CHARS): string | undefined {
		if (typeof value !== 'string') return undefined;
		const kept = clipText(value, max);
		if (kept.length < value.length) this.clipped++;
		return kept;
	}

	/** A finite number as is, else text(). */
	numberOrText(value: unknown, max = MAX_TEXT_CHARS): string | number | undefined {
		return typeof value === 'number' ? (Number.isFinite(value) ? value : undefined) : this.text(value, max);
	}

	/** Scalar values under short keys, at most `maxKeys` of them; anything nested is dropped. */
	scalars(
		section: string,
		raw: unknown,
		maxKeys: number,
	): Record<string, string | number | boolean> | undefined {
		if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
		const out: Record<string, string | number | boolean> = {};
		let kept = 0;
		for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
			const scalar =
				typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
					? value
					: this.text(value);
			if (key.length > MAX_KEY_CHARS || kept >= maxKeys || scalar === undefined) {
				this.dropped.add(section);
				continue;
			}
			out[key] = scalar;
			kept++;
		}
		return kept ? out : undefined;
	}
}

function compact<T extends object>(obj: T | undefined): T | undefined {
	if (!obj) return undefined;
	const entries = Object.entries(obj).filter(([, v]) => v !== undefined);
	return entries.length ? (Object.fromEntries(entries) as T) : undefined;
}

/** Every field of a redacted record clipped to its length, key lists cut to their counts. */
function clipRecord(record: RedactedRecord, clip: Clipper): RedactedRecord {
	const { source, contact, client, value } = record;
	const out: RedactedRecord = {
		_redacted: true,
		state: clip.text(record.state),
		occurred_at: clip.numberOrText(record.occurred_at),
		stage: clip.text(record.stage),
		stage_at: clip.numberOrText(record.stage_at),
		lead_created_at: clip.numberOrText(record.lead_created_at),
		previous_stage: clip.text(record.previous_stage),
		source: compact({
			kind: clip.text(source?.kind),
			form_id: clip.text(source?.form_id),
			page_url: clip.text(source?.page_url, MAX_URL_CHARS),
			referrer_host: clip.text(source?.referrer_host),
		}),
		contact: compact({
			email_domain: Array.isArray(contact?.email_domain)
				? contact.email_domain.slice(0, 5).map((d) => clip.text(d) ?? '')
				: clip.text(contact?.email_domain),
			has_email: contact?.has_email === true ? true : undefined,
			has_phone: contact?.has_phone === true ? true : undefined,
			phone_country: clip.text(contact?.phone_country),
			city: clip.text(contact?.city),
			region: clip.text(contact?.region),
			country: clip.text(contact?.country),
		}),
		client: compact({ country: clip.text(client?.country), region: clip.text(client?.region) }),
		click: record.click
			? (compact(
					Object.fromEntries(
						Object.keys(record.click)
							.filter((k) => k.length <= MAX_KEY_CHARS)
							.slice(0, 20)
							.map((k) => [k, true]),
					),
				) as Record<string, true> | undefined)
			: undefined,
		value: compact({
			amount: clip.numberOrText(value?.amount),
			currency: clip.text(value?.currency),
		}),
		consent: clip.scalars('consent', record.consent, MAX_CONSENT_KEYS),
		attributes: clip.scalars('attributes', record.attributes, MAX_ATTRIBUTES),
		_declared: Array.isArray(record._declared) ? [...record._declared] : undefined,
	};
	keepSections(out, record);
	return compact(out) as RedactedRecord;
}

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * `_reduced` of the entry as it now is (reduced.ts), from the lead record it was made of: a
 * function, so every cut recomputes it.
 */
export type Reductions = (entry: RedactedRecord) => Record<string, number[]>;

/**
 * The entry as JSON. `_reduced`: recomputed by `reductions` when given; 'none' leaves it out (to
 * measure the rest); without either, the given one is kept only while nothing was cut.
 */
function serialize(record: RedactedRecord, clip: Clipper, reductions?: Reductions | 'none'): BoundedEntry {
	const cut: EntryCut | undefined =
		clip.clipped || clip.dropped.size ? { clipped: clip.clipped, dropped: [...clip.dropped] } : undefined;
	const { _reduced: given, ...rest } = record;
	// Without the lead record, a cut entry cannot say what it reduced: it then says nothing, and
	// the preview answers for none of its fields (as for an entry of an earlier version).
	const reduced =
		clip.dropped.has('_reduced') || reductions === 'none'
			? undefined
			: reductions
				? reductions(rest as RedactedRecord)
				: cut
					? undefined
					: given;
	const bounded = {
		...rest,
		...(reduced ? { _reduced: reduced } : {}),
		...(cut ? { _truncated: cut } : {}),
	} as RedactedRecord & { _truncated?: EntryCut };
	const json = JSON.stringify(bounded);
	return { record: bounded, json, bytes: bytesOf(json) };
}

/** Removes the last key of `record[section]` (the section itself once empty). */
function dropLastKey(record: RedactedRecord, section: 'attributes' | 'consent'): boolean {
	const values = record[section];
	if (!values) return false;
	const keys = Object.keys(values);
	delete (values as Record<string, unknown>)[keys[keys.length - 1]];
	if (keys.length === 1) delete record[section];
	return true;
}

function dropSection(record: RedactedRecord, path: (typeof SECTION_DROP_ORDER)[number]): boolean {
	if (path === 'source.page_url') {
		if (!record.source?.page_url) return false;
		delete record.source.page_url;
		if (Object.keys(record.source).length === 0) delete record.source;
		return true;
	}
	if (record[path] === undefined) return false;
	delete record[path];
	return true;
}

/**
 * The entry the capture log stores for a redacted record: every value clipped, and the whole
 * JSON within `maxEntryBytes` (attributes dropped last first, then consent values, then whole
 * sections in SECTION_DROP_ORDER). Always returns an entry: the state survives any cap.
 */
export function boundEntry(
	record: RedactedRecord,
	maxEntryBytes = DEFAULT_MAX_ENTRY_BYTES,
	reductions?: Reductions,
): BoundedEntry {
	const max = Math.max(MIN_MAX_ENTRY_BYTES, Math.floor(maxEntryBytes));
	const clip = new Clipper();
	const clipped = clipRecord(record, clip);
	if (record._reduced) clipped._reduced = record._reduced;
	let entry = serialize(clipped, clip, reductions);
	// Cut the rest to what leaves room for `_reduced` as it now is; what is cut adds to it, so
	// measure again until it fits or nothing is left to cut (`_reduced` is computed once a round).
	while (entry.bytes > max) {
		const room = max - (entry.bytes - serialize(clipped, clip, 'none').bytes);
		if (!cutToFit(clipped, clip, room)) break;
		entry = serialize(clipped, clip, reductions);
	}
	if (entry.bytes > max) {
		// Still too big (a very long `_reduced`): the entry says nothing of what it reduced, so
		// the preview answers for none of its fields.
		clip.dropped.add('_reduced');
		delete clipped._declared;
		entry = serialize(clipped, clip, reductions);
	}
	return entry;
}

/**
 * Cuts the entry (without `_reduced`) to `room` bytes: declared attributes last first (the key
 * leaves `_declared` with its value, so the preview no longer answers for it), then the other
 * attributes and consent values, then whole sections in SECTION_DROP_ORDER. False when nothing
 * was left to cut.
 */
function cutToFit(clipped: RedactedRecord, clip: Clipper, room: number): boolean {
	let cutAny = false;
	const size = () => serialize(clipped, clip, 'none').bytes;
	while (size() > room && clipped._declared?.length) {
		const key = clipped._declared.pop() as string;
		if (clipped._declared.length === 0) delete clipped._declared;
		if (clipped.attributes && Object.prototype.hasOwnProperty.call(clipped.attributes, key)) {
			delete clipped.attributes[key];
			if (Object.keys(clipped.attributes).length === 0) delete clipped.attributes;
		}
		clip.dropped.add('attributes');
		cutAny = true;
	}
	for (const section of ['attributes', 'consent'] as const) {
		while (size() > room && dropLastKey(clipped, section)) {
			clip.dropped.add(section);
			cutAny = true;
		}
	}
	for (const path of SECTION_DROP_ORDER) {
		if (size() <= room) break;
		if (dropSection(clipped, path)) {
			clip.dropped.add(path);
			cutAny = true;
		}
	}
	return cutAny;
}
