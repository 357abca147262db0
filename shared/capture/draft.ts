import type { LeadState } from '../types';
import { FORBIDDEN_KEYS } from './values';

/**
 * What a source mapper found in a body, before the shared steps (mapping overrides, state,
 * record id, visitor context, identity check) turn it into a lead record. Sections hold raw
 * values; the first value found for a field wins (`putFirst`).
 */
export interface CaptureDraft {
	/** The source's own record id and where it was read (for reasons). */
	recordId?: { value: unknown; from: string };
	/** Why the source has no id, when it knows (e.g. the script's capture_id is malformed). */
	recordIdProblem?: string;
	presetState?: LeadState;
	occurredAt?: unknown;
	/** A later stage of the lead (stage, stage_at, lead_created_at, previous_stage): docs/stages.md. */
	stage: Record<string, unknown>;
	source: Record<string, unknown>;
	contact: Record<string, unknown>;
	click: Record<string, unknown>;
	client: Record<string, unknown>;
	consent: Record<string, unknown>;
	value: Record<string, unknown>;
	attributes: Record<string, unknown>;
	/** A full name, split into first/last only when neither was given. */
	fullName?: unknown;
	/** The landing page, when the body names one apart from the page. */
	landingUrl?: string;
	/** URLs whose query may carry click ids and utm_* (the landing page, the page). */
	urls: unknown[];
	warnings: string[];
}

export type DraftSection =
	| 'source'
	| 'contact'
	| 'click'
	| 'client'
	| 'consent'
	| 'value'
	| 'attributes';

/** What a source mapper answers. */
export type SourceResult =
	| { kind: 'draft'; draft: CaptureDraft }
	| { kind: 'ignored'; reason: string }
	| { kind: 'invalid'; status: 400 | 422; reason: string };

export function createDraft(): CaptureDraft {
	return {
		stage: {},
		source: {},
		contact: {},
		click: {},
		client: {},
		consent: {},
		value: {},
		attributes: {},
		urls: [],
		warnings: [],
	};
}

/**
 * Sets `section[key]` unless it already holds a value or the key is a prototype key (a JSON body
 * may carry `__proto__` or `constructor` as its own keys). Returns whether it was set.
 */
export function putFirst(
	draft: CaptureDraft,
	section: DraftSection,
	key: string,
	value: unknown,
): boolean {
	if (value === undefined || FORBIDDEN_KEYS.has(key)) return false;
	const target = draft[section];
	if (Object.prototype.hasOwnProperty.call(target, key)) return false;
	target[key] = value;
	return true;
}
