import type { RedactedRecord } from './types';

/** The record's sections (objects) as in the entry. */
export const SECTIONS = ['source', 'contact', 'client', 'click', 'value', 'consent', 'attributes'] as const;

/**
 * A section the lead has (an object) stays in the entry, empty if nothing of it is kept, so the
 * rules' reader visits the same nodes on both and `_reduced` need not list its missing fields.
 */
export function keepSections(entry: RedactedRecord, record: object): void {
	for (const section of SECTIONS) {
		const raw = (record as Record<string, unknown>)[section];
		if (entry[section] === undefined && raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
			(entry as unknown as Record<string, unknown>)[section] = {};
		}
	}
}
