import {
	normalizeCountry,
	normalizeEmailText,
	normalizeIp,
	normalizePhoneText,
	readEpochMs,
} from '../identity';
import { normalizeFieldValues } from '../identity/field-values';
import { LEAD_RECORD_FIELDS } from '../record';
import { LEAD_STATES, type LeadRecord, type LeadState } from '../types';
import type { CaptureDraft, DraftSection } from './draft';
import {
	deriveRecordId,
	RECORD_ID_KEYS,
	serverRecordIdProblem,
	validateRecordId,
} from './recordId';
import type { CaptureConfig, CaptureOutcome, CaptureRequest, CaptureSource } from './types';
import { addUrlParameters, readClientAddress, readUserAgent } from './visitor';
import {
	FORBIDDEN_KEYS,
	readPath,
	readScalar,
	readText,
	readValue,
	splitPath,
	type JsonObject,
} from './values';

/**
 * The steps every source shares, in order: explicit mapping and record id field, state,
 * occurred_at, visitor context, click ids from URLs, name split, then the record checks (record
 * id, identity) and the canonical record with absent values omitted.
 */
export function assembleRecord(
	draft: CaptureDraft,
	body: JsonObject,
	request: CaptureRequest,
	config: CaptureConfig,
	now: number,
): CaptureOutcome {
	applyMapping(draft, body, config);
	if (config.recordIdField?.trim()) {
		draft.recordId = {
			value: readPath(body, config.recordIdField),
			from: splitPath(config.recordIdField).join('.'),
		};
		draft.recordIdProblem = undefined;
	}
	const state = resolveState(draft, body, config);
	if ('problem' in state) return reject(422, state.problem);

	const occurredAt = resolveOccurredAt(draft, config.source, now);
	// The kind leads the section: it is what a reader of the record looks for first.
	draft.source = { kind: config.source, ...draft.source };
	if (readText(draft.source.form_id) === undefined && readText(config.formId) !== undefined) {
		draft.source.form_id = readText(config.formId);
	}
	addVisitorContext(draft, request, config);
	if (readText(draft.source.page_url) === undefined && draft.landingUrl !== undefined) {
		draft.source.page_url = draft.landingUrl;
	}
	addUrlParameters(draft, [...draft.urls, draft.source.page_url]);
	splitFullName(draft);

	const identity = judgeIdentity(draft, config);
	const recordId = resolveRecordId(draft, identity, config);
	if ('problem' in recordId) return reject(422, `no usable record id: ${recordId.problem}`);
	// A later stage of a lead refers to a lead sent before (same record_id): the CRM's stage
	// webhook rarely repeats the contact, and the platforms match it by the lead's ids.
	const isStage = readText(draft.stage.stage) !== undefined;
	if (!identity.hasIdentity && !isStage) {
		return reject(
			422,
			'no identity: a lead needs an email or a phone number (or a click id with IP and user agent)',
		);
	}

	const record: LeadRecord = {
		record_id: recordId.id,
		state: state.state,
		occurred_at: occurredAt,
		...compactSection(draft.stage),
		source: compactSection(draft.source),
		contact: compactSection(draft.contact),
		click: compactSection(draft.click),
		client: compactSection(draft.client),
		value: compactSection(draft.value),
		consent: compactSection(draft.consent),
		attributes: compactSection(draft.attributes),
	};
	for (const key of Object.keys(record) as Array<keyof LeadRecord>) {
		if (record[key] === undefined) delete record[key];
	}
	return {
		kind: 'accepted',
		record,
		warnings: [...new Set([...draft.warnings, ...identity.warnings])],
	};
}

function reject(status: 400 | 422, reason: string): CaptureOutcome {
	return { kind: 'rejected', status, reason };
}

const MAPPABLE_SECTIONS: ReadonlySet<string> = new Set([
	'source',
	'contact',
	'click',
	'client',
	'consent',
	'value',
]);
const KNOWN_FIELDS: ReadonlySet<string> = new Set(LEAD_RECORD_FIELDS);
const STAGE_FIELDS: ReadonlySet<string> = new Set([
	'stage',
	'stage_at',
	'lead_created_at',
	'previous_stage',
]);

/**
 * Explicit mapping wins over detection and presets: each entry replaces its field with what its
 * body path holds (an absent value removes the field — an explicit path is not second-guessed).
 */
