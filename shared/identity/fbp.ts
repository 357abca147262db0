import type { FieldOutcome } from './fields';
import { readFirstText } from './raw-values';

/**
 * `fb.<subdomain index>.<creation ms>.<random digits>`, optionally followed by the
 * `.<appendix>` Meta's parameter builder adds (platforms.md §1.4).
 */
const FBP_PATTERN = /^fb\.\d\.\d{13}\.\d+(?:\.[A-Za-z0-9_-]+)?$/;

/** fbp: passed through when well formed, dropped when malformed; never synthesized. */
export function normalizeFbpText(text: string): FieldOutcome {
	return FBP_PATTERN.test(text)
		? { value: text }
		: { omitted: 'not a well-formed fb.<index>.<ms>.<random> value' };
}

export function normalizeFbp(raw: unknown): string | null {
	const text = readFirstText(raw);
	if (text === null) return null;
	const outcome = normalizeFbpText(text);
	return outcome !== null && 'value' in outcome ? outcome.value : null;
}
