import { consentDeniedSkip, limitedDataUseFor } from '../../events/context';
import type { BuildContext, BuildOutcome } from '../contract';
import type { IdentityField, PlatformIdentity } from '../../identity';
import {
	META_LDU_COUNTRY_US,
	META_LDU_STATE_CALIFORNIA,
	type MetaActionSource,
} from './constants';
import type { MetaConfig } from './config';

/** A server event as Meta's `data[]` takes it. */
export interface MetaServerEvent {
	event_name: string;
	event_time: number;
	event_id: string;
	action_source: MetaActionSource;
	user_data: Record<string, string | string[]>;
	event_source_url?: string;
	referrer_url?: string;
	custom_data?: Record<string, unknown>;
	opt_out?: boolean;
	data_processing_options?: string[];
	data_processing_options_country?: number;
	data_processing_options_state?: number;
}

/** Our identity fields → Meta's user_data keys. Hashing is decided by the identity profile. */
const USER_DATA_KEYS: [IdentityField, string][] = [
	['email', 'em'],
	['phone', 'ph'],
	['first_name', 'fn'],
	['last_name', 'ln'],
	['date_of_birth', 'db'],
	['gender', 'ge'],
	['city', 'ct'],
	['region', 'st'],
	['postal_code', 'zp'],
	['country', 'country'],
	['external_id', 'external_id'],
	['ip', 'client_ip_address'],
	['user_agent', 'client_user_agent'],
	['fbc', 'fbc'],
	['fbp', 'fbp'],
];
/** Fields Meta takes as one plain string. */
const SINGLE_VALUED = new Set(['client_ip_address', 'client_user_agent', 'fbc', 'fbp']);

/**
 * Since Graph v13 an event is invalid when its customer information is only (a subset of) one
 * of these combinations; Meta would reject the whole batch, so such events fail on their own.
 */
const INSUFFICIENT_COMBINATIONS: string[][] = [
	['ct', 'country', 'st', 'zp', 'ge', 'client_user_agent'],
	['db', 'client_user_agent'],
	['fn', 'ge'],
	['ln', 'ge'],
];

/** Meta's user_data: hashed fields as a string, or an array when there are several values. */
export function metaUserData(user: PlatformIdentity): {
	data: Record<string, string | string[]>;
	matchKeys: string[];
} {
	const data: Record<string, string | string[]> = {};
	for (let i = 0; i < USER_DATA_KEYS.length; i++) {
		const field = USER_DATA_KEYS[i][0];
		const key = USER_DATA_KEYS[i][1];
		const values = user.values[field];
		if (!values || values.length === 0) continue;
		data[key] = SINGLE_VALUED.has(key) || values.length === 1 ? values[0] : values;
	}
	return { data, matchKeys: Object.keys(data) };
}

export function buildMetaEvent(
	context: BuildContext,
	config: MetaConfig,
): BuildOutcome<MetaServerEvent> {
	const { event: lead, user } = context;
	const warnings = [...user.warnings];
	const { data: userData, matchKeys } = metaUserData(user);

	const denied = consentDeniedSkip(lead, 'skip');
	if (denied) return { ok: false, status: 'skipped', reason: denied, matchKeys, warnings };
	if (matchKeys.length === 0) {
		return {
			ok: false,
			status: 'failed',
			reason:
				'no customer information Meta can match (email, phone, name, fbc/fbp, IP + user agent, external id…)',
			matchKeys,
			warnings,
		};
	}
	const insufficient = INSUFFICIENT_COMBINATIONS.find((combo) =>
		matchKeys.every((key) => combo.includes(key)),
	);
	if (insufficient) {
		return {
			ok: false,
			status: 'failed',
			reason: `not enough customer information for Meta: only ${matchKeys.join(', ')} (Meta rejects events whose customer information is only a subset of ${insufficient.join(' + ')}); add an email, phone, fbc/fbp, IP address or external id`,
			matchKeys,
			warnings,
		};
	}

	const pageUrl = lead.pageUrl;
	const hasUserAgent = Boolean(userData.client_user_agent);
	let actionSource: MetaActionSource;
	if (config.actionSource === 'auto') {
		actionSource = pageUrl && hasUserAgent ? 'website' : 'system_generated';
	} else {
		actionSource = config.actionSource;
	}
	if (actionSource === 'website' && (!pageUrl || !hasUserAgent)) {
		const missing = [!pageUrl && 'source.page_url', !hasUserAgent && 'client.user_agent']
			.filter(Boolean)
			.join(' and ');
		return {
			ok: false,
			status: 'failed',
			reason: `Meta requires event_source_url and client_user_agent for website events; this lead has no ${missing}. Use Action Source "Auto" or "System Generated" for leads without browser context.`,
			matchKeys,
			warnings,
		};
	}

	const event: MetaServerEvent = {
		event_name: context.eventName,
		event_time: context.eventTime,
		event_id: context.eventId,
		action_source: actionSource,
		user_data: userData,
	};
	if (pageUrl) event.event_source_url = pageUrl;
	if (lead.referrer) event.referrer_url = lead.referrer;

	const value = lead.value;
	warnings.push(...value.warnings);
	if (value.amount !== undefined && value.currency !== undefined) {
		event.custom_data = { value: value.amount, currency: value.currency };
	} else if (context.eventName === 'Purchase') {
		return {
			ok: false,
			status: 'failed',
			reason: `Purchase ${value.absence ?? ''}: Meta requires value.amount and value.currency (never guessed)`,
			matchKeys,
			warnings,
		};
	}

	if (lead.consent.adPersonalization === 'denied') event.opt_out = true;

	const california = config.limitedDataUse !== 'never' && lead.california;
	if (config.limitedDataUse === 'never') {
		event.data_processing_options = [];
	} else if (limitedDataUseFor(lead, config.limitedDataUse)) {
		event.data_processing_options = ['LDU'];
		// 1/1000 = USA/California; 0/0 = let Meta geolocate from the IP address.
		event.data_processing_options_country = california ? META_LDU_COUNTRY_US : 0;
		event.data_processing_options_state = california ? META_LDU_STATE_CALIFORNIA : 0;
	}

	return { ok: true, payload: event, matchKeys, warnings };
}
