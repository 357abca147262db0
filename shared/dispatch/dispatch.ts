import { randomUUID } from 'node:crypto';
import { dedupKey, DEFAULT_CLAIM_TTL_MS, DEFAULT_COMMITTED_TTL_MS, DEFAULT_KEY_PREFIX } from '../dedup/types';
import type { ClaimOutcome } from '../dedup/types';
import { deriveEventId, readRecordId } from '../events/eventId';
import { resolveEventTime } from '../events/eventTime';
import { matchQualityScore, normalizeIdentity, renderIdentity } from '../identity';
import { joinSentences } from '../sentences';
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
	SendOutcome,
} from './types';

/** An item that has an event id and an event time: it may be claimed, built and sent. */
interface Candidate {
	index: number;
	item: DispatchItem;
	eventId: string;
	eventTime: number;
	key: string;
}

/** Where a batch's settle stands: when its claims were made, what its retries waited, whether to count it. */
interface SettleRetry {
	claimedAt: number;
	slept: number;
	delay: number;
	count: boolean;
}

/**
 * Follows the store's own message on items failed closed: what happened and what to change.
 * (A node shows the store's message as the headline and this as the description.)
 */
export const DEDUP_FAIL_CLOSED_NOTE =
	'Nothing was sent (dedup fails closed). Retry the execution once the store answers; or, to send without dedup while it is down, set Options → If Dedup Store Is Unavailable → Send Anyway.';

