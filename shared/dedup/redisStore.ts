import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { describeRedisTrouble, isClusterClient, waitForReady, type RedisClient } from './redisClient';
import { explainOutOfMemory } from './memoryReport';
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

/*
 * Key values: `c:<token>` while claimed (short TTL), `s` once committed (long TTL), `u` held
 * after an unknown outcome (long TTL, like `s`). Nothing else is stored: no personal data ever reaches Redis, only hashed event ids in key names.
 */

/**
 * KEYS = keys to claim (ARGV[4] of them), then stage ledger keys; ARGV[1] = claim value, ARGV[2] =
 * claim TTL ms, ARGV[3] = '1' to take held keys too, ARGV[4] = number of keys to claim; from
 * ARGV[5], per ledger key the index of its key to claim. Returns { codes, ledgers }: per key 0
 * claimed (also when this owner already holds it), 1 sent, 2 in flight (another owner's live
 * claim), 3 held after an unknown outcome (not taken); per ledger key, when its key was claimed,
 * the hash (HGETALL, empty when none) or the error that read it (text), else false.
 */
const CLAIM_SCRIPT = `
local n = tonumber(ARGV[4])
local out = {}
for i = 1, n do
  local key = KEYS[i]
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    out[i] = 0
  else
    local v = redis.call('GET', key)
    if v == false then
      redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
      out[i] = 0
    elseif v == 's' then
      out[i] = 1
    elseif v == ARGV[1] then
      out[i] = 0
    elseif v == 'u' then
      if ARGV[3] == '1' then
        redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
        out[i] = 0
      else
        out[i] = 3
      end
    else
      out[i] = 2
    end
  end
end
local ledgers = {}
for l = 1, #KEYS - n do
  ledgers[l] = false
  if out[tonumber(ARGV[4 + l])] == 0 then
    local hash = redis.pcall('HGETALL', KEYS[n + l])
    if hash.err then ledgers[l] = hash.err else ledgers[l] = hash end
  end
end
return { out, ledgers }
`;

/**
 * KEYS = commit keys, then hold keys, then release keys, then the stage ledger keys (ARGV[5] of
 * them), then (when ARGV[4] = '1') the stats key; ARGV[1] = claim value, ARGV[2] = committed
 * TTL ms, ARGV[3] = number of commit keys, ARGV[4] = '1' with stats, ARGV[5] = number of ledger
 * keys, ARGV[6] = number of hold keys; from ARGV[7]: with stats, its TTL ms, platform,
 * destination, number of pairs, then field / increment pairs; then per ledger key: the index of
 * its gating commit key, its TTL ms, the numbers of set and set-if-absent pairs, then those
 * field / value pairs. The dedup keys are read with one MGET per 1,000. A ledger key is written
 * only when its gating commit lands: one HMGET of its set-if-absent fields, one HSET of the set
 * fields and of the set-if-absent fields it lacks, one PEXPIRE. Returns per dedup key 1 (done)
 * or 0 (owned by someone else). A commit (or hold) also lands when our claim already expired and
 * nobody took the key: the event was sent (or may have been).
 */
const SETTLE_SCRIPT = `
local out = {}
local ncommit = tonumber(ARGV[3])
local nledger = tonumber(ARGV[5])
local nhold = tonumber(ARGV[6])
local nkeys = #KEYS - nledger
if ARGV[4] == '1' then nkeys = nkeys - 1 end
local values = {}
for s = 1, nkeys, 1000 do
  local got = redis.call('MGET', unpack(KEYS, s, math.min(s + 999, nkeys)))
  for k = 1, #got do values[s + k - 1] = got[k] end
end
for i = 1, nkeys do
  local key = KEYS[i]
  local v = values[i]
  if i <= ncommit then
    if v == ARGV[1] or v == false then
      redis.call('SET', key, 's', 'PX', ARGV[2])
      out[i] = 1
    elseif v == 's' then
      out[i] = 1
    else
      out[i] = 0
    end
  elseif i <= ncommit + nhold then
    if v == ARGV[1] or v == false then
      redis.call('SET', key, 'u', 'PX', ARGV[2])
      out[i] = 1
    else
      out[i] = 0
    end
  else
    if v == ARGV[1] then
      redis.call('DEL', key)
      out[i] = 1
    else
      out[i] = 0
    end
  end
end
local a = 7
if ARGV[4] == '1' then
  local stats = KEYS[#KEYS]
  local npairs = tonumber(ARGV[a + 3])
  redis.call('HSET', stats, '_platform', ARGV[a + 1], '_destination', ARGV[a + 2])
  for j = a + 4, a + 3 + 2 * npairs, 2 do
    redis.call('HINCRBY', stats, ARGV[j], ARGV[j + 1])
  end
  redis.call('PEXPIRE', stats, ARGV[a])
  a = a + 4 + 2 * npairs
end
for l = 1, nledger do
  local key = KEYS[nkeys + l]
  local nset = tonumber(ARGV[a + 2])
  local nnx = tonumber(ARGV[a + 3])
  local first = a + 4
  local absent = first + 2 * nset
  if out[tonumber(ARGV[a])] == 1 then
    local fields = {}
    if nnx > 0 then
      local names = {}
      for k = 1, nnx do names[k] = ARGV[absent + 2 * k - 2] end
      local held = redis.call('HMGET', key, unpack(names))
      for k = 1, nnx do
        if held[k] == false then
          fields[#fields + 1] = names[k]
          fields[#fields + 1] = ARGV[absent + 2 * k - 1]
        end
      end
    end
    for j = first, absent - 1 do fields[#fields + 1] = ARGV[j] end
    if #fields > 0 then redis.call('HSET', key, unpack(fields)) end
    redis.call('PEXPIRE', key, ARGV[a + 1])
  end
  a = absent + 2 * nnx
end
return out
`;

