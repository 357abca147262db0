import { dedupKey, DEFAULT_CLAIM_TTL_MS, DEFAULT_COMMITTED_TTL_MS, DEFAULT_KEY_PREFIX } from '../dedup/types';
import type { ClaimOutcome } from '../dedup/types';
import { deriveEventId, readRecordId } from '../events/eventId';
import { resolveEventTime } from '../events/eventTime';
import { estimateMatchQuality, normalizeIdentity, renderIdentity } from '../identity';
import {
	statsBucket,
	statsKey,
	STATS_TTL_MS,
	tallyResults,
	type StatsIncrements,
} from '../stats/stats';
import type {
	DedupState,
	DispatchItem,
	DispatchOptions,
	ItemResult,
	PlatformAdapter,
	SendOutcome,
} from './types';

interface Prepared<Payload> {
	index: number;
	eventId: string;
	key: string;
	payload: Payload;
}

const DEFAULT_CONCURRENCY = 4;
/** How long a dispatch waits for another run's live claim on the same event to settle. */
const DEFAULT_IN_FLIGHT_WAIT_MS = 10_000;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * items → events → claim → chunks → send → settle → exactly one result per input item.
 *
 * Guarantees: an event is sent only under a claim this run owns (or with the store bypassed
 * in fail-open mode, or dedup off); an event is committed only when the platform acknowledged
 * it; every failure releases its claim so a retry can send it; one bad item never sinks the
 * others; the order of results is the order of the items.
 */