function applyMapping(draft: CaptureDraft, body: JsonObject, config: CaptureConfig): void {
	for (const [rawTarget, rawPath] of Object.entries(config.mapping ?? {})) {
		const target = rawTarget.trim();
		const path = typeof rawPath === 'string' ? splitPath(rawPath).join('.') : '';
		if (target === '' || path === '') continue;
		const value = readPath(body, path);
		if (target === 'record_id') {
			draft.recordId = { value, from: path };
			draft.recordIdProblem = undefined;
		} else if (target === 'occurred_at') {
			draft.occurredAt = readScalar(value);
		} else if (STAGE_FIELDS.has(target)) {
			setOrDelete(draft.stage, target, readScalar(value));
		} else if (target === 'state') {
			draft.warnings.push(
				'mapping: state comes from the State setting; the "state" entry was ignored',
			);
		} else if (target.startsWith('attributes.') && target.length > 'attributes.'.length) {
			setOrDelete(draft.attributes, target.slice('attributes.'.length), readValue(value));
		} else if (KNOWN_FIELDS.has(target) && MAPPABLE_SECTIONS.has(target.split('.')[0])) {
			const [section, field] = target.split('.') as [DraftSection, string];
			const mapped = section === 'contact' ? readValue(value) : readScalar(value);
			setOrDelete(draft[section], field, mapped);
			if (target === 'source.page_url' && mapped !== undefined) draft.urls.push(mapped);
			if (section === 'contact' && (field === 'first_name' || field === 'last_name')) {
				draft.fullName = undefined;
			}
		} else {
			draft.warnings.push(
				`mapping: ${JSON.stringify(target.slice(0, 60))} is not a lead record field`,
			);
		}
	}
}

function setOrDelete(section: Record<string, unknown>, key: string, value: unknown): void {
	if (FORBIDDEN_KEYS.has(key)) return;
	if (value === undefined) delete section[key];
	else section[key] = value;
}

function resolveState(
	draft: CaptureDraft,
	body: JsonObject,
	config: CaptureConfig,
): { state: LeadState } | { problem: string } {
	const setting = config.state;
	if (setting.from === 'fixed') {
		return isLeadState(setting.value)
			? { state: setting.value }
			: { problem: 'state: the fixed state is not a lead state' };
	}
	if (setting.from === 'field') {
		const field = splitPath(setting.field ?? '').join('.');
		const raw = readText(readPath(body, field));
		const state = raw?.toLowerCase();
		return isLeadState(state)
			? { state }
			: {
					problem: `state: the field ${JSON.stringify(field)} holds no lead state (${LEAD_STATES.join(', ')})`,
				};
	}
	// A generic webhook has no preset: a capture is a lead unless configured otherwise.
	return { state: draft.presetState ?? 'lead' };
}

function isLeadState(value: unknown): value is LeadState {
	return typeof value === 'string' && (LEAD_STATES as readonly string[]).includes(value);
}

/**
 * The body's own time when it gives a readable one (ISO or epoch), else the receipt time. The
 * script always uses the receipt time (see sources/script.ts).
 */
function resolveOccurredAt(draft: CaptureDraft, source: CaptureSource, now: number): string {
	if (source !== 'script' && draft.occurredAt !== undefined) {
		const ms = readEpochMs(draft.occurredAt);
		if (ms !== null) return new Date(ms).toISOString();
		draft.warnings.push('occurred_at: not a readable time; used the time of receipt');
	}
	return new Date(now).toISOString();
}

/**
 * Whose request is it? The script's request comes from the visitor's browser, so its address and
 * User-Agent header are the visitor's (the header beats anything in the body). A generic webhook
 * may come from a browser or from a server: values in the body win, the request fills the gaps.
 * Form tools and schedulers call from their own servers, so the request says nothing about the
 * visitor and is not used.
 */
function addVisitorContext(
	draft: CaptureDraft,
	request: CaptureRequest,
	config: CaptureConfig,
): void {
	if (config.source !== 'script' && config.source !== 'generic') return;
	const userAgent = readUserAgent(request);
	if (config.source === 'script' && userAgent !== undefined) draft.client.user_agent = userAgent;
	if (readText(draft.client.user_agent) === undefined && userAgent !== undefined) {
		draft.client.user_agent = userAgent;
	}
	if (config.source === 'generic' && readText(draft.client.ip) !== undefined) return;
	const address = readClientAddress(request, {
		trustProxy: config.trustProxy === true,
		trustedProxies: config.trustedProxies,
	});
	if (address.ip !== undefined) draft.client.ip = address.ip;
	else if (address.warning !== undefined) draft.warnings.push(address.warning);
}

