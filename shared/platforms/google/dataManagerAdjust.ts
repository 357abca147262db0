import type { PlatformAdapter } from '../../dispatch/types';
import { deriveEventId, readRecordId, readValue } from '../../events';
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
 * The adjustment window is UNCONFIRMED for Data Manager (55 days in the Google Ads API documents):
 * nothing is refused locally for age; Google's own answer is reported.
 */
export type DataManagerAdjustment = 'restatement' | 'retraction';

export const RETRACTION_UNSUPPORTED =
	"retraction not sent: Google's Data Manager API does not support retracting conversions (its upgrade guide); remove the conversion in Google Ads, or use the Google Ads API with an allow-listed developer token";

/**
 * The name an adjustment is deduplicated under: once per lead, original stage and value (a
 * second "won for $1,200" is a duplicate, "won for $1,500" is a new restatement).
 */
export function adjustmentEventName(
	adjustment: DataManagerAdjustment,
	originalEvent: string,
	value: { amount?: unknown; currency?: unknown } | undefined,
): string {
	const read = readValue(value);
	const amount = read.amount === undefined ? 'none' : String(read.amount);
	return `${adjustment}:${originalEvent}:${amount}${read.currency ? `:${read.currency}` : ''}`;
}

/**
 * The adapter for restatements of `originalEvent` conversions: event ids (and dedup keys) per
 * lead, stage and value; the transaction id sent is the original event's id, so Google adjusts
 * the conversion it already has. `lastUpdatedTimestamp` is the time of the adjustment, so
 * adjustments only move forward.
 */
export function dataManagerRestatementAdapter(
	base: PlatformAdapter<GoogleDataManagerConfig, DataManagerEvent>,
	originalEvent: string,
	now: () => number = Date.now,
	clientKey?: string,
): PlatformAdapter<GoogleDataManagerConfig, DataManagerEvent> {
	return {
		...base,
		buildEvent(context, config) {
			const recordId = readRecordId(context.record.record_id);
			const value = readValue(context.record.value);
			if (!recordId || value.amount === undefined || value.currency === undefined) {
				return {
					ok: false,
					status: 'skipped',
					reason: recordId
						? 'a restatement needs value.amount and value.currency (the new value of the conversion)'
						: 'a restatement needs the record_id the original conversion was sent with',
					matchKeys: [],
					warnings: value.warnings,
				};
			}
			const built = buildDataManagerEvent(context, config);
			if (!built.ok) return built;
			const transactionId = deriveEventId(
				dataManagerDestinationId(config),
				originalEvent,
				recordId,
				clientKey,
			);
			const payload: DataManagerEvent = {
				...built.payload,
				transactionId,
				lastUpdatedTimestamp: new Date(now()).toISOString(),
				conversionValue: value.amount,
				currency: value.currency,
			};
			return { ...built, payload };
		},
	};
}
