import type { ItemResult } from '../contract';
import {
	requestIncrements,
	requestStatusIncrements,
	statsBucket,
	statsKey,
	STATS_TTL_MS,
	type StatsIncrements,
} from '../../stats';

/**
 * The health report's view of Data Manager requests (docs/platforms/google-data-manager.md §6):
 * Google accepts a request before it processes it, so each destination's report lists its last
 * request ids, their sizes and the processing status last read. Ids and counts only: no personal
 * data, no event ids.
 */

/** The request id a sent item carries (`response.request_id`), if any. */
function requestIdOf(result: ItemResult): string | undefined {
	const id = (result.response as { request_id?: unknown } | undefined)?.request_id;
	return typeof id === 'string' && id ? id : undefined;
}

/** One stats increment per destination: the requests this dispatch's sent items went out in. */
export function dataManagerRequestStats(
	results: ReadonlyArray<ItemResult>,
	prefix: string,
	nowMs: number,
	options: { hashTag?: boolean } = {},
): StatsIncrements[] {
	const byDestination = new Map<string, Map<string, number>>();
	for (const result of results) {
		const id = result.status === 'sent' ? requestIdOf(result) : undefined;
		if (!id || !result.destination) continue;
		const requests = byDestination.get(result.destination) ?? new Map<string, number>();
		requests.set(id, (requests.get(id) ?? 0) + 1);
		byDestination.set(result.destination, requests);
	}
	return [...byDestination.entries()].map(([destination, requests]) => ({
		key: statsKey(prefix, 'google', destination, statsBucket(nowMs), options),
		platform: 'google',
		destination,
		increments: requestIncrements(
			[...requests.entries()].map(([requestId, events]) => ({ requestId, events })),
			nowMs,
		),
		ttlMs: STATS_TTL_MS,
	}));
}

/** A processing status read for a request, under the destination it was sent to. */
export function dataManagerStatusStats(
	destination: string,
	requestId: string,
	status: string,
	prefix: string,
	nowMs: number,
	options: { hashTag?: boolean } = {},
): StatsIncrements {
	return {
		key: statsKey(prefix, 'google', destination, statsBucket(nowMs), options),
		platform: 'google',
		destination,
		increments: requestStatusIncrements(requestId, status),
		ttlMs: STATS_TTL_MS,
	};
}

/**
 * The destination id (as event ids and stats use it) of a Destination Google echoes in a request
 * status: `customers/<operating account>/conversionActions/<product destination id>`.
 */
export function statusDestinationId(destination: unknown): string | undefined {
	const d = (destination ?? {}) as {
		operatingAccount?: { accountId?: unknown };
		productDestinationId?: unknown;
	};
	const account = d.operatingAccount?.accountId;
	const action = d.productDestinationId;
	if (account === undefined || action === undefined) return undefined;
	return `customers/${String(account)}/conversionActions/${String(action)}`;
}