const DEFAULT_CONCURRENCY = 4;
/** How long a dispatch waits for another run's live claim on the same event to settle. */
const DEFAULT_IN_FLIGHT_WAIT_MS = 10_000;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Lets pending I/O (a request just started, a response that arrived) run between CPU work. */
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * items → event ids → per platform-sized batch: claim → build → send → settle → exactly one
 * result per input item.
 *
 * Event ids need no identity work (`sha256(destination|event|record id)`), so each batch is
 * claimed before anything is built and only claimed events are normalized, hashed and built —
 * a re-run of already-sent leads costs almost nothing. A batch costs two Redis round trips
 * (claim, settle) and one platform request; a few batches run at a time, so one batch's waits
 * on Redis and on the platform overlap another batch's CPU work, and only the batches in
 * flight are held in memory.
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
	const results: ItemResult[] = new Array(items.length);
	/** Counters of some results for the destination's health report (with a store only). */
	const stats = (counted: ItemResult[]): StatsIncrements => ({
		key: statsKey(prefix, adapter.platform, destination, statsBucket(now), { hashTag }),
		platform: adapter.platform,
		destination,
		increments: tallyResults(counted),
		ttlMs: STATS_TTL_MS,
	});
	/** Counters for results no settle counted: one round trip, never fatal. */
	const recordStatsAlone = async (counted: ItemResult[]) => {
		if (!options.store || counted.length === 0) return;
		try {
			await options.store.recordStats(stats(counted));
		} catch {
			// Health counters must never fail a dispatch; the store error shows elsewhere.
		}
	};

	// 1. Cheap checks, event ids and event times; no identity work yet.
	const candidates: Candidate[] = [];
	/** Later items carrying an event already in this batch, and the index of its first item. */
	const repeats: Array<{ index: number; first: number }> = [];
	const firstIndexOfEvent = new Map<string, number>();
	items.forEach((item, index) => {
		const base: ItemResult = {
			status: 'failed',
			platform: adapter.platform,
			destination,
			event_name: item.eventName,
			match_keys: [],
			warnings: item.warnings ? [...item.warnings] : [],
		};
		results[index] = base;
		if (item.error) {
			base.error = item.error;
			return;
		}
		const recordId = readRecordId(item.record?.record_id);
		if (!recordId) {
			base.error =
				'record_id is missing: give this lead the stable ID of its business record (form submission, capture session, CRM deal), e.g. with Lead Fields → Map Fields → record_id. The event ID is derived from it, so without one the event cannot be sent exactly once';
			return;
		}
		if (!item.eventName) {
			base.error = 'event name is empty';
			return;
		}
		const eventId = deriveEventId(destination, item.eventName, recordId);
		base.event_id = eventId;
		const first = firstIndexOfEvent.get(eventId);
		if (first !== undefined) {
			repeats.push({ index, first });
			return;
		}
		firstIndexOfEvent.set(eventId, index);
		const time = resolveEventTime({
			occurredAt: item.record.occurred_at,
			window: adapter.eventTimeWindow,
			policy: options.eventWindowPolicy,
			now,
		});
		if (time.warnings.length) base.warnings.push(...time.warnings);
		if (!time.ok) {
			base.status = 'skipped';
			base.error = time.reason;
			return;
		}
		base.event_time = time.unixSeconds;
		candidates.push({
			index,
			item,
			eventId,
			eventTime: time.unixSeconds,
			key: dedupKey(prefix, adapter.platform, destination, eventId, { hashTag }),
		});
	});

	/** Normalizes, renders and builds one event; null when the item fails or is skipped. */
	const build = (c: Candidate): Payload | null => {
		const r = results[c.index];
		const identity = normalizeIdentity(c.item.record, {
			defaultCountry: options.defaultCountry,
			eventTimeMs: c.eventTime * 1000,
			clock,
		});
		const user = renderIdentity(identity, adapter.platform);
		r.match_quality = matchQualityScore(adapter.platform, user);
		const built = adapter.buildEvent(
			{
				record: c.item.record,
				eventName: c.item.eventName,
				eventId: c.eventId,
				eventTime: c.eventTime,
				identity,
				user,
			},
			config,
		);
		r.match_keys = built.matchKeys;
		if (identity.warnings.length) r.warnings.push(...identity.warnings);
		if (built.warnings.length) r.warnings.push(...built.warnings);
		if (!built.ok) {
			r.status = built.status;
			r.error = built.reason;
			return null;
		}
		if (options.includePayload || options.dryRun) r.payload = built.payload;
		return built.payload;
	};

	/** A repeated event reports what happened to its first item. */
	const resolveRepeats = () => {
		for (const { index, first } of repeats) {
			const r = results[index];
			const original = results[first];
			if (original.status === 'sent' || original.status === 'duplicate') {
				r.status = 'duplicate';
				r.dedup = 'in_batch';
				r.warnings.push(`same event as item ${first} of this batch: sent once`);
			} else {
				r.status = original.status;
				r.retryable = original.retryable;
				r.error = `same event as item ${first} of this batch, which was ${original.status}: ${original.error ?? ''}`.trim();
			}
		}
	};

	// Only needed to find repeats, which is done: free it before the batches run.
	firstIndexOfEvent.clear();
	if (candidates.length === 0) {
		resolveRepeats();
		await recordStatsAlone(results);
		return results;
	}
	const inBatch = new Uint8Array(items.length);
	for (const c of candidates) inBatch[c.index] = 1;

	// 2. Dry run: build everything, claim and send nothing.
	if (options.dryRun) {
		const payloads: Payload[] = [];
		const built: Candidate[] = [];
		for (const c of candidates) {
			const payload = build(c);
			if (payload !== null) {
				payloads.push(payload);
				built.push(c);
			}
		}
		const request = payloads.length ? adapter.previewRequest(payloads, config) : undefined;
		for (const c of built) {
			const r = results[c.index];
			r.status = 'skipped';
			r.dry_run = true;
			r.warnings.push('dry run: nothing was claimed or sent');
			r.response = { request_preview: request };
		}
		resolveRepeats();
		return results;
	}

	// 3. Per platform-sized batch: claim (one round trip), build, send, settle (one round trip).
	// Batches run a few at a time, so one batch's Redis and HTTP waits overlap another's CPU
	// work, and only the batches in flight are held in memory.
	const size = Math.max(1, Math.min(options.batchSize ?? adapter.maxBatchSize, adapter.maxBatchSize));
	const batches: Array<Candidate[] | null> = [];
	for (let start = 0; start < candidates.length; start += size) {
		batches.push(candidates.slice(start, start + size));
	}
	// From here on each batch holds its own candidates, and lets go of them once settled.
	candidates.length = 0;
	let next = 0;
	const worker = async () => {
		while (next < batches.length) {
			const index = next++;
			await runBatch(batches[index]!);
			batches[index] = null;
		}
	};

	const runBatch = async (batch: Candidate[]) => {
		const claimedAt = clock();
		const { claimed, token, state } = await claimBatch(batch);
		const commit: string[] = [];
		const release: string[] = [];
		const chunk: Candidate[] = [];
		const payloads: Payload[] = [];
		for (const c of claimed) {
			const payload = build(c);
			// An event that cannot be built is skipped or failed on its own merits: its claim is
			// freed and it reports no dedup state, exactly as if it had never been claimed.
			if (payload === null) {
				release.push(c.key);
				continue;
			}
			const r = results[c.index];
			r.dedup = state;
			if (state === 'off') {
				r.warnings.push('dedup is off: a re-run or a retried webhook sends this event again');
			}
			chunk.push(c);
			payloads.push(payload);
		}
		if (payloads.length > 0) {
			const outcomes = await send(payloads);
			chunk.forEach((c, i) => {
				const r = results[c.index];
				const outcome = outcomes[i];
				if (outcome.response !== undefined) r.response = outcome.response;
				switch (outcome.status) {
					case 'sent':
					case 'duplicate':
						r.status = outcome.status;
						if (outcome.warning) r.warnings.push(outcome.warning);
						commit.push(c.key);
						break;
					case 'skipped':
						r.status = 'skipped';
						r.error = outcome.reason;
						r.retryable = outcome.retryable;
						release.push(c.key);
						break;
					default:
						r.status = 'failed';
						r.error = outcome.error;
						r.retryable = outcome.retryable;
						release.push(c.key);
				}
				// Its claim is freed by the settle below (which says so if it cannot).
				if (r.status !== 'sent' && r.status !== 'duplicate' && r.dedup === 'claimed') {
					r.dedup = 'released';
				}
			});
		}
		if (options.store && token) {
			await settle(batch, claimed, token, commit, release, { claimedAt, slept: 0, delay: 200, count: true });
		}
	};

	/** Claims one batch; waits (bounded) for other runs' live claims. */
	const claimBatch = async (
		batch: Candidate[],
	): Promise<{ claimed: Candidate[]; token?: string; state: DedupState }> => {
		if (!options.store) return { claimed: batch, state: 'off' };
		let outcomes: ClaimOutcome[];
		let token: string = randomUUID();
		const keys = batch.map((c) => c.key);
		try {
			const claim = await options.store.claimBatch(keys, options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS, token);
			token = claim.token;
			outcomes = claim.outcomes;
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			// A claim that timed out (Redis paused or stalled) still runs once Redis answers and
			// claims these events for no live run: a re-run would find them "in flight" for the whole
			// claim TTL. Free them right behind it (same connection, so in that order); best effort.
			if (/timed out/i.test(message)) {
				options.store
					.settleBatch(token, { commit: [], release: keys, committedTtlMs: DEFAULT_COMMITTED_TTL_MS })
					.catch(() => undefined);
			}
			if ((options.failMode ?? 'closed') === 'closed') {
				for (const c of batch) {
					const r = results[c.index];
					r.status = 'failed';
					r.retryable = true;
					r.dedup = 'unavailable';
					r.error = joinSentences(message, DEDUP_FAIL_CLOSED_NOTE);
				}
				return { claimed: [], state: 'claimed' };
			}
			for (const c of batch) {
				results[c.index].warnings.push(
					`${message}; sent without a claim (fail open), relying on the platform's own event_id deduplication`,
				);
			}
			return { claimed: batch, state: 'bypassed' };
		}
		const claimed: Candidate[] = [];
		const apply = (group: Candidate[], found: ClaimOutcome[]) => {
			const still: Candidate[] = [];
			group.forEach((c, i) => {
				if (found[i] === 'claimed') claimed.push(c);
				else if (found[i] === 'in_flight') still.push(c);
				else {
					const r = results[c.index];
					r.status = 'duplicate';
					r.dedup = 'sent_before';
					r.warnings.push('already sent by an earlier run: not sent again');
				}
			});
			return still;
		};
		let waiting = apply(batch, outcomes);
		// Another run holds a live claim: a duplicate delivery racing this one, or a run that
		// crashed after claiming. Wait (bounded) for it to settle: "sent" makes this a
		// duplicate, a released or expired claim is claimed and sent here. Only the rare
		// contended keys cost extra round trips.
		const waitMs = options.inFlightWaitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS;
		let waited = 0;
		let delay = 200;
		while (waiting.length > 0 && waited + delay <= waitMs) {
			await sleep(delay);
			waited += delay;
			delay = Math.min(delay * 2, 2_000);
			try {
				const again = await options.store.claimBatch(
					waiting.map((c) => c.key),
					options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS,
					token,
				);
				waiting = apply(waiting, again.outcomes);
			} catch {
				break;
			}
		}
		for (const c of waiting) {
			const r = results[c.index];
			r.status = 'failed';
			r.retryable = true;
			r.dedup = 'in_flight';
			r.error = `another run claimed this event and has not settled it within ${Math.round(waitMs / 1000)} s; nothing was sent here. If that run crashed, its claim expires within ${Math.round((options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS) / 1000)} s and a retry sends the event`;
		}
		return { claimed, token, state: 'claimed' };
	};

	/** Sends one batch; an adapter bug never leaves its events marked as sent. */
	const send = async (payloads: Payload[]): Promise<SendOutcome[]> => {
		try {
			const sending = adapter.sendChunk(payloads, config, options.transport);
			// Handled below; this keeps a fast rejection from counting as unhandled meanwhile.
			sending.catch(() => undefined);
			// Let the request go out before this thread builds the next batch.
			await yieldToIo();
			const outcomes = await sending;
			if (outcomes.length !== payloads.length) {
				throw new Error(`got ${outcomes.length} results for ${payloads.length} events`);
			}
			return outcomes;
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			return payloads.map(() => ({
				status: 'failed' as const,
				error: `${adapter.platform}: unexpected error while sending: ${message}`,
				retryable: true,
			}));
		}
	};

	/**
	 * Commits what was sent, releases what was not, and counts the batch: one round trip. When
	 * the store fails after the platform acknowledged events, it is tried again (see
	 * waitToSettleAgain) before the events are left with a warning.
	 */
	const settle = async (
		batch: Candidate[],
		claimed: Candidate[],
		token: string,
		commit: string[],
		release: string[],
		retry: SettleRetry,
	): Promise<void> => {
		try {
			const settled = await options.store!.settleBatch(token, {
				commit,
				release,
				committedTtlMs: options.committedTtlMs ?? DEFAULT_COMMITTED_TTL_MS,
				stats: retry.count ? stats(batch.map((c) => results[c.index])) : undefined,
			});
			if (settled.notOwned.length > 0) {
				const lost = new Set(settled.notOwned);
				for (const c of claimed) {
					if (lost.has(c.key)) {
						results[c.index].warnings.push(
							"this run's claim had expired before it settled: another run may have sent this event too",
						);
					}
				}
			}
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			if (commit.length > 0 && (await waitToSettleAgain(retry, message))) {
				return settle(batch, claimed, token, commit, release, retry);
			}
			for (const c of claimed) {
				const r = results[c.index];
				// The claim was not freed: it is held until it expires.
				if (r.dedup === 'released') r.dedup = 'claimed';
				r.warnings.push(
					r.status === 'sent'
						? `${message}: sent, but not recorded as sent; its claim expires and a re-run could send it again`
						: `${message}: could not free the claim; a retry can send it after the claim expires`,
				);
			}
		}
	};

	/**
	 * After a failed settle of acknowledged events (Redis restarting, failing over, paused):
	 * waits a little and says whether to try again — for as long as this run's claims last.
	 * Until then no other run can send those events, so recording them late is still exactly
	 * once; giving up at once would let the next re-run send them a second time.
	 */
	const waitToSettleAgain = async (retry: SettleRetry, message: string): Promise<boolean> => {
		// A settle that timed out may still run once Redis answers: the batch is counted once.
		if (/timed out/i.test(message)) retry.count = false;
		// Its own sleeps count too, so an injected clock that stands still cannot spin it.
		const elapsed = Math.max(clock() - retry.claimedAt, retry.slept);
		if (elapsed + retry.delay >= (options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS)) return false;
		await sleep(retry.delay);
		retry.slept += retry.delay;
		retry.delay = Math.min(retry.delay * 2, 2_000);
		return true;
	};

	const workers = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, batches.length));
	await Promise.all(Array.from({ length: workers }, worker));
	resolveRepeats();
	// Items that never reached a batch (input errors, skips, repeats) are counted on their own,
	// in one more round trip only when there are any.
	const outsideBatches = results.filter((_, i) => inBatch[i] === 0);
	if (outsideBatches.length > 0) await recordStatsAlone(outsideBatches);
	return results;
}

