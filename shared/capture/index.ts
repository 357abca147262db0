/**
 * Lead capture: turns one webhook request (a form tool, a scheduler, a CRM, our capture script)
 * into one canonical lead record, or says why not. Framework-free; the Lead Capture Trigger node
 * is a thin adapter around processCapture.
 */
import { assembleRecord } from './assemble';
import { parseCaptureBody } from './body';
import type { SourceResult } from './draft';
import { verifySignature } from './signature';
import { mapCalcom } from './sources/calcom';
import { mapCalendly } from './sources/calendly';
import { mapGeneric } from './sources/generic';
import { leadgenChanges, leadgenDraft } from './sources/metaLeadgen';
import { hubspotChangeProblem, hubspotDraft, hubspotStageChanges } from './sources/hubspot';
import { mapScript } from './sources/script';
import { mapTally } from './sources/tally';
import { mapTypeform } from './sources/typeform';
import type { CaptureConfig, CaptureOutcome, CaptureRequest, CaptureSource } from './types';
import type { JsonObject } from './values';

export type {
	CaptureSource,
	CaptureRequest,
	FieldMapping,
	SignatureConfig,
	CaptureConfig,
	CaptureOutcome,
	SignatureResult,
} from './types';
export { CAPTURE_SOURCES } from './types';
export { verifySignature, PRESET_SCHEMES } from './signature';
export { DETECTION_RULES, type DetectionRule, type DetectionTarget } from './detect';
export {
	RECORD_ID_KEYS,
	deriveRecordId,
	CAPTURE_ID_PATTERN,
	BROWSER_RECORD_ID_PREFIX,
	browserRecordId,
} from './recordId';
export { parseFormBody } from './body';
export { leadgenVerification } from './sources/metaLeadgen';
export { isPublicIp } from './visitor';
export * from './scriptProtocol';
export { readLeadRecord } from './input';

/** Bodies above this are refused (413) unless the node sets another limit. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

const SOURCE_MAPPERS: Readonly<
	Record<
		Exclude<CaptureSource, 'metaLeadAds' | 'hubspot'>,
		(body: JsonObject, config: CaptureConfig) => SourceResult
	>
> = {
	generic: mapGeneric,
	typeform: mapTypeform,
	tally: mapTally,
	calendly: mapCalendly,
	calcom: mapCalcom,
	script: mapScript,
};

/**
 * One capture, in this order: size (413) → signature over the raw body (401) → parse (400 / 415)
 * → the source's mapping (ignored events answer 200 without a record) → record checks (422 no
 * usable record id, 422 no identity) → the record. `now` (epoch ms) is the receipt time: it ages
 * signature timestamps and is occurred_at when the body has no time of its own.
 */
export function processCapture(
	request: CaptureRequest,
	config: CaptureConfig,
	now: number = Date.now(),
): CaptureOutcome {
	const limit = bodyLimit(config.maxBodyBytes);
	const size = request.rawBody.length;
	if (size > limit)
		return {
			kind: 'rejected',
			status: 413,
			reason: `body too large (${size} bytes, limit ${limit})`,
		};

	const signature = verifySignature(request, config.signature, config.source, now);
	if (!signature.ok) return { kind: 'rejected', status: 401, reason: signature.reason };

	const parsed = parseCaptureBody(request, config.source);
	if (!parsed.ok) return { kind: 'rejected', status: parsed.status, reason: parsed.reason };

	if (config.source === 'metaLeadAds') return processLeadgen(parsed.body, request, config, now);
	if (config.source === 'hubspot') return processHubSpot(parsed.body, request, config, now);
	const mapped = SOURCE_MAPPERS[config.source](parsed.body, config);
	if (mapped.kind === 'ignored') return { kind: 'ignored', status: 200, reason: mapped.reason };
	if (mapped.kind === 'invalid')
		return { kind: 'rejected', status: mapped.status, reason: mapped.reason };
	return assembleRecord(mapped.draft, parsed.body, request, config, now);
}

function bodyLimit(configured: number | undefined): number {
	return typeof configured === 'number' && Number.isFinite(configured) && configured > 0
		? Math.floor(configured)
		: DEFAULT_MAX_BODY_BYTES;
}

/**
 * A Meta leadgen delivery: one record per leadgen change (Meta batches them). Changes that fail
 * the record checks are left out with a warning; when none passes, the first refusal answers.
 */
function processLeadgen(
	body: JsonObject,
	request: CaptureRequest,
	config: CaptureConfig,
	now: number,
): CaptureOutcome {
	const changes = leadgenChanges(body);
	if (changes.kind === 'ignored') return { kind: 'ignored', status: 200, reason: changes.reason };
	const outcomes = changes.values.map((value, index) => ({
		index,
		outcome: assembleRecord(leadgenDraft(value), value, request, config, now),
	}));
	return combineOutcomes(outcomes, 'leadgen change');
}

/**
 * A HubSpot batch (up to 100 events per request): one record per stage change, oldest first.
 * An element that is not an event, or a stage change without a usable stage or record id, is
 * refused on its own (a warning and `refused`) and never sinks the others; when none passes,
 * the first refusal answers.
 */
function processHubSpot(
	body: JsonObject,
	request: CaptureRequest,
	config: CaptureConfig,
	now: number,
): CaptureOutcome {
	const found = hubspotStageChanges(body);
	if (found.kind === 'ignored') return { kind: 'ignored', status: 200, reason: found.reason };
	if (found.kind === 'invalid')
		return { kind: 'rejected', status: found.status, reason: found.reason };
	const outcomes = found.changes.map((change): { index: number; outcome: CaptureOutcome } => {
		if (change.kind === 'refused') {
			return {
				index: change.index,
				outcome: { kind: 'rejected', status: 400, reason: change.reason },
			};
		}
		const problem = hubspotChangeProblem(change.event);
		const outcome: CaptureOutcome = problem
			? { kind: 'rejected', status: 422, reason: problem }
			: assembleRecord(hubspotDraft(change.event), change.event, request, config, now);
		return { index: change.index, outcome };
	});
	return combineOutcomes(outcomes, 'hubspot event');
}

/**
 * The records of a delivery that carries several leads or stages, in the given order; each
 * refused element is named (`<label> <index> left out: <reason>`) and listed in `refused`.
 */
function combineOutcomes(
	outcomes: ReadonlyArray<{ index: number; outcome: CaptureOutcome }>,
	label: string,
): CaptureOutcome {
	const accepted = outcomes.flatMap(({ outcome }) =>
		outcome.kind === 'accepted' ? [outcome] : [],
	);
	const refused = outcomes
		.flatMap(({ index, outcome }) =>
			outcome.kind === 'rejected'
				? [{ index, status: outcome.status, reason: outcome.reason }]
				: [],
		)
		.sort((a, b) => a.index - b.index);
	if (accepted.length === 0) {
		const first = refused[0];
		return {
			kind: 'rejected',
			status: first.status,
			reason: outcomes.length > 1 ? `${label} ${first.index}: ${first.reason}` : first.reason,
		};
	}
	const warnings = [
		...new Set(accepted.flatMap((o) => o.warnings)),
		...refused.map((r) => `${label} ${r.index} left out: ${r.reason}`),
	];
	const records = accepted.map((o) => o.record);
	return {
		kind: 'accepted',
		record: records[0],
		warnings,
		...(records.length > 1 ? { records } : {}),
		...(refused.length > 0 ? { refused } : {}),
	};
}
