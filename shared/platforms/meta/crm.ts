import type { BuildContext, BuildOutcome } from '../contract';
import { consentDeniedSkip } from '../../events/context';
import type { LeadRecord } from '../../types';
import type { MetaConfig } from './config';
import {
	META_CRM_EVENT_SOURCE,
	META_LEAD_ID_ATTRIBUTE,
	META_LEAD_ID_PATTERN,
} from './constants';
import { metaUserData, type MetaServerEvent } from './payload';

/**
 * Meta's Conversion Leads ("Conversions API for CRM") events, per the payload specification
 * (docs/platforms/meta-conversion-leads.md): the CRM stage as event_name, action_source
 * system_generated, custom_data.event_source = crm and lead_event_source = the CRM's name,
 * user_data.lead_id (Meta's 15–17 digit lead id) first, hashed email / phone as the fallback.
 * Its event time is the dispatch's (shared/dispatch/plan.ts): `stage_at`, never rewritten, an
 * over-age event `expired` there — the adapter's `stageTimed` says every CRM event is timed so.
 */

/** Customer information that matches a CRM event without a lead id, in Meta's priority order. */
const CRM_FALLBACK_KEYS = ['fbc', 'em', 'ph', 'external_id'];

/**
 * Meta's lead id of a record: `attributes.meta_lead_id`, 15–17 digits. Sent as a string of
 * digits: a 17-digit id is beyond JavaScript's exact integers, so a JSON number would be changed.
 */
export function readMetaLeadId(record: LeadRecord): { value?: string; warning?: string } {
	const raw = record.attributes?.[META_LEAD_ID_ATTRIBUTE];
	if (raw === undefined || raw === null || raw === '') return {};
	if (typeof raw === 'number' && !Number.isSafeInteger(raw)) {
		return {
			warning: `attributes.${META_LEAD_ID_ATTRIBUTE}: a number too large to be exact; pass Meta's lead id as a string. Not sent`,
		};
	}
	const text = typeof raw === 'number' || typeof raw === 'string' ? String(raw).trim() : '';
	if (!META_LEAD_ID_PATTERN.test(text)) {
		return {
			warning: `attributes.${META_LEAD_ID_ATTRIBUTE}: not a Meta lead id (15 to 17 digits, the leadgen_id of the lead); not sent, as Meta rejects invalid lead ids`,
		};
	}
	return { value: text };
}

/**
 * The lead id a CRM event carries: the record's own (`attributes.meta_lead_id`), else the one the
 * stage ledger kept for this lead (`id:lead_id`, from an earlier event of the lead — the ledger
 * entry the dispatch already read, no extra round trip), when it is a valid Meta lead id.
 */
function leadIdOf(context: BuildContext): { value?: string; warning?: string } {
	const own = readMetaLeadId(context.record);
	if (own.value || own.warning) return own;
	const kept = context.ledger?.ids.lead_id?.trim();
	return kept && META_LEAD_ID_PATTERN.test(kept) ? { value: kept } : {};
}

/** The stage of a record (`stage`), as the event name of a CRM event. */
export function readStageName(record: LeadRecord): string | undefined {
	const raw = record.stage;
	if (typeof raw !== 'string') return undefined;
	const text = raw.trim();
	return text === '' ? undefined : text;
}

function refuse(
	status: 'skipped' | 'failed',
	reason: string,
	matchKeys: string[],
	warnings: string[],
): BuildOutcome<MetaServerEvent> {
	return { ok: false, status, reason, matchKeys, warnings };
}

export function buildMetaCrmEvent(
	context: BuildContext,
	config: MetaConfig,
): BuildOutcome<MetaServerEvent> {
	const warnings = [...context.user.warnings];
	const { data, matchKeys } = metaUserData(context.user);
	const denied = consentDeniedSkip(context.event, 'skip');
	if (denied) return refuse('skipped', denied, matchKeys, warnings);
	const leadEventSource = config.leadEventSource?.trim();
	if (!leadEventSource) {
		return refuse(
			'failed',
			'CRM events need the Lead Event Source (the name of your CRM)',
			matchKeys,
			warnings,
		);
	}
	const leadId = leadIdOf(context);
	if (leadId.warning) warnings.push(leadId.warning);
	const userData: Record<string, string | string[]> = leadId.value
		? { lead_id: leadId.value, ...data }
		: data;
	const keys = Object.keys(userData);
	if (!leadId.value && !CRM_FALLBACK_KEYS.some((key) => key in userData)) {
		return refuse(
			'failed',
			`nothing Meta can match this CRM event with: no attributes.${META_LEAD_ID_ATTRIBUTE} (Meta's lead id) and no email, phone, fbc or external id`,
			keys,
			warnings,
		);
	}
	const customData: Record<string, unknown> = {
		event_source: META_CRM_EVENT_SOURCE,
		lead_event_source: leadEventSource,
	};
	const { value } = context.event;
	warnings.push(...value.warnings);
	if (value.amount !== undefined && value.currency !== undefined) {
		customData.value = value.amount;
		customData.currency = value.currency;
	}
	const event: MetaServerEvent = {
		event_name: context.eventName,
		// Timed by the dispatch's one rule (plan.ts, stageTimed): stage_at, never rewritten.
		event_time: context.eventTime,
		event_id: context.eventId,
		action_source: 'system_generated',
		user_data: userData,
		custom_data: customData,
	};
	if (context.event.consent.adPersonalization === 'denied') event.opt_out = true;
	return { ok: true, payload: event, matchKeys: keys, warnings };
}