export async function dispatch<Config, Payload>(
	items: DispatchItem[],
	options: DispatchOptions<Config, Payload>,
): Promise<ItemResult[]> {
	const { adapter, config } = options;
	const clock = options.clock ?? Date.now;
	const sleep = options.sleep ?? realSleep;
	const now = clock();
	const destination = adapter.destinationId(config);
	const prefix = options.keyPrefix || DEFAULT_KEY_PREFIX;
	const hashTag = Boolean(options.store?.hashTagKeys);
	/** This dispatch's counters for the destination's health report (with a store only). */
	const stats = (): StatsIncrements => ({
		key: statsKey(prefix, adapter.platform, destination, statsBucket(now), { hashTag }),
		platform: adapter.platform,
		destination,
		increments: tallyResults(results),
		ttlMs: STATS_TTL_MS,
	});
	/** Counters for a dispatch that has nothing to settle: one round trip, never fatal. */
	const recordStatsAlone = async () => {
		if (!options.store) return;
		try {
			await options.store.recordStats(stats());
		} catch {
			// Health counters must never fail a dispatch; the store error shows elsewhere.
		}
	};
	const results: ItemResult[] = new Array(items.length);
	const prepared: Prepared<Payload>[] = [];
	const firstIndexOfEvent = new Map<string, number>();

	items.forEach((item, index) => {
		const base: ItemResult = {
			status: 'failed',
			platform: adapter.platform,
			destination,
			event_name: item.eventName,
			match_keys: [],
			warnings: [...(item.warnings ?? [])],
		};
		results[index] = base;
		if (item.error) {
			base.error = item.error;
			return;
		}
		const recordId = readRecordId(item.record?.record_id);
		if (!recordId) {
			base.error =
				'record_id is missing: every event needs the stable id of its business record (form submission, capture session, CRM deal) so that re-runs send it once';
			return;
		}
		if (!item.eventName) {
			base.error = 'event name is empty';
			return;
		}
		const eventId = deriveEventId(destination, item.eventName, recordId);
		base.event_id = eventId;
		const time = resolveEventTime({
			occurredAt: item.record.occurred_at,
			windowSeconds: adapter.eventWindowSeconds,
			policy: options.eventWindowPolicy,
			now,
		});
		base.warnings.push(...time.warnings);
		if (!time.ok) {
			base.status = 'skipped';
			base.error = time.reason;
			return;
		}
		base.event_time = time.unixSeconds;
		const identity = normalizeIdentity(item.record, {
			defaultCountry: options.defaultCountry,
			eventTimeMs: time.unixSeconds * 1000,
			clock,
		});
		const user = renderIdentity(identity, adapter.platform);
		base.match_quality = estimateMatchQuality(adapter.platform, user).score;
		const built = adapter.buildEvent(
			{ record: item.record, eventName: item.eventName, eventId, eventTime: time.unixSeconds, identity, user },
			config,
		);
		base.match_keys = built.matchKeys;
		base.warnings.push(...identity.warnings, ...built.warnings);
		if (!built.ok) {
			base.status = built.status;
			base.error = built.reason;
			return;
		}
		if (options.includePayload || options.dryRun) base.payload = built.payload;
		const earlier = firstIndexOfEvent.get(eventId);
		if (earlier !== undefined) {
			base.status = 'duplicate';
			base.dedup = 'in_batch';
			base.warnings.push(`same event as item ${earlier} of this batch: sent once`);
			return;
		}
		firstIndexOfEvent.set(eventId, index);
		prepared.push({
			index,
			eventId,
			key: dedupKey(prefix, adapter.platform, destination, eventId, { hashTag }),
			payload: built.payload,
		});
	});

	if (prepared.length === 0) {
		await recordStatsAlone();
		return results;
	}

	if (options.dryRun) {
		const request = adapter.previewRequest(
			prepared.map((p) => p.payload),
			config,
		);
		for (const p of prepared) {
			const r = results[p.index];
			r.status = 'skipped';
			r.dry_run = true;
			r.warnings.push('dry run: nothing was claimed or sent');
			r.response = { request_preview: request };
		}
		return results;
	}

	// Claim: one round trip for the whole batch.
	let toSend = prepared;
	let token: string | undefined;
	let dedupState: DedupState = 'claimed';
	if (!options.store) {
		dedupState = 'off';
	} else {
		let outcomes: ClaimOutcome[] | undefined;
		try {
			const claim = await options.store.claimBatch(
				prepared.map((p) => p.key),
				options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS,
			);
			token = claim.token;
			outcomes = claim.outcomes;
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			if ((options.failMode ?? 'closed') === 'closed') {
				for (const p of prepared) {
					const r = results[p.index];
					r.status = 'failed';
					r.retryable = true;
					r.error = `${message}. Nothing was sent (dedup fails closed): run again once the store is back, or set "If Dedup Store Is Unavailable" to "Send Anyway".`;
				}
				return results;
			}
			dedupState = 'bypassed';
			for (const p of prepared) {
				results[p.index].warnings.push(
					`${message}; sent without a claim (fail open), relying on the platform's own event_id deduplication`,
				);
			}
		}
		if (outcomes) {
			toSend = [];
			let waiting: Prepared<Payload>[] = [];
			const apply = (batch: Prepared<Payload>[], found: ClaimOutcome[]) => {
				const still: Prepared<Payload>[] = [];
				batch.forEach((p, i) => {
					if (found[i] === 'claimed') toSend.push(p);
					else if (found[i] === 'in_flight') still.push(p);
					else {
						const r = results[p.index];
						r.status = 'duplicate';
						r.dedup = 'sent_before';
						r.warnings.push('already sent by an earlier run: not sent again');
					}
				});
				return still;
			};
			waiting = apply(prepared, outcomes);
			// Another run holds a live claim: a duplicate delivery racing this one, or a run that
			// crashed after claiming. Wait (bounded) for it to settle: "sent" makes this a
			// duplicate, a released or expired claim is claimed and sent here. Only the rare
			// contended keys cost extra round trips.
			const waitMs = options.inFlightWaitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS;
			const deadline = clock() + waitMs;
			let delay = 200;
			while (waiting.length > 0 && clock() + delay <= deadline) {
				await sleep(delay);
				delay = Math.min(delay * 2, 2_000);
				try {
					const again = await options.store.claimBatch(
						waiting.map((p) => p.key),
						options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS,
						token,
					);
					waiting = apply(waiting, again.outcomes);
				} catch {
					break;
				}
			}
			for (const p of waiting) {
				const r = results[p.index];
				r.status = 'failed';
				r.retryable = true;
				r.dedup = 'in_flight';
				r.error = `another run claimed this event and has not settled it within ${Math.round(waitMs / 1000)} s; nothing was sent here. If that run crashed, its claim expires within ${Math.round((options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS) / 1000)} s and a retry sends the event`;
			}
		}
	}
	for (const p of toSend) {
		results[p.index].dedup = dedupState;
		if (dedupState === 'off') {
			results[p.index].warnings.push(
				'dedup is off: a re-run or a retried webhook sends this event again',
			);
		}
	}

	// Send in platform-sized chunks, a few requests in flight at once.
	const outcomes = await sendAll(adapter, options, toSend);

	const commit: string[] = [];
	const release: string[] = [];
	toSend.forEach((p, i) => {
		const outcome = outcomes[i];
		const r = results[p.index];
		if (outcome.response !== undefined) r.response = outcome.response;
		switch (outcome.status) {
			case 'sent':
			case 'duplicate':
				r.status = outcome.status;
				if (outcome.warning) r.warnings.push(outcome.warning);
				commit.push(p.key);
				break;
			case 'skipped':
				r.status = 'skipped';
				r.error = outcome.reason;
				r.retryable = outcome.retryable;
				release.push(p.key);
				break;
			default:
				r.status = 'failed';
				r.error = outcome.error;
				r.retryable = outcome.retryable;
				release.push(p.key);
		}
	});

	// Settle: one round trip commits what was sent, releases what was not, and counts.
	if (options.store && token) {
		try {
			const settled = await options.store.settleBatch(token, {
				commit,
				release,
				committedTtlMs: options.committedTtlMs ?? DEFAULT_COMMITTED_TTL_MS,
				stats: stats(),
			});
			if (settled.notOwned.length > 0) {
				const lost = new Set(settled.notOwned);
				for (const p of toSend) {
					if (lost.has(p.key)) {
						results[p.index].warnings.push(
							'this run\'s claim had expired before it settled: another run may have sent this event too',
						);
					}
				}
			}
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			for (const p of toSend) {
				const r = results[p.index];
				r.warnings.push(
					r.status === 'sent'
						? `${message}: sent, but not recorded as sent; its claim expires and a re-run could send it again`
						: `${message}: could not free the claim; a retry can send it after the claim expires`,
				);
			}
		}
	} else {
		await recordStatsAlone();
	}
	return results;
}

