import { readCandidateTexts, readFirstText } from './raw-values';

/**
 * `fb.<subdomain index>.<creation ms>.<fbclid>`, optionally followed by the `.<appendix>`
 * Meta's parameter builder adds (platforms.md §1.4). The fbclid is case-sensitive.
 */
const FBC_PATTERN = /^fb\.\d\.\d{13}\.([^.\s]+)(?:\.[A-Za-z0-9_-]+)?$/;

/** What a usable fbclid looks like: one token, no dots (it becomes the last fbc segment). */
const FBCLID_PATTERN = /^[^.\s&=?#]+$/;

/** Below this a number is epoch seconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const EPOCH_SECONDS_BELOW = 1e11;

export interface FbcInput {
	/** The stored `_fbc` cookie or a previously built value. */
	fbc?: unknown;
	/** The click id itself, as captured from `?fbclid=`. */
	fbclid?: unknown;
	/** The landing-page URL, read for `?fbclid=` when no bare fbclid is given. */
	landingUrl?: unknown;
	/** When the click was first seen: ISO string, epoch ms or epoch seconds. */
	clickedAt?: unknown;
	/** Event time in epoch ms, the fallback creation time. */
	eventTime?: number;
}

export interface FbcResult {
	value: string | null;
	warning?: string;
}

/**
 * fbc (normalization.md): a well-formed value is kept as it is; otherwise it is built as
 * `fb.1.<creation ms>.<fbclid>`. When the stored value and the newest click disagree, the
 * newest click wins; when they are the same click, the stored value keeps its original time.
 * Creation time: clickedAt, else the event time, else the clock.
 */
export function buildFbc(input: FbcInput, clock: () => number = Date.now): FbcResult {
	const warnings: string[] = [];
	const stored = readFirstTextNoting(input.fbc, 'fbc', warnings);
	const storedMatch = stored === null ? null : FBC_PATTERN.exec(stored);
	const clickId = readClickId(input, warnings);

	if (stored !== null && storedMatch !== null) {
		const storedClickId = storedMatch[1];
		// Same click (or nothing newer): the stored value carries the true first-seen time.
		if (clickId === null || clickId === storedClickId) return result(stored, warnings);
	}
	if (clickId === null) {
		if (stored !== null) warnings.push('fbc: not a well-formed fb.<index>.<ms>.<fbclid> value');
		return result(null, warnings);
	}
	if (stored !== null && storedMatch === null) {
		warnings.push('fbc: stored value is not well formed; rebuilt from fbclid');
	}
	// Subdomain index 1 is what Meta says to use when generating fbc server-side.
	return result(`fb.1.${creationTimeMs(input, clock, warnings)}.${clickId}`, warnings);
}

/** The newest click's fbclid: the bare one captured, else the landing URL's `?fbclid=`. */
function readClickId(input: FbcInput, warnings: string[]): string | null {
	const bare = readFirstTextNoting(input.fbclid, 'fbc: fbclid', warnings);
	if (bare !== null) {
		if (FBCLID_PATTERN.test(bare)) return bare;
		warnings.push('fbc: fbclid is not a single token; ignored');
	}
	const fromUrl = readFbclidFromUrl(readFirstText(input.landingUrl));
	return fromUrl !== null && FBCLID_PATTERN.test(fromUrl) ? fromUrl : null;
}

/** readFirstText, noting the values that are not text (an object, a boolean) as warnings. */
function readFirstTextNoting(raw: unknown, label: string, warnings: string[]): string | null {
	if (raw === undefined || raw === null || typeof raw === 'string') return readFirstText(raw);
	const found = readCandidateTexts(raw);
	for (const reason of found.rejected) warnings.push(`${label}: ${reason}`);
	return found.texts[0] ?? null;
}

function readFbclidFromUrl(url: string | null): string | null {
	if (url === null || !url.includes('fbclid=')) return null;
	try {
		// The base lets a scheme-less or relative URL ("example.com/?fbclid=…") parse too.
		const fbclid = new URL(url, 'https://landing.invalid/').searchParams.get('fbclid');
		return fbclid === null || fbclid.trim() === '' ? null : fbclid.trim();
	} catch {
		return null;
	}
}

function creationTimeMs(input: FbcInput, clock: () => number, warnings: string[]): number {
	if (input.clickedAt !== undefined && input.clickedAt !== null && input.clickedAt !== '') {
		const clickedAt = readEpochMs(input.clickedAt);
		if (clickedAt !== null && isThirteenDigitMs(clickedAt)) return clickedAt;
		warnings.push('fbc: clicked_at is not a valid time; used the event time');
	}
	if (input.eventTime !== undefined && isThirteenDigitMs(Math.round(input.eventTime))) {
		return Math.round(input.eventTime);
	}
	return Math.round(clock());
}

/**
 * The creation time is the fbc's 13-digit millisecond field (September 2001 to 2286): a time
 * outside that range (1970, a negative year, epoch seconds read as the year 2493) would make
 * a value no platform reads as an fbc.
 */
function isThirteenDigitMs(ms: number): boolean {
	return Number.isFinite(ms) && ms >= 1e12 && ms < 1e13;
}

/** Epoch ms from an ISO string, epoch ms or epoch seconds (number or numeric string), or a Date. */
export function readEpochMs(raw: unknown): number | null {
	if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.getTime();
	if (typeof raw === 'number') return epochNumberToMs(raw);
	if (typeof raw !== 'string') return null;
	const text = raw.trim();
	if (/^\d+(?:\.\d+)?$/.test(text)) return epochNumberToMs(Number(text));
	const parsed = Date.parse(text);
	return Number.isNaN(parsed) ? null : parsed;
}

function epochNumberToMs(value: number): number | null {
	if (!Number.isFinite(value) || value <= 0) return null;
	const ms = Math.round(value < EPOCH_SECONDS_BELOW ? value * 1000 : value);
	// Beyond what a Date can hold (±8.64e15 ms): not a time.
	return ms > 8.64e15 ? null : ms;
}

function result(value: string | null, warnings: string[]): FbcResult {
	return warnings.length === 0 ? { value } : { value, warning: warnings.join('; ') };
}
