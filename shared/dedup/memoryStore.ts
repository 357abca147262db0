import { randomUUID } from 'node:crypto';
import {
	recentBuckets,
	STATS_BUCKET_MS,
	summarizeStats,
	type DestinationStats,
	type StatsIncrements,
} from '../stats/stats';
import { summarizeRefusals, type RefusalIncrement, type RefusedCaptures } from '../stats/refusals';
import type { ClaimBatchResult, ClaimOptions, DedupStore, RenewOutcome, SettleRequest, SettleResult } from './types';

interface Entry {
	/** `c:<token>` while claimed, `s` once committed, `u` held after an unknown outcome. */
	state: string;
	expiresAt: number;
}

/**
 * Dedup for one process (a single n8n instance without Redis). Same semantics as the Redis
 * store; nothing survives a restart and nothing is shared between processes or workers.
 */
export class MemoryDedupStore implements DedupStore {
	readonly description = 'In-memory dedup store (this n8n process only)';
	private readonly entries = new Map<string, Entry>();
	private readonly stats = new Map<string, { fields: Record<string, string>; expiresAt: number }>();
	private readonly ledgers = new Map<string, { fields: Record<string, string>; expiresAt: number }>();
	private lastSweep = 0;

	constructor(private readonly clock: () => number = Date.now) {}

	async claimBatch(
		keys: string[],
		claimTtlMs: number,
		ownerToken?: string,
		options: ClaimOptions = {},
	): Promise<ClaimBatchResult> {
		const now = this.clock();
		this.sweep(now);
		const token = ownerToken ?? randomUUID();
		const claim = `c:${token}`;
		const outcomes = keys.map((key) => {
			const entry = this.live(key, now);
			const take = !entry || entry.state === claim || (entry.state === 'u' && options.takeHeld);
			if (take) {
				this.entries.set(key, { state: claim, expiresAt: now + claimTtlMs });
				return 'claimed' as const;
			}
			if (entry.state === 'u') return 'held' as const;
			return entry.state === 's' ? ('sent' as const) : ('in_flight' as const);
		});
		const ledgerKeys = options.ledgerKeys;
		if (!ledgerKeys) return { token, outcomes };
		const ledger = outcomes.map((outcome, i) => {
			const key = ledgerKeys[i];
			return outcome === 'claimed' && key !== undefined ? this.ledgerOf(key, now) : undefined;
		});
		return { token, outcomes, ledger };
	}

	async settleBatch(token: string, request: SettleRequest): Promise<SettleResult> {
		const now = this.clock();
		const claim = `c:${token}`;
		const result: SettleResult = { committed: 0, released: 0, notOwned: [] };
		const landed = new Set<string>();
		for (const key of request.commit) {
			const entry = this.live(key, now);
			if (entry && entry.state !== claim) {
				if (entry.state !== 's') result.notOwned.push(key);
				else landed.add(key);
				continue;
			}
			this.entries.set(key, { state: 's', expiresAt: now + request.committedTtlMs });
			landed.add(key);
			result.committed++;
		}
		for (const key of request.hold ?? []) {
			// Held also when the claim lapsed and nobody took it: the platform may have the event.
			const entry = this.live(key, now);
			if (entry && entry.state !== claim) {
				result.notOwned.push(key);
				continue;
			}
			this.entries.set(key, { state: 'u', expiresAt: now + request.committedTtlMs });
			result.held = (result.held ?? 0) + 1;
		}
		for (const write of request.ledger ?? []) {
			if (!landed.has(write.gateKey)) continue;
			const held = this.ledgers.get(write.key);
			const fields = held && held.expiresAt > now ? held.fields : {};
			Object.assign(fields, write.set);
			for (const [field, value] of Object.entries(write.setIfAbsent)) fields[field] ??= value;
			this.ledgers.set(write.key, { fields, expiresAt: now + write.ttlMs });
		}
		for (const key of request.release) {
			const entry = this.live(key, now);
			if (entry?.state === claim) {
				this.entries.delete(key);
				result.released++;
			} else {
				result.notOwned.push(key);
			}
		}
		if (request.stats) await this.recordStats(request.stats);
		return result;
	}

