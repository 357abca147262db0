import type { BuildContext, BuildOutcome } from '../contract';
import {
	readLeadConsent,
	type ConsentSignal,
	type LeadConsentReading,
} from '../../events/consent';
import {
	hashSha256,
	isSha256Hex,
	type NormalizedIdentity,
	type PlatformIdentity,
} from '../../identity';
import type { LeadRecord } from '../../types';
import { conversionValueOf } from './payload';
import {
	GOOGLE_WITHHELD_SKIP_REASON,
	googleUserDataGate,
	googleWithheldWarning,
	isGooglePartialEvent,
	partialLeadSkip,
	type GoogleUserDataGate,
} from './constants';
import {
	DATA_MANAGER_DEFAULT_EVENT_SOURCE,
	DATA_MANAGER_MAIN_REFERENCE,
	DATA_MANAGER_PARTIAL_REFERENCE,
	DATA_MANAGER_MAX_USER_IDENTIFIERS,
	type DataManagerConsentStatus,
	type DataManagerEventSource,
	type GoogleDataManagerConfig,
} from './dataManagerConfig';

/** AddressInfo: names hashed, region code and postal code in clear (user_data.proto). */
export interface DataManagerAddress {
	givenName: string;
	familyName: string;
	regionCode: string;
	postalCode: string;
}

/** One UserIdentifier: a oneof, so exactly one of these per entry. */
export type DataManagerUserIdentifier =
	| { emailAddress: string }
	| { phoneNumber: string }
	| { address: DataManagerAddress };

export interface DataManagerUserData {
	adIdentifiers?: { gclid?: string; gbraid?: string; wbraid?: string };
	userData?: { userIdentifiers: DataManagerUserIdentifier[] };
}

/** An Event as events:ingest takes it (REST, lowerCamelCase). */
export interface DataManagerEvent extends DataManagerUserData {
	/** Our event id: deterministic, 64 hex, no PII. The same id again is an adjustment, never a duplicate. */
	transactionId: string;
	/** RFC 3339 in UTC. */
	eventTimestamp: string;
	/** Adjustments only: when the conversion was last updated (RFC 3339, UTC). */
	lastUpdatedTimestamp?: string;
	eventSource: DataManagerEventSource;
	conversionValue?: number;
	currency?: string;
	consent?: { adUserData?: DataManagerConsentStatus; adPersonalization?: DataManagerConsentStatus };
	/** Which of the request's destinations (by `reference`): set only with a partial-lead action. */
	destinationReferences?: string[];
}

const CLICK_ID_ORDER = ['gclid', 'gbraid', 'wbraid'] as const;

interface Shaped {
	data: DataManagerUserData;
	matchKeys: string[];
	warnings: string[];
}

/** One hashed value: as it arrived when it arrived hashed, else the SHA-256 of the normalized text. */
function hashedValue(
	identity: NormalizedIdentity,
	field: 'first_name' | 'last_name',
): string | undefined {
	const value = identity.values[field]?.[0];
	if (!value) return undefined;
	return identity.hashedInput[field] && isSha256Hex(value)
		? value.toLowerCase()
		: hashSha256(value);
}

/**
 * The address identifier, when the lead has all four parts Google requires: first and last
 * name (normalized by shared/identity, hashed here with its hash), country and postal code in
 * clear. Region code upper case is UNCONFIRMED (ISO-3166-1 alpha-2 codes are written so).
 */
function addressOf(
	identity: NormalizedIdentity | undefined,
): DataManagerAddress | 'hashed' | undefined {
	if (!identity) return undefined;
	const country = identity.values.country?.[0];
	const postal = identity.values.postal_code?.[0];
	const givenName = hashedValue(identity, 'first_name');
	const familyName = hashedValue(identity, 'last_name');
	if (!country || !postal || !givenName || !familyName) return undefined;
	if (identity.hashedInput.country || identity.hashedInput.postal_code) return 'hashed';
	if (!/^[a-z]{2}$/i.test(country)) return undefined;
	return { givenName, familyName, regionCode: country.toUpperCase(), postalCode: postal };
}

/**
 * The user data exactly as sent: one click id (gclid, then gbraid, then wbraid), and unless the
 * lead denied ad_user_data up to ten identifiers: emails, phones, then the address. Email and
 * phone come from the identity rendered with Google's profile (E.164, gmail dots removed, SHA-256
 * hex); nothing is normalized again here.
 */
