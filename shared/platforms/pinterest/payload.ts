import { consentDeniedSkip, limitedDataUseFor } from '../../events/context';
import type { BuildContext, BuildOutcome } from '../contract';
import type { IdentityField, PlatformIdentity } from '../../identity';
import { PINTEREST_LDP, type PinterestActionSource, type PinterestEventName } from './constants';
import type { PinterestConfig } from './config';
import { pinterestWireName } from './names';

/** `custom_data` keys we send; the spec allows no others (`additionalProperties: false`). */
export interface PinterestCustomData {
	/** A decimal string: Pinterest parses it into a double. */
	value?: string;
	/** ISO 4217. */
	currency?: string;
	/** The label of a custom event (`partial_lead`, `contact`, `schedule`, or your own). */
	content_name?: string;
	/** `LDP` for Limited Data Processing. */
	opt_out_type?: string;
}

/** One event of Pinterest's `data[]`. */
export interface PinterestEvent {
	event_name: PinterestEventName;
	action_source: PinterestActionSource;
	event_time: number;
	event_id: string;
	user_data: Record<string, string | string[]>;
	event_source_url?: string;
	opt_out?: boolean;
	custom_data?: PinterestCustomData;
}

/**
 * Our identity fields → Pinterest's user_data keys. Hashing is decided by the identity profile;
 * every hashed key is an array of SHA-256 hex, the clear ones are single strings.
 */
const USER_DATA_KEYS: [IdentityField, string][] = [
	['email', 'em'],
	['phone', 'ph'],
	['first_name', 'fn'],
	['last_name', 'ln'],
	['gender', 'ge'],
	['date_of_birth', 'db'],
	['city', 'ct'],
	['region', 'st'],
	['postal_code', 'zp'],
	['country', 'country'],
	['external_id', 'external_id'],
	['ip', 'client_ip_address'],
	['user_agent', 'client_user_agent'],
	['epik', 'click_id'],
];
const SINGLE_VALUED = new Set(['client_ip_address', 'client_user_agent', 'click_id']);

/** Pinterest's user_data: hashed fields as arrays, IP, user agent and the epik click id in clear. */
export function pinterestUserData(user: PlatformIdentity): {
	data: Record<string, string | string[]>;
	matchKeys: string[];
} {
	const data: Record<string, string | string[]> = {};
	for (let i = 0; i < USER_DATA_KEYS.length; i++) {
		const field = USER_DATA_KEYS[i][0];
		const key = USER_DATA_KEYS[i][1];
		const values = user.values[field];
		if (!values || values.length === 0) continue;
		data[key] = SINGLE_VALUED.has(key) ? values[0] : [...values];
	}
	return { data, matchKeys: Object.keys(data) };
}

/**
 * Pinterest's own minimum (the spec's `anyOf` on user_data): an email, or hashed mobile ad ids,
 * or both the IP address and the user agent. The lead record carries no mobile ad ids.
 */
function hasRequiredIdentity(userData: Record<string, unknown>): boolean {
	return (
		userData.em !== undefined ||
		userData.hashed_maids !== undefined ||
		(userData.client_ip_address !== undefined && userData.client_user_agent !== undefined)
	);
}

export function buildPinterestEvent(
	context: BuildContext,
	config: PinterestConfig,
): BuildOutcome<PinterestEvent> {
	const { event: lead, user } = context;
	const warnings = [...user.warnings];
	const { data: userData, matchKeys } = pinterestUserData(user);
	const refuse = (status: 'skipped' | 'failed', reason: string): BuildOutcome<PinterestEvent> => ({
		ok: false,
		status,
		reason,
		matchKeys,
		warnings,
	});

	const denied = consentDeniedSkip(lead, 'skip');
	if (denied) return refuse('skipped', denied);
	if (!hasRequiredIdentity(userData)) {
		const has = matchKeys.length
			? `only ${matchKeys.join(', ')}`
			: 'no customer information Pinterest can match';
		return refuse(
			'skipped',
			`Pinterest needs an email, or both the IP address and the user agent, to accept an event; this lead has ${has}. Not sent (Pinterest would reject it).`,
		);
	}
	const wire = pinterestWireName(context.eventName);
	if (!wire) {
		return refuse(
			'failed',
			`"${context.eventName}" is not a Pinterest event name: use lead, signup, checkout, subscribe… or a custom event (custom:<label>)`,
		);
	}

	const pageUrl = lead.pageUrl;
	const actionSource: PinterestActionSource =
		config.actionSource === 'auto'
			? pageUrl && userData.client_user_agent
				? 'web'
				: 'offline'
			: config.actionSource;

	const event: PinterestEvent = {
		event_name: wire.eventName,
		action_source: actionSource,
		event_time: context.eventTime,
		event_id: context.eventId,
		user_data: userData,
	};
	if (pageUrl) event.event_source_url = pageUrl;
	if (lead.consent.adPersonalization === 'denied') event.opt_out = true;

	const customData: PinterestCustomData = {};
	const value = lead.value;
	warnings.push(...value.warnings);
	if (value.amount !== undefined && value.currency !== undefined) {
		customData.value = String(value.amount);
		customData.currency = value.currency;
	} else if (wire.eventName === 'checkout') {
		warnings.push(
			`checkout sent ${value.absence ?? ''}: Pinterest reports no revenue for it (values are never guessed)`,
		);
	}
	if (wire.label) customData.content_name = wire.label;
	if (limitedDataUseFor(lead, config.limitedDataProcessing))
		customData.opt_out_type = PINTEREST_LDP;
	if (Object.keys(customData).length > 0) event.custom_data = customData;

	return { ok: true, payload: event, matchKeys, warnings };
}
