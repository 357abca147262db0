import type { LedgerEntry } from './types';

/** What the ledger says about sending `event` (a stage) for a lead now. */
export interface StageAssessment {
	/** The ledger already has this stage for this lead at this destination: not sent again. */
	alreadySent: boolean;
	/** Skipped or out-of-order stages, in words (the event is still sent). */
	warnings: string[];
}

const fold = (name: string) => name.trim().toLowerCase();

/**
 * Was this stage (or adjustment) sent before; is an earlier stage of `stageOrder` missing (skipped) or a later
 * one sent already (out of order)? Meta asks for every stage change of a lead to be sent
 * (Conversion Leads integration guide), so both are warned about — never blocked: the CRM is
 * the truth about what happened.
 */
export function assessStage(
	entry: LedgerEntry | null,
	event: string,
	eventTime: number,
	stageOrder: readonly string[] = [],
): StageAssessment {
	const sent = entry?.stages ?? {};
	const sentFolded = new Map(Object.entries(sent).map(([name, at]) => [fold(name), at]));
	const adjusted = Object.keys(entry?.adjustments ?? {}).map(fold);
	if (sentFolded.has(fold(event)) || adjusted.includes(fold(event))) return { alreadySent: true, warnings: [] };
	const warnings: string[] = [];
	const order = stageOrder.map(fold).filter((s) => s !== '');
	const position = order.indexOf(fold(event));
	if (position > 0) {
		const skipped = order.slice(0, position).filter((s) => !sentFolded.has(s));
		if (skipped.length > 0) {
			warnings.push(
				`stage "${event}" skips ${skipped.map((s) => `"${s}"`).join(', ')}: not sent for this lead; Meta asks for every stage change to be sent`,
			);
		}
		const later = order.slice(position + 1).filter((s) => sentFolded.has(s));
		if (later.length > 0) {
			warnings.push(
				`stage "${event}" arrives after the later stage ${later.map((s) => `"${s}"`).join(', ')}: out of order`,
			);
		}
	}
	const newer = [...sentFolded].filter(([, at]) => at > eventTime).map(([name]) => name);
	if (newer.length > 0 && warnings.every((w) => !w.includes('out of order'))) {
		warnings.push(
			`stage "${event}" is older than stage ${newer.map((s) => `"${s}"`).join(', ')} sent before: out of order`,
		);
	}
	return { alreadySent: false, warnings };
}

/** Whole days from the lead's creation to `at` (unix seconds), or undefined when unknown. */
export function daysSinceCreated(entry: LedgerEntry | null, at: number): number | undefined {
	if (!entry?.createdAt) return undefined;
	return (at - entry.createdAt) / 86_400;
}
