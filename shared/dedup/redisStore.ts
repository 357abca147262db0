import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import {
	describeRedisTrouble,
	isClusterClient,
	isCommandTimeout,
	waitForReady,
	type RedisClient,
} from '../redis/client';
import { explainOutOfMemory } from '../redis/memory';
import {
	recentBuckets,
	summarizeStats,
	type DestinationStats,
	type StatsIncrements,
} from '../stats/stats';
import { summarizeRefusals, type RefusalIncrement, type RefusedCaptures } from '../stats/refusals';
import type {
	ClaimBatchResult,
	ClaimOptions,
	ClaimOutcome,
	DedupStore,
	LedgerRead,
	RenewOutcome,
	SettleRequest,
	SettleResult,
} from './types';
import { DedupStoreError } from './types';
import { CLAIM_SCRIPT, RENEW_SCRIPT, SETTLE_SCRIPT, claimArguments, settleArguments } from './scripts';

const OUTCOMES: ClaimOutcome[] = ['claimed', 'sent', 'in_flight', 'held'];
const RENEWALS: RenewOutcome[] = ['held', 'sent', 'taken', 'expired'];

export interface RedisDedupStoreOptions {
	/** Used in every error message, e.g. from `describeRedis()`. */
	description: string;
	/** How long to wait for a (re)connection before failing the batch. */
	connectTimeoutMs?: number;
}

/**
 * Redis-backed dedup: one EVAL claims a whole batch (SET NX PX per key, atomically, with the
 * stage ledger of each key claimed), one EVAL settles it (with the counters and the ledger
 * writes). Every claim carries an owner token, so only the run that claimed a key can commit or
 * release it; a crashed run's claims expire on their own. docs/dedup.md lists every command a
 * batch costs.
 *
 * On a Redis Cluster a script may only touch keys of one hash slot, so the store asks for
 * hash-tagged keys (`{<destination>}`): a dispatch goes to one destination, hence its whole
 * batch and its stats key share a slot and still take one EVAL each.
 */
export class RedisDedupStore implements DedupStore {
	readonly description: string;
	readonly hashTagKeys: boolean;
	private readonly connectTimeoutMs: number;

	constructor(
		private readonly client: RedisClient,
		options: RedisDedupStoreOptions,
	) {
		this.description = options.description;
		this.connectTimeoutMs = options.connectTimeoutMs ?? 3_000;
		this.hashTagKeys = isClusterClient(client);
	}

	async claimBatch(
		keys: string[],
		claimTtlMs: number,
		ownerToken?: string,
		options: ClaimOptions = {},
	): Promise<ClaimBatchResult> {
		const token = ownerToken ?? randomUUID();
		if (keys.length === 0) return { token, outcomes: [] };
		const { argv, numKeys, readFor } = claimArguments(keys, `c:${token}`, claimTtlMs, options);
		const reply = await this.eval(CLAIM_SCRIPT, numKeys, argv);
		const [codes, hashes] = Array.isArray(reply) ? (reply as [unknown, unknown]) : [];
		if (!Array.isArray(codes) || codes.length !== keys.length || !Array.isArray(hashes)) {
			throw this.storeError(new Error(`unexpected reply to a batch of ${keys.length} keys`));
		}
		const outcomes = codes.map((code) => OUTCOMES[Number(code)] ?? 'in_flight');
		if (!options.ledgerKeys) return { token, outcomes };
		const ledger = new Array<LedgerRead | undefined>(keys.length);
		readFor.forEach((i, l) => (ledger[i] = this.ledgerRead(hashes[l])));
		return { token, outcomes, ledger };
	}

	/** One ledger hash as the claim script read it (a flat field/value list, an error's text, or false). */
	private ledgerRead(reply: unknown): LedgerRead | undefined {
		if (typeof reply === 'string') return this.storeError(new Error(reply));
		if (!Array.isArray(reply)) return undefined;
		if (reply.length === 0) return null;
		const hash: Record<string, string> = {};
		for (let j = 0; j < reply.length; j += 2) hash[String(reply[j])] = String(reply[j + 1]);
		return hash;
	}

