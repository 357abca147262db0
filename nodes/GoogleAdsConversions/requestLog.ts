import type { DedupStore, ItemResult } from '../../shared';
import {
	dataManagerRequestStats,
	dataManagerStatusStats,
	statusDestinationId,
	type DataManagerDestinationStatus,
} from '../../shared/platforms/google';

/**
 * Writes what the health report shows of Data Manager requests: the ids the sent items went out
 * in, and later the processing statuses read for them. Health data must never fail a run: a store
 * error here is ignored (the dispatch already reported the store's state).
 */
export async function recordDataManagerRequests(
	store: DedupStore | null,
	keyPrefix: string,
	results: ItemResult[],
	now = Date.now(),
): Promise<void> {
	if (!store) return;
	const hashTag = Boolean(store.hashTagKeys);
	for (const stats of dataManagerRequestStats(results, keyPrefix, now, { hashTag })) {
		try {
			await store.recordStats(stats);
		} catch {
			// see above
		}
	}
}

export async function recordDataManagerStatuses(
	store: DedupStore | null,
	keyPrefix: string,
	requestId: string,
	statuses: DataManagerDestinationStatus[],
	now = Date.now(),
): Promise<void> {
	if (!store) return;
	for (const status of statuses) {
		const destination = statusDestinationId(status.destination);
		if (!destination) continue;
		const stats = dataManagerStatusStats(
			destination,
			requestId,
			status.request_status,
			keyPrefix,
			now,
			{ hashTag: Boolean(store.hashTagKeys) },
		);
		try {
			await store.recordStats(stats);
		} catch {
			// see recordDataManagerRequests
		}
	}
}
