import { applyEntries, type FieldEntry } from '../detect';
import { createDraft, type SourceResult } from '../draft';
import { detectRecordId } from '../recordId';
import type { CaptureConfig } from '../types';
import { isObject, splitPath, type JsonObject } from '../values';

/**
 * Generic JSON or form-encoded bodies: common keys are detected at the root and one level deep
 * (root first), the record id among RECORD_ID_KEYS; every other scalar goes to attributes under
 * its own key (flat; the root wins a name clash). Paths named by the mapping, the record id
 * field and the state field are left to those settings.
 */
export function mapGeneric(body: JsonObject, config: CaptureConfig): SourceResult {
	const draft = createDraft();
	const excluded = explicitPaths(config);
	if (!config.recordIdField && !config.mapping?.record_id) {
		const found = detectRecordId(body, excluded);
		if (found !== null) {
			draft.recordId = found;
			excluded.add(found.from);
		}
	}
	applyEntries(draft, collectEntries(body, excluded), { attributes: true });
	return { kind: 'draft', draft };
}

/** Body paths an explicit setting reads: detection and attributes leave them alone. */
function explicitPaths(config: CaptureConfig): Set<string> {
	const paths = [
		...Object.values(config.mapping ?? {}),
		config.recordIdField,
		config.state.from === 'field' ? config.state.field : undefined,
	];
	return new Set(
		paths
			.filter((path): path is string => typeof path === 'string')
			.map((path) => splitPath(path).join('.'))
			.filter((path) => path !== ''),
	);
}

/** Root entries first, then those of each object at the root, in body order. */
function collectEntries(body: JsonObject, excluded: ReadonlySet<string>): FieldEntry[] {
	const root: FieldEntry[] = [];
	const nested: FieldEntry[] = [];
	for (const [key, value] of Object.entries(body)) {
		if (excluded.has(key)) continue;
		if (!isObject(value)) {
			root.push({ key, value });
			continue;
		}
		for (const [innerKey, innerValue] of Object.entries(value)) {
			if (excluded.has(`${key}.${innerKey}`) || isObject(innerValue)) continue;
			nested.push({ key: innerKey, value: innerValue, parentKey: key });
		}
	}
	return [...root, ...nested];
}
