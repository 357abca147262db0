import type { BuildContext, BuildOutcome } from '../contract';
import { readLeadConsent, type ValueReading } from '../../events/consent';
import type { PlatformIdentity } from '../../identity';
import type { LeadRecord } from '../../types';
import type { GoogleAdsConfig } from './config';
import {
	GOOGLE_EVENT_BY_STATE,
	GOOGLE_MAX_USER_IDENTIFIERS,
	GOOGLE_WITHHELD_SKIP_REASON,
	googleUserDataGate,
	googleWithheldWarning,
	isGooglePartialEvent,
	partialLeadSkip,
	type GoogleConsentStatus,
	type GoogleUserDataGate,
} from './constants';
import { formatConversionDateTime } from './time';

/** One UserIdentifier: a oneof, so exactly one hashed value per entry. */
export type GoogleUserIdentifier = { hashedEmail: string } | { hashedPhoneNumber: string };

/** The part of a ClickConversion that says who converted: one click id and user identifiers. */
export interface GoogleUserData {
	gclid?: string;
	gbraid?: string;
	wbraid?: string;
	userIdentifiers?: GoogleUserIdentifier[];
}

/** A ClickConversion as uploadClickConversions' `conversions[]` takes it (REST, lowerCamelCase). */
export interface GoogleClickConversion extends GoogleUserData {
	conversionAction: string;
	conversionDateTime: string;
	/** Our event id: deterministic, 64 hex, no PII; Google dedups on it per conversion action. */
	orderId: string;
	conversionValue?: number;
	currencyCode?: string;
	consent?: { adUserData: GoogleConsentStatus };
}

/** Google takes one click id per conversion: gclid first, then gbraid, then wbraid. */
const CLICK_ID_ORDER = ['gclid', 'gbraid', 'wbraid'] as const;

interface GoogleIdentity {
	data: GoogleUserData;
	matchKeys: string[];
	warnings: string[];
}

/**
 * The user data exactly as sent: one click id, and (unless the lead denied ad_user_data) up to
 * five hashed identifiers, emails first, one per entry. Values come from the identity rendered
 * with Google's profile (E.164 phone, gmail dots removed, SHA-256 hex): nothing is normalized
 * or hashed again here.
 */
function googleIdentity(user: PlatformIdentity, gate: GoogleUserDataGate): GoogleIdentity {
	const data: GoogleUserData = {};
	const matchKeys: string[] = [];
	const warnings: string[] = [];

	const present = CLICK_ID_ORDER.filter((key) => user.values[key]?.[0]);
	if (present.length > 0) {
		const chosen = present[0];
		data[chosen] = user.values[chosen]![0];
		matchKeys.push(chosen);
		for (const dropped of present.slice(1)) {
			warnings.push(
				`click.${dropped}: not sent; Google takes one click id per conversion and ${chosen} comes first`,
			);
		}
	}

	const emails = user.values.email ?? [];
	const phones = user.values.phone ?? [];
	if (gate !== 'send') {
		if (emails.length + phones.length > 0)
			warnings.push(googleWithheldWarning(gate, 'email and phone'));
		return { data, matchKeys, warnings };
	}
	const identifiers: GoogleUserIdentifier[] = [];
	for (const hashedEmail of emails) {
		if (identifiers.length < GOOGLE_MAX_USER_IDENTIFIERS) identifiers.push({ hashedEmail });
	}
	const emailsSent = identifiers.length;
	for (const hashedPhoneNumber of phones) {
		if (identifiers.length < GOOGLE_MAX_USER_IDENTIFIERS) identifiers.push({ hashedPhoneNumber });
	}
	const phonesSent = identifiers.length - emailsSent;
	if (emailsSent < emails.length) {
		warnings.push(
			`contact.email: ${emails.length - emailsSent} of ${emails.length} values not sent; Google takes at most ${GOOGLE_MAX_USER_IDENTIFIERS} user identifiers (emails first)`,
		);
	}
	if (phonesSent < phones.length) {
		warnings.push(
			`contact.phone: ${phones.length - phonesSent} of ${phones.length} values not sent; Google takes at most ${GOOGLE_MAX_USER_IDENTIFIERS} user identifiers (emails first)`,
		);
	}
	if (identifiers.length > 0) {
		data.userIdentifiers = identifiers;
		if (emailsSent > 0) matchKeys.push('hashedEmail');
		if (phonesSent > 0) matchKeys.push('hashedPhoneNumber');
	}
	return { data, matchKeys, warnings };
}

/**
 * The Identity Normalizer's view: what a ClickConversion for this lead says about the person,
 * and what was left out of it and why.
 */
export function googleUserData(
	user: PlatformIdentity,
	record: LeadRecord,
): { data: GoogleUserData; matchKeys: string[]; warnings: string[] } {
	return googleIdentity(user, googleUserDataGate(readLeadConsent(record)));
}

/**
 * The lead's value and currency when both are known (for either Google API); otherwise
 * undefined, with a warning for a purchase: values are never guessed.
 */
export function conversionValueOf(
	value: ValueReading,
	eventName: string,
	warnings: string[],
): { amount: number; currency: string } | undefined {
	warnings.push(...value.warnings);
	if (value.amount !== undefined && value.currency !== undefined) {
		return { amount: value.amount, currency: value.currency };
	}
	if (eventName === GOOGLE_EVENT_BY_STATE.purchase) {
		warnings.push(
			`purchase ${value.absence ?? ''}: Google counts the conversion action's default value (value and currency are never guessed)`,
		);
	}
	return undefined;
}

export function buildGoogleClickConversion(
	context: BuildContext,
	config: GoogleAdsConfig,
): BuildOutcome<GoogleClickConversion> {
	const { event: lead, user } = context;
	const adUserData = lead.consent.adUserData;
	const gate = googleUserDataGate(lead.consent);
	const identity = googleIdentity(user, gate);
	const { data, matchKeys } = identity;
	const warnings = [...user.warnings, ...identity.warnings];
	const partial = isGooglePartialEvent(context.eventName);
	const skip = partialLeadSkip<GoogleClickConversion>(partial, config.partialConversionAction, matchKeys, warnings);
	if (skip) return skip;

	const hasClickId = Boolean(data.gclid || data.gbraid || data.wbraid);
	if (!hasClickId && !data.userIdentifiers) {
		const withheldContact =
			gate !== 'send' && Boolean(user.values.email?.length || user.values.phone?.length);
		return {
			ok: false,
			status: 'skipped',
			reason:
				gate !== 'send' && withheldContact
					? GOOGLE_WITHHELD_SKIP_REASON[gate]
					: 'nothing Google can match: no click id (gclid, gbraid or wbraid) and no valid email or phone',
			matchKeys,
			warnings,
		};
	}

	const conversion: GoogleClickConversion = {
		conversionAction:
			partial && config.partialConversionAction
				? config.partialConversionAction
				: config.conversionAction,
		conversionDateTime: formatConversionDateTime(context.eventTime, config.timeZone),
		orderId: context.eventId,
		...data,
	};

	const value = conversionValueOf(lead.value, context.eventName, warnings);
	if (value) {
		conversion.conversionValue = value.amount;
		conversion.currencyCode = value.currency;
	}

	if (adUserData)
		conversion.consent = { adUserData: adUserData === 'granted' ? 'GRANTED' : 'DENIED' };

	return { ok: true, payload: conversion, matchKeys, warnings };
}
