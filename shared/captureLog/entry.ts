import type { LeadRecord } from '../types';
import { boundEntry } from './bounds';
import { DEFAULT_MAX_ENTRY_BYTES } from './limits';
import { redactForLog } from './redact';
import type { BoundedEntry, RedactOptions } from './types';
import { reducedShapes } from './reduced';

/**
 * The entry the capture log stores for a lead record: the allow-list (redactForLog), bounded
 * (boundEntry), with `_reduced` recomputed for every cut, so it always says what the stored
 * entry — not the uncut one — holds.
 */
export function captureLogEntry(
	record: LeadRecord,
	options: RedactOptions = {},
	maxEntryBytes = DEFAULT_MAX_ENTRY_BYTES,
): BoundedEntry {
	return boundEntry(redactForLog(record, options), maxEntryBytes, (entry) =>
		reducedShapes(record, entry, entry._declared ?? []),
	);
}
