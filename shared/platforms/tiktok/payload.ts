import type { BuildContext, BuildOutcome, PlatformUserData } from '../contract';
import { consentDeniedSkip, limitedDataUseFor } from '../../events/context';
import type { IdentityField, PlatformIdentity } from '../../identity';
import type { LeadRecord } from '../../types';
import type { TiktokConfig } from './config';
import { TIKTOK_LEAD_ID_ATTRIBUTE } from './constants';

/** TikTok's `user` object. Hashing and formats come from the identity profile (profiles.ts). */
export interface TiktokUser {
	email?: string[];
	phone?: string[];
	external_id?: string[];
	first_name?: string;
	last_name?: string;
	zip_code?: string;
	city?: string;
	state?: string;
	country?: string;
	ttclid?: string;
	ttp?: string;
	ip?: string;
	user_agent?: string;
}

/** One event of the request's `data[]`. */
export interface TiktokEvent {
	event: string;
	event_time: number;
	/** Always a string: TikTok rejects a numeric event_id (code 40002). */
	event_id: string;
	user: TiktokUser;
	page?: { url: string; referrer?: string };
	properties?: { value: number; currency: string };
	/** CRM events only. */
	lead?: { lead_id?: string; lead_event_source?: string };
	limited_data_use: boolean;
}

type UserKey = keyof TiktokUser;

/** Our identity fields → TikTok's user keys, in the order match keys are reported. */
const LIST_KEYS: [IdentityField, 'email' | 'phone' | 'external_id'][] = [
	['email', 'email'],
	['phone', 'phone'],
	['external_id', 'external_id'],
];
/** Keys TikTok takes as one string: the first value is sent. */
const SINGLE_KEYS: [IdentityField, Exclude<UserKey, 'email' | 'phone' | 'external_id'>][] = [
	['first_name', 'first_name'],
	['last_name', 'last_name'],
	['postal_code', 'zip_code'],
	['city', 'city'],
	['region', 'state'],
	['country', 'country'],
	['ttclid', 'ttclid'],
	['ttp', 'ttp'],
	['ip', 'ip'],
	['user_agent', 'user_agent'],
];

/**
 * Our choice, not a documented TikTok rule: an event goes out only with something TikTok can tie
 * to a person: an email, phone, external ID, click ID (ttclid), browser cookie (_ttp), or IP
 * address together with user agent (CRM events: also a TikTok lead ID). Names, postal code and
 * geography alone match nobody.
 */
const IDENTIFYING_KEYS: readonly UserKey[] = ['email', 'phone', 'external_id', 'ttclid', 'ttp'];

function hasIdentifyingKeys(user: TiktokUser): boolean {
	return (
		IDENTIFYING_KEYS.some((key) => user[key] !== undefined) || Boolean(user.ip && user.user_agent)
	);
}

/** TikTok's user object exactly as sent, and the user keys present. */
export function tiktokUserData(user: PlatformIdentity): PlatformUserData & { data: TiktokUser } {
	const data: TiktokUser = {};
	const matchKeys: string[] = [];
	for (let i = 0; i < LIST_KEYS.length; i++) {
		const field = LIST_KEYS[i][0];
		const key = LIST_KEYS[i][1];
		const values = user.values[field];
		if (!values || values.length === 0) continue;
		data[key] = [...values];
		matchKeys.push(key);
	}
	for (let i = 0; i < SINGLE_KEYS.length; i++) {
		const field = SINGLE_KEYS[i][0];
		const key = SINGLE_KEYS[i][1];
		const values = user.values[field];
		if (!values || values.length === 0) continue;
		data[key] = values[0];
		matchKeys.push(key);
	}
	return { data, matchKeys };
}

/** Warnings for single-valued fields that had several values (only the first is sent). */
function extraValueWarnings(user: PlatformIdentity): string[] {
	const warnings: string[] = [];
	for (let i = 0; i < SINGLE_KEYS.length; i++) {
		const field = SINGLE_KEYS[i][0];
		const key = SINGLE_KEYS[i][1];
		const count = user.values[field]?.length ?? 0;
		if (count > 1) warnings.push(`${field}: TikTok takes one ${key}; sent the first of ${count}`);
	}
	return warnings;
}

