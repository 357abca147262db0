/**
 * Turning a raw input (string, number, array of those, Date) into candidate texts.
 */

export interface CandidateTexts {
	/** NFC, trimmed, non-empty texts in input order. */
	texts: string[];
	/** Reasons for inputs that could not be read as text (objects, booleans, …). */
	rejected: string[];
}

const MAX_ARRAY_DEPTH = 3;

/** Reads every usable text from `raw`; blank values are dropped silently (absent, not wrong). */
export function readCandidateTexts(raw: unknown): CandidateTexts {
	const found: CandidateTexts = { texts: [], rejected: [] };
	collect(raw, 0, found);
	return found;
}

/** The first usable text of `raw`, or null. */
export function readFirstText(raw: unknown): string | null {
	// The common shapes (absent, one string) without building a candidate list.
	if (raw === undefined || raw === null) return null;
	if (typeof raw === 'string') {
		const text = cleanText(raw);
		return text === '' ? null : text;
	}
	return readCandidateTexts(raw).texts[0] ?? null;
}

/**
 * Below U+0300 (where combining marks begin) every character is its own NFC form and none
 * combines with another: such text needs no normalization, and nearly all input is such text.
 */
const MAY_NEED_NFC = /[\u0300-\uffff]/;

/** NFC first so composed and decomposed accents normalize (and hash) alike; then trimmed. */
export function cleanText(text: string): string {
	return (MAY_NEED_NFC.test(text) ? text.normalize('NFC') : text).trim();
}

function collect(raw: unknown, depth: number, found: CandidateTexts): void {
	if (raw === null || raw === undefined) return;
	if (Array.isArray(raw)) {
		if (depth >= MAX_ARRAY_DEPTH) {
			found.rejected.push('ignored a too deeply nested list');
			return;
		}
		for (const item of raw) collect(item, depth + 1, found);
		return;
	}
	const text = asText(raw);
	if (text === undefined) {
		found.rejected.push(`ignored a value that is not text (${describeType(raw)})`);
		return;
	}
	const trimmed = cleanText(text);
	if (trimmed !== '') found.texts.push(trimmed);
}

function asText(raw: unknown): string | undefined {
	if (typeof raw === 'string') return raw;
	if (typeof raw === 'number') return Number.isFinite(raw) ? String(raw) : undefined;
	if (typeof raw === 'bigint') return raw.toString();
	if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? undefined : raw.toISOString();
	return undefined;
}

function describeType(raw: unknown): string {
	if (raw instanceof Date) return 'invalid date';
	if (typeof raw === 'number') return 'non-finite number';
	return typeof raw;
}