/**
 * The lease renewal: KEYS = a run's in-flight keys; ARGV[1] = its claim value, ARGV[2] = claim
 * TTL ms. Extends only the keys that still hold this claim value, nothing else. Returns per
 * key 0 held, 1 sent, 2 taken by another run, 3 expired.
 */
const RENEW_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 0
  elseif v == false then
    out[i] = 3
  elseif v == 's' then
    out[i] = 1
  else
    out[i] = 2
  end
end
return out
`;

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
		const take = options.takeHeld ? '1' : '0';
		const args = [`c:${token}`, String(claimTtlMs), take, String(keys.length)];
		const allKeys = keys.slice();
		const readFor: number[] = [];
		options.ledgerKeys?.forEach((ledgerKey, i) => {
			if (ledgerKey === undefined) return;
			allKeys.push(ledgerKey);
			args.push(String(i + 1));
			readFor.push(i);
		});
		const reply = await this.eval(CLAIM_SCRIPT, allKeys, args);
		const [codes, hashes] = Array.isArray(reply) ? (reply as [unknown, unknown]) : [];
		if (!Array.isArray(codes) || codes.length !== keys.length || !Array.isArray(hashes)) {
			throw this.storeError(new Error(`unexpected reply to a batch of ${keys.length} keys`));
		}
		const result: ClaimBatchResult = { token, outcomes: codes.map((code) => OUTCOMES[Number(code)] ?? 'in_flight') };
		if (options.ledgerKeys) {
			result.ledger = new Array<LedgerRead | undefined>(keys.length);
			readFor.forEach((i, l) => (result.ledger![i] = this.ledgerRead(hashes[l])));
		}
		return result;
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
		const keys = [...request.commit, ...hold, ...request.release];
		const result: SettleResult = { committed: 0, released: 0, notOwned: [] };
		if (keys.length === 0 && !request.stats) return result;
		const counts = { commit: request.commit.length, hold: hold.length };
		const codes = await this.runSettle(keys, `c:${token}`, request, request.stats);
		codes.forEach((code, i) => {
			if (code !== 1) result.notOwned.push(keys[i]);
			else if (i < counts.commit) result.committed++;
			else if (i < counts.commit + counts.hold) result.held = (result.held ?? 0) + 1;
			else result.released++;
		});
		return result;
	}

	/** The lease renewal of all `keys`: one EVAL. */
	async renewClaims(token: string, keys: string[], claimTtlMs: number): Promise<RenewOutcome[]> {
		if (keys.length === 0) return [];
		const codes = await this.run(RENEW_SCRIPT, keys, [`c:${token}`, String(claimTtlMs)]);
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
		await this.runSettle([], '', { commit: [], release: [], committedTtlMs: 0 }, stats);
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
		keys: string[],
		claimValue: string,
		request: SettleRequest,
		stats: StatsIncrements | undefined,
	): Promise<number[]> {
		const gate = new Map(request.commit.map((key, i) => [key, i + 1]));
		const ledger = (request.ledger ?? []).filter((w) => gate.has(w.gateKey));
		const args = [
			claimValue,
			String(request.committedTtlMs),
			String(request.commit.length),
			stats ? '1' : '0',
			String(ledger.length),
			String(request.hold?.length ?? 0),
		];
		if (stats) {
			const pairs = Object.entries(stats.increments);
			args.push(String(stats.ttlMs), stats.platform, stats.destination, String(pairs.length));
			for (const [field, increment] of pairs) args.push(field, String(increment));
		}
		for (const write of ledger) {
			const set = Object.entries(write.set);
			const absent = Object.entries(write.setIfAbsent);
			args.push(
				String(gate.get(write.gateKey)),
				String(write.ttlMs),
				String(set.length),
				String(absent.length),
			);
			for (const [field, value] of [...set, ...absent]) args.push(field, value);
		}
		const allKeys = [...keys, ...ledger.map((w) => w.key), ...(stats ? [stats.key] : [])];
		return this.run(SETTLE_SCRIPT, allKeys, args, keys.length);
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

	/** One EVAL once connected; errors name the store. */
	private async eval(script: string, keys: string[], args: string[]): Promise<unknown> {
		try {
			await waitForReady(this.client, this.connectTimeoutMs);
			return await this.client.eval(script, keys.length, ...keys, ...args);
		} catch (error) {
			throw this.storeError(await explainOutOfMemory(this.client, error));
		}
	}

	/** A script answering one number per key (the first `expected` keys). */
	private async run(
		script: string,
		keys: string[],
		args: string[],
		expected = keys.length,
	): Promise<number[]> {
		const reply = await this.eval(script, keys, args);
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