/**
 * The TikTok lead ID of a CRM lead: `attributes.tiktok_lead_id`, as a string. TikTok lead IDs
 * have up to 19 digits; as a JSON number beyond 2^53 one has already lost digits, so it is not
 * sent and a warning asks for a string.
 */
export function readTiktokLeadId(record: LeadRecord): { value?: string; warning?: string } {
	const raw = record.attributes?.[TIKTOK_LEAD_ID_ATTRIBUTE];
	if (typeof raw === 'number') {
		return Number.isSafeInteger(raw) && raw > 0
			? { value: String(raw) }
			: {
					warning: `attributes.${TIKTOK_LEAD_ID_ATTRIBUTE}: a number too large to be exact; pass the lead ID as a string. Not sent`,
				};
	}
	if (typeof raw !== 'string') return {};
	const text = raw.trim();
	return text === '' ? {} : { value: text };
}

/**
 * limited_data_use. Auto: the lead's own consent flag, or a lead in California, US (as for Meta's
 * LDU; TikTok documents the flag, not who needs it); Always / Never: as chosen.
 */
export function tiktokLimitedDataUse(context: BuildContext, config: TiktokConfig): boolean {
	return limitedDataUseFor(context.event, config.limitedDataUse);
}

export function buildTiktokEvent(
	context: BuildContext,
	config: TiktokConfig,
): BuildOutcome<TiktokEvent> {
	const { record, event: leadContext, user } = context;
	const warnings = [...user.warnings, ...extraValueWarnings(user)];
	const { data: userData, matchKeys } = tiktokUserData(user);

	const denied = consentDeniedSkip(leadContext, 'skip');
	if (denied) return { ok: false, status: 'skipped', reason: denied, matchKeys, warnings };

	const crm = config.eventSource === 'crm';
	const leadIdRead = crm ? readTiktokLeadId(record) : {};
	if (leadIdRead.warning) warnings.push(leadIdRead.warning);
	const leadId = leadIdRead.value;
	if (!hasIdentifyingKeys(userData) && !leadId) {
		const found = matchKeys.length ? `only ${matchKeys.join(', ')}` : 'no customer information';
		return {
			ok: false,
			status: 'failed',
			reason: `nothing TikTok can match this lead with (${found}): add an email, phone, external ID, ttclid, _ttp cookie or IP address + user agent${crm ? `, or attributes.${TIKTOK_LEAD_ID_ATTRIBUTE}` : ''}`,
			matchKeys,
			warnings,
		};
	}

	const { pageUrl, referrer } = leadContext;
	const page = pageUrl ? { url: pageUrl, ...(referrer ? { referrer } : {}) } : undefined;

	const value = leadContext.value;
	warnings.push(...value.warnings);
	const properties =
		value.amount !== undefined && value.currency !== undefined
			? { value: value.amount, currency: value.currency }
			: undefined;
	if (!properties && context.eventName === 'Purchase') {
		// TikTok records a Purchase without value (unlike Meta, which refuses it); the value is
		// never guessed, so the event goes out and says what is missing.
		warnings.push(
			`Purchase ${value.absence ?? ''}: TikTok records it but cannot report its value`,
		);
	}

	const leadEventSource = crm ? config.leadEventSource?.trim() : undefined;
	const lead =
		leadId || leadEventSource
			? {
					...(leadId ? { lead_id: leadId } : {}),
					...(leadEventSource ? { lead_event_source: leadEventSource } : {}),
				}
			: undefined;

	// In the order of TikTok's documented shape, which is what dry runs show.
	const event: TiktokEvent = {
		event: context.eventName,
		event_time: context.eventTime,
		event_id: String(context.eventId),
		user: userData,
		...(page ? { page } : {}),
		...(properties ? { properties } : {}),
		...(lead ? { lead } : {}),
		limited_data_use: tiktokLimitedDataUse(context, config),
	};
	return { ok: true, payload: event, matchKeys, warnings };
}