	async settleBatch(token: string, request: SettleRequest): Promise<SettleResult> {
		const hold = request.hold ?? [];
		const { commit, release } = request;
		const result: SettleResult = { committed: 0, released: 0, notOwned: [] };
		if (commit.length + hold.length + release.length === 0 && !request.stats) return result;
		const codes = await this.runSettle(`c:${token}`, request, request.stats);
		codes.forEach((code, i) => {
			const held = i - commit.length;
			const key = held < 0 ? commit[i] : held < hold.length ? hold[held] : release[held - hold.length];
			if (code !== 1) result.notOwned.push(key);
			else if (held < 0) result.committed++;
			else if (held < hold.length) result.held = (result.held ?? 0) + 1;
			else result.released++;
		});
		return result;
	}

	/** The lease renewal of all `keys`: one EVAL. */
	async renewClaims(token: string, keys: string[], claimTtlMs: number): Promise<RenewOutcome[]> {
		if (keys.length === 0) return [];
		const codes = await this.run(RENEW_SCRIPT, keys.length, keys.concat(`c:${token}`, String(claimTtlMs)));
		return codes.map((code) => RENEWALS[code] ?? 'taken');
	}

	/**
	 * Ledger hashes under `start`, at most `limit`: SCAN on every master (a cluster spreads the
	 * destinations), then one pipeline of HGETALL per SCAN page. The glob characters of `start`
	 * are escaped: a destination id is matched as written.
	 */
	async scanLedger(
		start: string,
		limit: number,
	): Promise<{ entries: Array<{ key: string; fields: Record<string, string> }>; truncated: boolean }> {
		const client = this.client;
		const pattern = `${start.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
		return this.guard(async () => {
			const servers = isClusterClient(client) ? client.nodes('master') : [client];
			const entries: Array<{ key: string; fields: Record<string, string> }> = [];
			for (const server of servers) {
				let cursor = '0';
				do {
					const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
					cursor = next;
					const wanted = keys.slice(0, limit - entries.length);
					if (wanted.length > 0) {
						const pipeline = server.pipeline();
						for (const key of wanted) pipeline.hgetall(key);
						const replies = (await pipeline.exec()) ?? [];
						replies.forEach(([error, fields], i) => {
							const hash = (fields ?? {}) as Record<string, string>;
							// A key moved by resharding meanwhile, or expired: not counted this time.
							if (!error && Object.keys(hash).length > 0) entries.push({ key: wanted[i], fields: hash });
						});
					}
					if (wanted.length < keys.length) return { entries, truncated: true };
				} while (cursor !== '0');
			}
			return { entries, truncated: false };
		});
	}

	/** The counters alone, through the settle script: one EVAL, like a settle. */
	async recordStats(stats: StatsIncrements): Promise<void> {
		await this.runSettle('', { commit: [], release: [], committedTtlMs: 0 }, stats);
	}

	/** The stage ledger hashes: one pipeline of HGETALL (one slot in a cluster: hash-tagged). */
	async readLedger(keys: string[]): Promise<Array<Record<string, string> | null>> {
		if (keys.length === 0) return [];
		return this.guard(async () => {
			const pipeline = this.client.pipeline();
			for (const key of keys) pipeline.hgetall(key);
			const replies = (await pipeline.exec()) ?? [];
			return keys.map((_key, i) => {
				const [error, fields] = replies[i] ?? [new Error('no reply')];
				if (error) throw error;
				const hash = (fields ?? {}) as Record<string, string>;
				return Object.keys(hash).length === 0 ? null : hash;
			});
		});
	}

	private runSettle(
		claimValue: string,
		request: SettleRequest,
		stats: StatsIncrements | undefined,
	): Promise<number[]> {
		const { argv, numKeys } = settleArguments(claimValue, request, stats);
		const dedupKeys = request.commit.length + (request.hold?.length ?? 0) + request.release.length;
		return this.run(SETTLE_SCRIPT, numKeys, argv, dedupKeys);
	}

	async readStats(prefix: string, options: { hours: number; now?: number }): Promise<DestinationStats[]> {
		return summarizeStats(await this.readBuckets(`${prefix}:stats:*`, options), options.hours);
	}

	/** One round trip: the reason's counter, the path it belongs to, the bucket's TTL. */
	async recordRefusal(refusal: RefusalIncrement): Promise<void> {
		await this.guard(async () => {
			await this.client
				.multi()
				.hincrby(refusal.key, refusal.reason, 1)
				.hset(refusal.key, '_path', refusal.path)
				.pexpire(refusal.key, refusal.ttlMs)
				.exec();
		});
	}

	async readRefusals(prefix: string, options: { hours: number; now?: number }): Promise<RefusedCaptures[]> {
		return summarizeRefusals(await this.readBuckets(`${prefix}:refused:*`, options), options.hours);
	}

	/** The hourly hashes matching `pattern` whose hour is among the last `hours`. */
	private readBuckets(
		pattern: string,
		options: { hours: number; now?: number },
	): Promise<Array<Record<string, string>>> {
		const wanted = recentBuckets(options.now ?? Date.now(), options.hours);
		const client = this.client;
		return this.guard(async () => {
			// SCAN walks one server's keyspace: in a cluster, every master holds a share of the
			// destinations, so each is scanned and read on its own connection.
			const servers = isClusterClient(client) ? client.nodes('master') : [client];
			const perServer = await Promise.all(
				servers.map((server) => readStatsBuckets(server, pattern, wanted)),
			);
			const buckets = new Map<string, Record<string, string>>();
			const moved: string[] = [];
			for (const found of perServer) {
				for (const [key, fields] of found.buckets) buckets.set(key, fields);
				moved.push(...found.failed);
			}
			// A key that moved to another master while we read (resharding) is read through the
			// cluster, which follows the redirection.
			for (const key of moved) {
				if (!buckets.has(key)) buckets.set(key, await client.hgetall(key));
			}
			return [...buckets.values()];
		});
	}

	private storeError(error: unknown): DedupStoreError {
		const message = error instanceof Error ? error.message : String(error);
		return new DedupStoreError(
			this.description,
			message,
			describeRedisTrouble(message, { cluster: this.hashTagKeys }),
			isCommandTimeout(error),
		);
	}

	/** Runs a command sequence once connected; errors name the store. */
	private async guard<T>(work: () => Promise<T>): Promise<T> {
		try {
			await waitForReady(this.client, this.connectTimeoutMs);
			return await work();
		} catch (error) {
			throw this.storeError(await explainOutOfMemory(this.client, error));
		}
	}

	/** One EVAL (`argv`: its keys, then its arguments) once connected; errors name the store. */
	private async eval(script: string, numKeys: number, argv: string[]): Promise<unknown> {
		try {
			await waitForReady(this.client, this.connectTimeoutMs);
			return await this.client.eval(script, numKeys, argv);
		} catch (error) {
			throw this.storeError(await explainOutOfMemory(this.client, error));
		}
	}

	/** A script answering one number per key (the first `expected` keys). */
	private async run(script: string, numKeys: number, argv: string[], expected = numKeys): Promise<number[]> {
		const reply = await this.eval(script, numKeys, argv);
		if (!Array.isArray(reply) || reply.length !== expected) {
			throw this.storeError(new Error(`unexpected reply to a batch of ${expected} keys`));
		}
		return reply.map(Number);
	}
}

/**
 * The hourly stats hashes on one server whose bucket is wanted: SCAN, then one pipeline of
 * HGETALL. Keys that moved to another node meanwhile are returned in `failed`.
 */
async function readStatsBuckets(
	server: Redis,
	pattern: string,
	wanted: Set<string>,
): Promise<{ buckets: Map<string, Record<string, string>>; failed: string[] }> {
	const keys: string[] = [];
	let cursor = '0';
	do {
		const [next, found] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
		cursor = next;
		for (const key of found) if (wanted.has(key.slice(key.lastIndexOf(':') + 1))) keys.push(key);
	} while (cursor !== '0');
	const buckets = new Map<string, Record<string, string>>();
	const failed: string[] = [];
	if (keys.length === 0) return { buckets, failed };
	const pipeline = server.pipeline();
	for (const key of keys) pipeline.hgetall(key);
	const replies = (await pipeline.exec()) ?? [];
	replies.forEach(([error, fields], i) => {
		if (!error) buckets.set(keys[i], (fields ?? {}) as Record<string, string>);
		else if (/^(MOVED|ASK) /.test(error.message)) failed.push(keys[i]);
		// Anything else under the stats pattern is not ours to count.
	});
	return { buckets, failed };
}
