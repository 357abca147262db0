import type {
	BuildContext,
	BuildOutcome,
	PlatformAdapter,
	SendOutcome,
} from '../contract';
import { deriveEventId, readRecordId, readValue } from '../../events';
import type { HttpRequest, Transport } from '../../transport';
import type { GoogleAdsConfig } from './config';
import {
	GOOGLE_ADJUSTMENT_TIME_WINDOW,
	GOOGLE_ADJUSTMENT_WINDOW_SECONDS,
	GOOGLE_EVENT_BY_STATE,
	GOOGLE_MAX_CONVERSIONS_PER_REQUEST,
	GOOGLE_REQUEST_TIMEOUT_MS, GOOGLE_RESEND_DEDUP } from './constants';
import { classifyAdjustmentRowError } from './errors';
import { googleIdentity } from './identity';
import { googleUserData } from './payload';
import { googleAdsApiRoot, googleAdsHeaders, sendGoogleUpload, type UploadReading } from './sender';
import { formatConversionDateTime } from './time';

/**
 * Conversion adjustments (docs/platforms/google-data-manager.md §7): a RETRACTION removes a
 * conversion (lead lost or refunded), a RESTATEMENT changes its value (won for a new amount).
 * Both identify the original by the transaction (order) id it was sent with: the event id of the
 * original event, derived from the destination, that event's name and the lead's record id.
 */
export type GoogleAdjustment = 'restatement' | 'retraction';

/** ConversionAdjustment as uploadConversionAdjustments' `conversionAdjustments[]` takes it. */
export interface GoogleConversionAdjustment {
	conversionAction: string;
	/** The order id of the original conversion: our event id of the original event. */
	orderId: string;
	adjustmentType: 'RETRACTION' | 'RESTATEMENT';
	/** `yyyy-mm-dd hh:mm:ss+hh:mm` in the account's time zone, after the conversion's time. */
	adjustmentDateTime: string;
	/** Required for restatements, refused for retractions (ConversionAdjustment.restatement_value). */
	restatementValue?: { adjustedValue: number; currencyCode: string };
}

/**
 * The name an adjustment is deduplicated under: a retraction once per lead and original event;
 * a restatement once per lead, original event and value (a second "won for $1,200" is a
 * duplicate, "won for $1,500" is a new restatement).
 */
export function adjustmentEventName(
	adjustment: GoogleAdjustment,
	originalEvent: string,
	value: { amount?: unknown; currency?: unknown } | undefined,
): string {
	if (adjustment === 'retraction') return `retraction:${originalEvent}`;
	const read = readValue(value);
	const amount = read.amount === undefined ? 'none' : String(read.amount);
	return `${adjustment}:${originalEvent}:${amount}${read.currency ? `:${read.currency}` : ''}`;
}

const DAY_SECONDS = 86_400;

/**
 * Why an adjustment is refused before anything is sent, or null: Google takes adjustments of
 * conversions at most 54 days old (CONVERSION_EXPIRED), and a restatement needs the new value.
 * `context.eventTime` is the original conversion's time (the node's Conversion Time, else the
 * lead's occurred_at).
 */
export function adjustmentRefusal(
	context: BuildContext,
	adjustment: GoogleAdjustment,
	nowMs: number,
): string | null {
	const ageSeconds = Math.floor(nowMs / 1000) - context.eventTime;
	if (ageSeconds > GOOGLE_ADJUSTMENT_WINDOW_SECONDS) {
		const days = Math.floor(ageSeconds / DAY_SECONDS);
		return `the conversion is ${days} days old: Google takes adjustments only up to ${GOOGLE_ADJUSTMENT_WINDOW_SECONDS / DAY_SECONDS} days after the conversion (CONVERSION_EXPIRED); adjust it in Google Ads instead`;
	}
	if (adjustment === 'restatement') {
		const value = context.event.value;
		if (value.amount === undefined || value.currency === undefined)
			return `a restatement ${value.absence ?? ''}: it needs value.amount and value.currency (the new value of the conversion)`;
	}
	return null;
}

/** The transaction (order) id the original event was sent with. */
export function originalTransactionId(
	destination: string,
	originalEvent: string,
	context: BuildContext,
	clientKey?: string,
): string {
	return deriveEventId(
		destination,
		originalEvent,
		readRecordId(context.record.record_id) ?? '',
		clientKey,
	);
}

/** The adjustment time: now, and always after the conversion, so adjustments only move forward. */
export function adjustmentSeconds(context: BuildContext, nowMs: number): number {
	return Math.max(Math.floor(nowMs / 1000), context.eventTime + 1);
}

