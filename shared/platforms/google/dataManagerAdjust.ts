import type { PlatformAdapter } from '../contract';
import {
	adjustmentRefusal,
	adjustmentSeconds,
	originalTransactionId,
	type GoogleAdjustment,
} from './adjustments';
import { GOOGLE_ADJUSTMENT_TIME_WINDOW, GOOGLE_RESEND_DEDUP } from './constants';
import type { DataManagerEvent } from './dataManagerPayload';
import { buildDataManagerEvent } from './dataManagerPayload';
import { dataManagerDestinationId, type GoogleDataManagerConfig } from './dataManagerConfig';

/**
 * Conversion adjustments through Data Manager (docs/platforms/google-data-manager.md §7):
 *  - a RESTATEMENT is the original event sent again under the original transaction id with the
 *    new value: Google treats a known transaction id with an updated value as an adjustment and
 *    returns no duplicate error;
 *  - a RETRACTION is not available: Google's upgrade guide says Data Manager does not support
 *    retracting conversions. It is refused per item, with that reason, and nothing is sent.
 * Data Manager documents no adjustment window (UNCONFIRMED): the Google Ads API's (54 days after
 * the conversion) is applied, so a restatement past it is skipped with the reason.
 */
export type DataManagerAdjustment = GoogleAdjustment;

export const RETRACTION_UNSUPPORTED =
	'retraction not sent: Google\'s Data Manager API does not support retracting conversions (its upgrade guide). Set API to "Google Ads API (Allow-Listed Developer Tokens)" to retract through ConversionAdjustmentUploadService (needs a developer token Google allow-lists for offline conversions), or remove the conversion in Google Ads';

/**
 * The adapter for restatements of `originalEvent` conversions: event ids (and dedup keys) per
 * lead, stage and value; the transaction id sent is the original event's id, so Google adjusts
 * the conversion it already has. `eventTimestamp` is the original conversion's time (the node's
 * Conversion Time, else the lead's occurred_at); `lastUpdatedTimestamp` is the time of the
 * adjustment, so adjustments only move forward.
 */
export function dataManagerRestatementAdapter(
	base: PlatformAdapter<GoogleDataManagerConfig, DataManagerEvent>,
	originalEvent: string,
	now: () => number = Date.now,
	clientKey?: string,
): PlatformAdapter<GoogleDataManagerConfig, DataManagerEvent> {
	return {
		...base,
		eventTimeWindow: GOOGLE_ADJUSTMENT_TIME_WINDOW,
		resendDedup: GOOGLE_RESEND_DEDUP,
		adjusts: true,
		buildEvent(context, config) {
			const nowMs = now();
			const value = context.event.value;
			const refusal = adjustmentRefusal(context, 'restatement', nowMs);
			if (refusal) {
				return {
					ok: false,
					status: 'skipped',
					reason: refusal,
					matchKeys: [],
					warnings: [...value.warnings],
				};
			}
			const built = buildDataManagerEvent(context, config);
			if (!built.ok) return built;
			const payload: DataManagerEvent = {
				...built.payload,
				transactionId: originalTransactionId(
					dataManagerDestinationId(config),
					originalEvent,
					context,
					clientKey,
				),
				lastUpdatedTimestamp: new Date(adjustmentSeconds(context, nowMs) * 1000).toISOString(),
				conversionValue: value.amount,
				currency: value.currency,
			};
			return { ...built, payload };
		},
	};
}