async function sendAll<Config, Payload>(
	adapter: PlatformAdapter<Config, Payload>,
	options: DispatchOptions<Config, Payload>,
	toSend: Prepared<Payload>[],
): Promise<SendOutcome[]> {
	const size = Math.max(1, Math.min(options.batchSize ?? adapter.maxBatchSize, adapter.maxBatchSize));
	const chunks: { start: number; payloads: Payload[] }[] = [];
	for (let start = 0; start < toSend.length; start += size) {
		chunks.push({ start, payloads: toSend.slice(start, start + size).map((p) => p.payload) });
	}
	const outcomes: SendOutcome[] = new Array(toSend.length);
	let next = 0;
	const worker = async () => {
		for (;;) {
			const chunk = chunks[next++];
			if (!chunk) return;
			let chunkOutcomes: SendOutcome[];
			try {
				chunkOutcomes = await adapter.sendChunk(chunk.payloads, options.config, options.transport);
				if (chunkOutcomes.length !== chunk.payloads.length) {
					throw new Error(
						`got ${chunkOutcomes.length} results for ${chunk.payloads.length} events`,
					);
				}
			} catch (error) {
				// An adapter bug must not leave events marked as sent: fail (and release) the chunk.
				const message = error instanceof Error ? error.message : String(error);
				chunkOutcomes = chunk.payloads.map(() => ({
					status: 'failed' as const,
					error: `${adapter.platform}: unexpected error while sending: ${message}`,
					retryable: true,
				}));
			}
			chunkOutcomes.forEach((o, i) => (outcomes[chunk.start + i] = o));
		}
	};
	const workers = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, chunks.length));
	await Promise.all(Array.from({ length: workers }, worker));
	return outcomes;
}
