import type { Platform } from '../types';

/**
 * Operational health per destination: how many events were sent, duplicate, skipped and
 * failed, which match keys the sent ones carried, and their average match quality — in hourly
 * buckets kept two days, so an agency can see the last day per client and spot a destination
 * whose match quality dropped. Counters only: no personal data, no event ids.
 */
export const STATS_BUCKET_MS = 3_600_000;
/** Buckets outlive the default one-day report window with room for late readers. */
export const STATS_TTL_MS = 49 * 3_600_000;

/** Counter increments for one dispatch to one destination. */
export interface StatsIncrements {
	key: string;
	platform: Platform;
	destination: string;
	/** Field → increment (sent, duplicate, skipped, failed, key:<match key>, mq_sum). */
	increments: Record<string, number>;
	ttlMs: number;
}

/** The hourly bucket (UTC) of a time, e.g. 2026113006. */
export function statsBucket(ms: number): string {
	const d = new Date(Math.floor(ms / STATS_BUCKET_MS) * STATS_BUCKET_MS);
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}`;
}

/**
 * `<prefix>:stats:<platform>:<destination>:<bucket>`. With `hashTag` (Redis Cluster) the
 * destination is wrapped in braces so a destination's dedup keys and its stats share a slot.
 */
export function statsKey(
	prefix: string,
	platform: Platform,
	destination: string,
	bucket: string,
	options: { hashTag?: boolean } = {},
): string {
	const dest = options.hashTag ? `{${destination}}` : destination;
	return `${prefix}:stats:${platform}:${dest}:${bucket}`;
}

/** `key:<match key>` counter names, made once per match key rather than once per event. */
const KEY_COUNTERS = new Map<string, string>();
function keyCounter(matchKey: string): string {
	let name = KEY_COUNTERS.get(matchKey);
	if (name === undefined) {
		name = `key:${matchKey}`;
		// Match keys are the platforms' own field names: a few dozen in all.
		if (KEY_COUNTERS.size < 1000) KEY_COUNTERS.set(matchKey, name);
	}
	return name;
}

/** The tally of one dispatch's results. */
export function tallyResults(
	results: ReadonlyArray<{ status: string; match_keys: string[]; match_quality?: number }>,
): Record<string, number> {
	const increments: Record<string, number> = {};
	const add = (field: string, n = 1) => (increments[field] = (increments[field] ?? 0) + n);
	for (const result of results) {
		add(result.status);
		if (result.status !== 'sent') continue;
		for (const key of result.match_keys) add(keyCounter(key));
		if (typeof result.match_quality === 'number') add('mq_sum', Math.round(result.match_quality * 10));
	}
	return increments;
}

/**
 * Corrections for results the outbox took after the dispatch counted them: each moves from what
 * it was counted as (`failed`, `skipped`; none when it was not counted) to `queued`,
 * `dead_lettered` or `duplicate` (a drained event already delivered by another drain), so the
 * report never shows a queued or already-sent event as failed.
 */
export function outboxMoveIncrements(
	moves: ReadonlyArray<{ from?: string; to: 'queued' | 'dead_lettered' | 'duplicate' }>,
): Record<string, number> {
	const increments: Record<string, number> = {};
	const add = (field: string, n: number) => (increments[field] = (increments[field] ?? 0) + n);
	for (const { from, to } of moves) {
		if (from === to) continue;
		if (from) add(from, -1);
		add(to, 1);
	}
	return increments;
}

export interface DestinationStats {
	platform: Platform;
	destination: string;
	window_hours: number;
	sent: number;
	duplicate: number;
	skipped: number;
	failed: number;
	/** Stage events older than the platform accepts (never sent); shown only when there were some. */
	expired?: number;
	/**
	 * Events kept in the outbox for a later try (docs/outbox.md), not counted as failed: a queued
	 * event is counted again when its drain sends it (`sent`). Shown only when there were some.
	 */
	queued?: number;
	/** Events moved to the outbox's dead letters (refused, expired, unreadable); shown when some. */
	dead_lettered?: number;
	/** Average match-quality estimate (0–10) of the events sent. */
	match_quality: number | null;
	/** For each match key: how many sent events carried it, and their share of all sent. */
	match_keys: Record<string, { count: number; share: number }>;
	/**
	 * Platforms that accept before they process (Google Data Manager): the last requests, newest
	 * first, with how many events each carried and the processing status last read (ACCEPTED
	 * until one is read). Ids and counts only.
	 */
	requests?: ReportedRequest[];
	/** Meta datasets with Conversion Leads (CRM) events: Meta's checklist against the ledger. */
	conversion_leads?: ConversionLeadsHealth;
}

export interface ReportedRequest {
	request_id: string;
	sent_at: string;
	events: number;
	status: string;
}

/** How many requests per destination the report lists. */
export const REPORTED_REQUESTS = 5;
/** `req:<unix seconds>:<request id>` → events in that request. */
const REQUEST_FIELD = 'req:';
/** `req_status:<request id>:<STATUS>` → how often that status was read. */
const REQUEST_STATUS_FIELD = 'req_status:';
/** A later status wins over an earlier one; the final ones over PROCESSING. */
const STATUS_RANK: Readonly<Record<string, number>> = {
	ACCEPTED: 0,
	REQUEST_STATUS_UNKNOWN: 1,
	PROCESSING: 2,
	SUCCESS: 3,
	PARTIAL_SUCCESS: 3,
	FAILED: 3,
};

/** Counter fields recording accepted requests (their ids and sizes) in a destination's bucket. */
export function requestIncrements(
	requests: ReadonlyArray<{ requestId: string; events: number }>,
	nowMs: number,
): Record<string, number> {
	const seconds = Math.floor(nowMs / 1000);
	const increments: Record<string, number> = {};
	for (const { requestId, events } of requests) {
		const field = `${REQUEST_FIELD}${seconds}:${requestId}`;
		increments[field] = (increments[field] ?? 0) + events;
	}
	return increments;
}

/** The counter field recording one read of a request's processing status. */
export function requestStatusIncrements(requestId: string, status: string): Record<string, number> {
	return { [`${REQUEST_STATUS_FIELD}${requestId}:${status}`]: 1 };
}

type RequestTally = Map<string, { seconds: number; events: number; status: string }>;

/** Reads one request field into the tally; false when the field is not one. */
function tallyRequestField(
	field: string,
	n: number,
	requests: RequestTally,
	statuses: Map<string, string>,
): boolean {
	if (field.startsWith(REQUEST_FIELD)) {
		const rest = field.slice(REQUEST_FIELD.length);
		const colon = rest.indexOf(':');
		const seconds = Number(rest.slice(0, colon));
		const id = rest.slice(colon + 1);
		if (colon < 0 || !Number.isFinite(seconds) || !id) return true;
		const entry = requests.get(id);
		if (entry) entry.events += n;
		else requests.set(id, { seconds, events: n, status: 'ACCEPTED' });
		return true;
	}
	if (field.startsWith(REQUEST_STATUS_FIELD)) {
		const rest = field.slice(REQUEST_STATUS_FIELD.length);
		const colon = rest.lastIndexOf(':');
		if (colon <= 0) return true;
		const id = rest.slice(0, colon);
		const status = rest.slice(colon + 1);
		const known = statuses.get(id);
		if (!known || (STATUS_RANK[status] ?? 1) >= (STATUS_RANK[known] ?? 1)) statuses.set(id, status);
		return true;
	}
	return false;
}

/** The newest requests of a destination, each with its best-known status. */
function reportedRequests(requests: RequestTally, statuses: Map<string, string>): ReportedRequest[] {
	return [...requests.entries()]
		.sort((a, b) => b[1].seconds - a[1].seconds || a[0].localeCompare(b[0]))
		.slice(0, REPORTED_REQUESTS)
		.map(([id, r]) => ({
			request_id: id,
			sent_at: new Date(r.seconds * 1000).toISOString(),
			events: r.events,
			status: statuses.get(id) ?? r.status,
		}));
}

/** Sums hourly buckets (field maps as read from storage) into one report per destination. */
export function summarizeStats(
	buckets: ReadonlyArray<Record<string, string>>,
	windowHours: number,
): DestinationStats[] {
	const byDestination = new Map<
		string,
		DestinationStats & { mqSum: number; reqs: RequestTally; reqStatuses: Map<string, string> }
	>();
	for (const fields of buckets) {
		const platform = fields._platform as Platform | undefined;
		const destination = fields._destination;
		if (!platform || !destination) continue;
		const id = `${platform}\u0000${destination}`;
		let entry = byDestination.get(id);
		if (!entry) {
			entry = {
				platform,
				destination,
				window_hours: windowHours,
				sent: 0,
				duplicate: 0,
				skipped: 0,
				failed: 0,
				match_quality: null,
				match_keys: {},
				mqSum: 0,
				reqs: new Map(),
				reqStatuses: new Map(),
			};
			byDestination.set(id, entry);
		}
		for (const [field, raw] of Object.entries(fields)) {
			const n = Number(raw);
			if (!Number.isFinite(n)) continue;
			if (field === 'sent' || field === 'duplicate' || field === 'skipped' || field === 'failed') {
				entry[field] += n;
			} else if (field === 'expired' || field === 'queued' || field === 'dead_lettered') {
				entry[field] = (entry[field] ?? 0) + n;
			} else if (tallyRequestField(field, n, entry.reqs, entry.reqStatuses)) {
				continue;
			} else if (field === 'mq_sum') {
				entry.mqSum += n;
			} else if (field.startsWith('key:')) {
				const key = field.slice(4);
				entry.match_keys[key] = { count: (entry.match_keys[key]?.count ?? 0) + n, share: 0 };
			}
		}
	}
	return [...byDestination.values()]
		.map(({ mqSum, reqs, reqStatuses, ...stats }) => {
			// An outbox correction whose counted result fell out of the window would go below 0.
			stats.failed = Math.max(0, stats.failed);
			stats.skipped = Math.max(0, stats.skipped);
			for (const field of ['expired', 'queued', 'dead_lettered'] as const)
				if (stats[field] !== undefined && stats[field]! <= 0) delete stats[field];
			if (reqs.size > 0) stats.requests = reportedRequests(reqs, reqStatuses);
			for (const key of Object.keys(stats.match_keys)) {
				const { count } = stats.match_keys[key];
				stats.match_keys[key] = {
					count,
					share: stats.sent ? Math.round((count / stats.sent) * 1000) / 1000 : 0,
				};
			}
			stats.match_quality = stats.sent ? Math.round(mqSum / stats.sent) / 10 : null;
			return stats;
		})
		.sort((a, b) => a.platform.localeCompare(b.platform) || a.destination.localeCompare(b.destination));
}

/** The bucket names of the last `hours` hours up to `now`. */
export function recentBuckets(now: number, hours: number): Set<string> {
	const buckets = new Set<string>();
	for (let h = 0; h < hours; h++) buckets.add(statsBucket(now - h * STATS_BUCKET_MS));
	return buckets;
}

/**
 * A workflow's own scope, `<prefix>:workflow:<workflow id>`, for what has no Client Key to be
 * kept apart by: the destinations its senders sent to and the refusals of its triggers. A Health
 * Report without a Client Key reads only this workflow's scope, so it never lists the destinations
 * of other workflows (other clients) sharing the Redis.
 */
export function workflowScope(prefix: string, workflowId: string): string {
	return `${prefix}:workflow:${workflowId.replace(/[^A-Za-z0-9_.-]/g, '_') || '_'}`;
}

/**
 * The marks a run leaves in its workflow's scope: one counter per destination it dispatched to
 * (`items`), in the same hourly buckets as the destination's counters. The Health Report reads
 * them to know which destinations are this workflow's own.
 */
export function workflowDestinationMarks(
	scope: string,
	results: ReadonlyArray<{ platform: Platform; destination: string }>,
	now: number,
	options: { hashTag?: boolean } = {},
): StatsIncrements[] {
	const counts = new Map<string, { platform: Platform; destination: string; items: number }>();
	for (const { platform, destination } of results) {
		if (!destination) continue;
		const id = `${platform}\u0000${destination}`;
		const entry = counts.get(id) ?? { platform, destination, items: 0 };
		entry.items++;
		counts.set(id, entry);
	}
	return [...counts.values()].map(({ platform, destination, items }) => ({
		key: statsKey(scope, platform, destination, statsBucket(now), options),
		platform,
		destination,
		increments: { items },
		ttlMs: STATS_TTL_MS,
	}));
}

/**
 * Meta Conversion Leads health in a Health Report item (read by shared/health/conversionLeads.ts).
 */
/** One check: its figure, Meta's threshold in words, and whether Meta states it. */
export interface ConversionLeadsCheck {
	check:
		| 'stages_seen'
		| 'days_of_data'
		| 'upload_frequency'
		| 'leads_with_events'
		| 'lead_id_coverage'
		| 'stage_within_28_days'
		| 'conversion_rate';
	pass: boolean;
	value: number | string | null;
	threshold: string;
	/** `meta`: Meta's documents state the threshold; `unconfirmed`: they are silent (ours). */
	basis: 'meta' | 'unconfirmed';
	detail: string;
}

export interface ConversionLeadsHealth {
	/** CRM leads read from the ledger (all of them unless `sampled`). */
	leads: number;
	sampled: boolean;
	/** The stage most leads started with (their first event): the initial lead stage. */
	initial_stage: string | null;
	/** Each stage seen: leads that reached it, their share of all leads, median days from creation. */
	stages: Record<string, { leads: number; share: number; median_days: number | null }>;
	pass: boolean;
	checks: ConversionLeadsCheck[];
}