function shapeUserData(
	user: PlatformIdentity,
	identity: NormalizedIdentity | undefined,
	gate: GoogleUserDataGate,
): Shaped {
	const data: DataManagerUserData = {};
	const matchKeys: string[] = [];
	const warnings: string[] = [];
	const present = CLICK_ID_ORDER.filter((key) => user.values[key]?.[0]);
	if (present.length > 0) {
		const chosen = present[0];
		data.adIdentifiers = { [chosen]: user.values[chosen]![0] };
		matchKeys.push(chosen);
		for (const dropped of present.slice(1)) {
			warnings.push(
				`click.${dropped}: not sent; one click id per conversion and ${chosen} comes first`,
			);
		}
	}
	const emails = user.values.email ?? [];
	const phones = user.values.phone ?? [];
	const address = addressOf(identity);
	if (gate !== 'send') {
		if (emails.length + phones.length > 0 || typeof address === 'object') {
			warnings.push(googleWithheldWarning(gate, 'email, phone and address'));
		}
		return { data, matchKeys, warnings };
	}
	if (address === 'hashed') {
		warnings.push(
			'address: not sent; Google needs country and postal code in clear, they arrived hashed',
		);
	}
	const candidates: Array<[string, DataManagerUserIdentifier]> = [
		...emails.map((emailAddress): [string, DataManagerUserIdentifier] => [
			'emailAddress',
			{ emailAddress },
		]),
		...phones.map((phoneNumber): [string, DataManagerUserIdentifier] => [
			'phoneNumber',
			{ phoneNumber },
		]),
		...(typeof address === 'object'
			? [['address', { address }] as [string, DataManagerUserIdentifier]]
			: []),
	];
	const kept = candidates.slice(0, DATA_MANAGER_MAX_USER_IDENTIFIERS);
	if (candidates.length > kept.length) {
		warnings.push(
			`user identifiers: ${candidates.length - kept.length} of ${candidates.length} not sent; Google takes at most ${DATA_MANAGER_MAX_USER_IDENTIFIERS} per event (emails, then phones, then address)`,
		);
	}
	if (kept.length > 0) {
		data.userData = { userIdentifiers: kept.map(([, identifier]) => identifier) };
		for (const [key] of kept) if (!matchKeys.includes(key)) matchKeys.push(key);
	}
	return { data, matchKeys, warnings };
}

/** The Identity Normalizer's view: what an Event for this lead says about the person. */
export function dataManagerUserData(user: PlatformIdentity, record: LeadRecord): Shaped {
	return shapeUserData(user, undefined, googleUserDataGate(readLeadConsent(record)));
}

function consentOf(consent: LeadConsentReading): DataManagerEvent['consent'] {
	const status = (signal: ConsentSignal | undefined): DataManagerConsentStatus | undefined =>
		signal === undefined ? undefined : signal === 'granted' ? 'CONSENT_GRANTED' : 'CONSENT_DENIED';
	const adUserData = status(consent.adUserData);
	const adPersonalization = status(consent.adPersonalization);
	if (!adUserData && !adPersonalization) return undefined;
	return {
		...(adUserData ? { adUserData } : {}),
		...(adPersonalization ? { adPersonalization } : {}),
	};
}

export function buildDataManagerEvent(
	context: BuildContext,
	config: GoogleDataManagerConfig,
): BuildOutcome<DataManagerEvent> {
	const { event: lead, user } = context;
	const gate = googleUserDataGate(lead.consent);
	const shaped = shapeUserData(user, context.identity, gate);
	const { data, matchKeys } = shaped;
	const warnings = [...user.warnings, ...shaped.warnings];
	const partial = isGooglePartialEvent(context.eventName);
	const skip = partialLeadSkip<DataManagerEvent>(partial, config.partialConversionActionId, matchKeys, warnings);
	if (skip) return skip;
	if (!data.adIdentifiers && !data.userData) {
		const withheldContact =
			gate !== 'send' && Boolean(user.values.email?.length || user.values.phone?.length);
		return {
			ok: false,
			status: 'skipped',
			reason:
				gate !== 'send' && withheldContact
					? GOOGLE_WITHHELD_SKIP_REASON[gate]
					: 'nothing Google can match: no click id (gclid, gbraid or wbraid) and no valid email, phone or address',
			matchKeys,
			warnings,
		};
	}
	const event: DataManagerEvent = {
		transactionId: context.eventId,
		eventTimestamp: new Date(context.eventTime * 1000).toISOString().replace('.000Z', 'Z'),
		eventSource: config.eventSource ?? DATA_MANAGER_DEFAULT_EVENT_SOURCE,
		...data,
	};
	const value = conversionValueOf(lead.value, context.eventName, warnings);
	if (value) {
		event.conversionValue = value.amount;
		event.currency = value.currency;
	}
	const consent = consentOf(lead.consent);
	if (consent) event.consent = consent;
	if (config.partialConversionActionId) {
		event.destinationReferences = [
			partial ? DATA_MANAGER_PARTIAL_REFERENCE : DATA_MANAGER_MAIN_REFERENCE,
		];
	}
	return { ok: true, payload: event, matchKeys, warnings };
}