	async renewClaims(token: string, keys: string[], claimTtlMs: number): Promise<RenewOutcome[]> {
		const now = this.clock();
		const claim = `c:${token}`;
		return keys.map((key) => {
			const entry = this.live(key, now);
			if (!entry) return 'expired';
			if (entry.state === claim) {
				entry.expiresAt = now + claimTtlMs;
				return 'held';
			}
			return entry.state === 's' ? 'sent' : 'taken';
		});
	}

	async readLedger(keys: string[]): Promise<Array<Record<string, string> | null>> {
		const now = this.clock();
		return keys.map((key) => this.ledgerOf(key, now));
	}

	private ledgerOf(key: string, now: number): Record<string, string> | null {
		const held = this.ledgers.get(key);
		return held && held.expiresAt > now ? { ...held.fields } : null;
	}

	async scanLedger(
		start: string,
		limit: number,
	): Promise<{ entries: Array<{ key: string; fields: Record<string, string> }>; truncated: boolean }> {
		const now = this.clock();
		const entries: Array<{ key: string; fields: Record<string, string> }> = [];
		for (const [key, held] of this.ledgers) {
			if (held.expiresAt <= now || !key.startsWith(start)) continue;
			if (entries.length === limit) return { entries, truncated: true };
			entries.push({ key, fields: { ...held.fields } });
		}
		return { entries, truncated: false };
	}

	async recordStats(stats: StatsIncrements): Promise<void> {
		const now = this.clock();
		const bucket = this.stats.get(stats.key);
		const fields =
			bucket && bucket.expiresAt > now
				? bucket.fields
				: { _platform: stats.platform, _destination: stats.destination };
		for (const [field, increment] of Object.entries(stats.increments)) {
			fields[field] = String(Number(fields[field] ?? 0) + increment);
		}
		this.stats.set(stats.key, { fields, expiresAt: now + stats.ttlMs });
	}

	async readStats(prefix: string, options: { hours: number; now?: number }): Promise<DestinationStats[]> {
		return summarizeStats(this.bucketsUnder(`${prefix}:stats:`, options), options.hours);
	}

	async recordRefusal(refusal: RefusalIncrement): Promise<void> {
		const now = this.clock();
		const bucket = this.stats.get(refusal.key);
		const fields = bucket && bucket.expiresAt > now ? bucket.fields : { _path: refusal.path };
		fields[refusal.reason] = String(Number(fields[refusal.reason] ?? 0) + 1);
		this.stats.set(refusal.key, { fields, expiresAt: now + refusal.ttlMs });
	}

	async readRefusals(prefix: string, options: { hours: number; now?: number }): Promise<RefusedCaptures[]> {
		return summarizeRefusals(this.bucketsUnder(`${prefix}:refused:`, options), options.hours);
	}

	/** The live hourly buckets under `start` whose hour is among the last `hours`. */
	private bucketsUnder(start: string, options: { hours: number; now?: number }): Array<Record<string, string>> {
		const now = options.now ?? this.clock();
		const wanted = recentBuckets(now, options.hours);
		const buckets: Array<Record<string, string>> = [];
		for (const [key, bucket] of this.stats) {
			if (bucket.expiresAt <= now - STATS_BUCKET_MS || !key.startsWith(start)) continue;
			if (wanted.has(key.slice(key.lastIndexOf(':') + 1))) buckets.push(bucket.fields);
		}
		return buckets;
	}

	/** Number of live keys; for tests and diagnostics. */
	size(): number {
		const now = this.clock();
		this.sweep(now, true);
		return this.entries.size;
	}

	private live(key: string, now: number): Entry | undefined {
		const entry = this.entries.get(key);
		if (entry && entry.expiresAt <= now) {
			this.entries.delete(key);
			return undefined;
		}
		return entry;
	}

	/** Drops expired entries at most once a minute so memory stays bounded by live keys. */
	private sweep(now: number, force = false): void {
		if (!force && now - this.lastSweep < 60_000) return;
		this.lastSweep = now;
		for (const [key, entry] of this.entries) {
			if (entry.expiresAt <= now) this.entries.delete(key);
		}
	}
}