/** "Jane Mary Doe" → first_name Jane, last_name "Mary Doe"; only when neither was given. */
function splitFullName(draft: CaptureDraft): void {
	const fullName = readText(draft.fullName);
	if (fullName === undefined) return;
	if (
		readText(draft.contact.first_name) !== undefined ||
		readText(draft.contact.last_name) !== undefined
	) {
		return;
	}
	const [first, ...rest] = fullName.split(/\s+/);
	draft.contact.first_name = first;
	if (rest.length > 0) draft.contact.last_name = rest.join(' ');
}

const CLICK_IDENTITY_FIELDS = [
	'fbclid',
	'fbc',
	'fbp',
	'gclid',
	'gbraid',
	'wbraid',
	'ttclid',
	'ttp',
	'msclkid',
	'epik',
];

interface IdentityJudgement {
	hasIdentity: boolean;
	/** Canonical email or E.164 phone for record-id derivation, when the lead has one. */
	derivationKey?: string;
	warnings: string[];
}

/**
 * A lead is identifiable with a valid email, a valid phone (read with the lead's country, else
 * the node's default country), or a click id / ad cookie together with the visitor's IP and user
 * agent. Values stay raw in the record; normalizing here only decides.
 */
function judgeIdentity(draft: CaptureDraft, config: CaptureConfig): IdentityJudgement {
	const email = normalizeFieldValues('email', draft.contact.email, normalizeEmailText, {
		multiple: false,
		label: 'contact.email',
	});
	const country =
		normalizeCountry(draft.contact.country) ?? normalizeCountry(config.defaultCountry ?? null);
	const phone = normalizeFieldValues(
		'phone',
		draft.contact.phone,
		(text) => normalizePhoneText(text, { country }),
		{ multiple: false, label: 'contact.phone' },
	);
	const warnings = [...email.warnings, ...phone.warnings];
	const derivationKey = email.values[0] ?? phone.values[0];
	if (derivationKey !== undefined) return { hasIdentity: true, derivationKey, warnings };
	// Meta's lead id identifies a lead from Meta's instant forms (Conversion Leads matches on it).
	if (readText(draft.attributes.meta_lead_id) !== undefined) return { hasIdentity: true, warnings };
	const hasClick = CLICK_IDENTITY_FIELDS.some(
		(field) => readText(draft.click[field]) !== undefined,
	);
	const hasIp = normalizeIp(draft.client.ip) !== null;
	const hasUserAgent = readText(draft.client.user_agent) !== undefined;
	return { hasIdentity: hasClick && hasIp && hasUserAgent, warnings };
}

function resolveRecordId(
	draft: CaptureDraft,
	identity: IdentityJudgement,
	config: CaptureConfig,
): { id: string } | { problem: string } {
	if (draft.recordIdProblem !== undefined) return { problem: draft.recordIdProblem };
	if (draft.recordId !== undefined) {
		const checked = validateRecordId(draft.recordId.value);
		// Ids by origin (recordId.ts): only the script's ids are in the browser's namespace.
		const why =
			'id' in checked
				? config.source === 'script'
					? undefined
					: serverRecordIdProblem(checked.id)
				: checked.problem;
		if (why === undefined && 'id' in checked) return checked;
		const problem = `${draft.recordId.from} ${why}`;
		return config.deriveRecordId ? derive(draft, identity, problem) : { problem };
	}
	const missing =
		config.source === 'generic'
			? `no id field found (looked for ${RECORD_ID_KEYS.join(', ')}); set the record id field or turn on record id derivation`
			: 'the body carries no record id';
	return config.deriveRecordId ? derive(draft, identity, missing) : { problem: missing };
}

function derive(
	draft: CaptureDraft,
	identity: IdentityJudgement,
	why: string,
): { id: string } | { problem: string } {
	const formId = readText(draft.source.form_id);
	if (formId === undefined) {
		return { problem: `${why}; derivation needs a form id (none in the body and no Form ID set)` };
	}
	if (identity.derivationKey === undefined) {
		return { problem: `${why}; derivation needs a valid email or phone number` };
	}
	return { id: deriveRecordId(formId, identity.derivationKey) };
}

/** A section without blanks: trimmed strings, finite numbers, booleans, non-empty lists. */
function compactSection(section: Record<string, unknown>): Record<string, unknown> | undefined {
	const out: Record<string, unknown> = {};
	for (const [key, raw] of Object.entries(section)) {
		const value = readValue(raw);
		if (value !== undefined) out[key] = value;
	}
	return Object.keys(out).length === 0 ? undefined : out;
}