function buildAdjustment(
	context: BuildContext,
	config: GoogleAdsConfig,
	adjustment: GoogleAdjustment,
	originalEvent: string,
	nowMs: number,
	clientKey?: string,
): BuildOutcome<GoogleConversionAdjustment> {
	const warnings = [...context.event.value.warnings];
	const refusal = adjustmentRefusal(context, adjustment, nowMs);
	if (refusal) return { ok: false, status: 'skipped', reason: refusal, matchKeys: [], warnings };
	const payload: GoogleConversionAdjustment = {
		conversionAction: config.conversionAction,
		orderId: originalTransactionId(config.conversionAction, originalEvent, context, clientKey),
		adjustmentType: adjustment === 'retraction' ? 'RETRACTION' : 'RESTATEMENT',
		adjustmentDateTime: formatConversionDateTime(
			adjustmentSeconds(context, nowMs),
			config.timeZone,
		),
	};
	if (adjustment === 'restatement') {
		const value = context.event.value;
		payload.restatementValue = { adjustedValue: value.amount!, currencyCode: value.currency! };
	}
	return { ok: true, payload, matchKeys: ['orderId'], warnings };
}

export function googleAdjustmentUrl(config: GoogleAdsConfig): string {
	return `${googleAdsApiRoot(config)}/customers/${config.customerId}:uploadConversionAdjustments`;
}

/** The request body: partialFailure is required and always true, as Google's guide says. */
export function googleAdjustmentBody(
	adjustments: GoogleConversionAdjustment[],
	config: GoogleAdsConfig,
): Record<string, unknown> {
	const body: Record<string, unknown> = {
		conversionAdjustments: adjustments,
		partialFailure: true,
	};
	if (config.validateOnly) body.validateOnly = true;
	return body;
}

function adjustmentRequest(
	adjustments: GoogleConversionAdjustment[],
	config: GoogleAdsConfig,
): HttpRequest {
	return {
		method: 'POST',
		url: googleAdjustmentUrl(config),
		headers: googleAdsHeaders(config),
		body: googleAdjustmentBody(adjustments, config),
		timeoutMs: GOOGLE_REQUEST_TIMEOUT_MS,
	};
}

export const ADJUSTMENT_UPLOAD_READING: UploadReading = {
	rowField: 'conversion_adjustments',
	classify: classifyAdjustmentRowError,
	duplicate: 'Google already has this adjustment (or a later one) for this conversion',
	retryLater: 'Google takes this adjustment only later; not recorded now (a later run sends it)',
	noOutcome:
		'Google Ads returned neither a result nor an error for this adjustment; a later run resends it',
};

export function sendGoogleAdjustmentChunk(
	adjustments: GoogleConversionAdjustment[],
	config: GoogleAdsConfig,
	transport: Transport,
): Promise<SendOutcome[]> {
	return sendGoogleUpload(
		adjustmentRequest(adjustments, config),
		adjustments.length,
		config,
		transport,
		ADJUSTMENT_UPLOAD_READING,
	);
}

/**
 * The adapter for adjustments through the Google Ads API (ConversionAdjustmentUploadService,
 * allow-listed developer tokens): same platform and destination as the click-conversion adapter,
 * so event ids, dedup keys and the original's order id match what was sent.
 */
export function googleAdjustmentAdapter(
	adjustment: GoogleAdjustment,
	originalEvent: string,
	now: () => number = Date.now,
	clientKey?: string,
): PlatformAdapter<GoogleAdsConfig, GoogleConversionAdjustment> {
	return {
		platform: 'google',
		identity: googleIdentity,
		eventNameByState: GOOGLE_EVENT_BY_STATE,
		maxBatchSize: GOOGLE_MAX_CONVERSIONS_PER_REQUEST,
		eventTimeWindow: GOOGLE_ADJUSTMENT_TIME_WINDOW,
		resendDedup: GOOGLE_RESEND_DEDUP,
		adjusts: true,
		destinationId: (config) => config.conversionAction,
		userData: googleUserData,
		buildEvent: (context, config) =>
			buildAdjustment(context, config, adjustment, originalEvent, now(), clientKey),
		sendChunk: sendGoogleAdjustmentChunk,
		previewRequest(adjustments, config) {
			const headers = googleAdsHeaders(config);
			delete headers['developer-token'];
			return {
				method: 'POST',
				url: googleAdjustmentUrl(config),
				...(Object.keys(headers).length ? { headers } : {}),
				body: googleAdjustmentBody(adjustments, config),
			};
		},
	};
}
