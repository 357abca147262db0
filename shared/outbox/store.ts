import { isClusterClient, type RedisClient } from '../redis/client';
import type { KeptLedgerWrite } from '../dispatch/types';
import { DEFAULT_KEY_PREFIX } from '../clientKey';
import type { Platform } from '../types';
import { OUTBOX_TTL_MARGIN_MS, outboxBounds, type OutboxBounds } from '../redis/budget';

/** How much of a failure's message an entry keeps. */
export const LAST_ERROR_CHARS = 300;

/**
 * Bytes the budget keeps per queued entry for what it may still grow by: a retry's message
 * (LAST_ERROR_CHARS, sealed: base64) and its dead-letter record (reason and message). With it,
 * the bytes held never pass the budget, whatever becomes of the entries already queued.
 */
export const ENTRY_GROWTH_BYTES = 1024;

/** A new entry the outbox did not take: its destination's budget is spent, or Redis's headroom. */
export interface Refused {
	id: string;
	why: 'budget' | 'memory';
}

/** One outbox: a client's (key prefix) queue for one platform destination. */
export interface OutboxQueue {
	platform: Platform;
	destination: string;
}

/** What a sealed entry holds (encrypted at rest, see crypto.ts). */
export interface OutboxEntry {
	event_id: string;
	event_name: string;
	event_time: number;
	/** The built event, as the platform wants it (hashed where it hashes). */
	payload: unknown;
	/** Sends tried so far (the in-run one included). */
	attempts: number;
	/** Unix ms after which the platform no longer accepts the event. */
	deadline: number;
	/** The last failure's message, at most LAST_ERROR_CHARS (an entry grows by little when retried). */
	last_error?: string;
	queued_at: number;
	/**
	 * The stage-ledger write a successful send makes (KeptLedgerWrite: the ledger key — record
	 * id hashed — and the non-personal facts the ledger keeps). Absent without a ledger.
	 */
	ledger?: KeptLedgerWrite;
}

/**
 * Writes to one queue, applied together in one script (one round trip): entries queued (or
 * queued again) with their next try, entries removed (delivered), entries moved to dead letters
 * with the reason (`sealed`: the entry to keep, when it changed; else the one queued).
 */
export interface QueueWrites {
	/** `deadline`: when the platform's window ends for the event (the queue's keys outlive it). */
	enqueue: Array<{ id: string; sealed: string; dueAt: number; deadline: number }>;
	remove: string[];
	dead: Array<{ id: string; reason: DeadReason; message: string; sealed?: string }>;
}

/** Why an entry is in dead letters (`expired`: its platform's event-time window passed). */
export type DeadReason = 'expired' | 'rejected' | 'undecryptable' | 'not_found';

/** A dead letter as List shows it: no personal data (the event stays sealed). */
export interface DeadLetter {
	event_id: string;
	reason: DeadReason;
	message: string;
	at: number;
}

/** A claimed due entry: its sealed text (null when it vanished meanwhile). */
export interface DueEntry {
	id: string;
	sealed: string | null;
}

const CLAIM_DUE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], ARGV[3], id)
  local sealed = redis.call('HGET', KEYS[2], id)
  table.insert(out, id)
  table.insert(out, sealed or '')
end
return out`;

/**
 * KEYS: due, entries, dead, bytes (queued bytes), deadbytes, deadat (dead letter → when).
 * ARGV: now, #enqueue, #remove, #dead, maxBytes, headroom %, dead-letter ms, TTL margin ms,
 * growth bytes kept per queued entry (ENTRY_GROWTH_BYTES),
 * then (id, sealed, dueAt, deadline)…, id…, (id, reason, message, sealed)…
 * Returns the refused new entries: id, 'budget' | 'memory', … (an entry already queued is
 * never refused: queueing it again replaces it).
 */
const APPLY = `
local now = tonumber(ARGV[1])
local maxBytes = tonumber(ARGV[5])
local growth = tonumber(ARGV[9])
local headroom = tonumber(ARGV[6])
local keep = tonumber(ARGV[7])
local margin = tonumber(ARGV[8])
local function num(key) return tonumber(redis.call('GET', key) or '0') end
local limit = nil
local function memoryLimit()
  if limit == nil then
    limit = false
    local ok, info = pcall(redis.call, 'INFO', 'memory')
    local max = ok and tonumber(string.match(info, '\\nmaxmemory:(%d+)') or '0') or 0
    if max > 0 then limit = { used = tonumber(string.match(info, 'used_memory:(%d+)')), cap = max * (100 - headroom) / 100 } end
  end
  return limit
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now - keep)) do
  redis.call('DECRBY', KEYS[5], redis.call('HSTRLEN', KEYS[3], id))
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[6], id)
end
local bytes = num(KEYS[4])
local dead = num(KEYS[5])
local refused = {}
local ttl = 0
local i = 10
local count = redis.call('HLEN', KEYS[2])
for _ = 1, tonumber(ARGV[2]) do
  local id, sealed = ARGV[i], ARGV[i + 1]
  local prev = redis.call('HSTRLEN', KEYS[2], id)
  local add = #sealed - prev
  local mem = memoryLimit()
  local why = nil
  if prev == 0 and bytes + dead + add + (count + 1) * growth > maxBytes then why = 'budget'
  elseif prev == 0 and mem and mem.used + add > mem.cap then why = 'memory' end
  if why then
    table.insert(refused, id)
    table.insert(refused, why)
  else
    redis.call('HSET', KEYS[2], id, sealed)
    redis.call('ZADD', KEYS[1], ARGV[i + 2], id)
    if mem then mem.used = mem.used + add end
    bytes = bytes + add
    if prev == 0 then count = count + 1 end
    ttl = math.max(ttl, tonumber(ARGV[i + 3]) - now + margin)
  end
  i = i + 4
end
for _ = 1, tonumber(ARGV[3]) do
  bytes = bytes - redis.call('HSTRLEN', KEYS[2], ARGV[i])
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
  i = i + 1
end
local deadWritten = tonumber(ARGV[4]) > 0
for _ = 1, tonumber(ARGV[4]) do
  local id = ARGV[i]
  local sealed = ARGV[i + 3]
  if sealed == '' then sealed = redis.call('HGET', KEYS[2], id) or '' end
  bytes = bytes - redis.call('HSTRLEN', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  local record = cjson.encode({reason = ARGV[i + 1], message = ARGV[i + 2], at = now, sealed = sealed})
  dead = dead + #record - redis.call('HSTRLEN', KEYS[3], id)
  redis.call('HSET', KEYS[3], id, record)
  redis.call('ZADD', KEYS[6], now, id)
  i = i + 4
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  local left = redis.call('PTTL', KEYS[2])
  if ttl > left then left = ttl end
  if left > 0 then
    redis.call('PEXPIRE', KEYS[2], left)
    redis.call('PEXPIRE', KEYS[1], left)
    redis.call('SET', KEYS[4], math.max(bytes, 0), 'PX', left)
  else
    -- a queue written before the bounds (no TTL) keeps none until an event is queued in it:
    -- a short TTL here could drop entries whose window is still open
    redis.call('SET', KEYS[4], math.max(bytes, 0))
  end
else
  redis.call('DEL', KEYS[4])
  if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], margin) end
end
if redis.call('EXISTS', KEYS[3]) == 1 then
  if deadWritten or redis.call('PTTL', KEYS[3]) < 0 then
    redis.call('PEXPIRE', KEYS[3], keep)
    redis.call('PEXPIRE', KEYS[6], keep)
  end
  redis.call('SET', KEYS[5], math.max(dead, 0), 'PX', redis.call('PTTL', KEYS[3]))
else
  redis.call('DEL', KEYS[5], KEYS[6])
end
return refused`;

/** Lists a queue in the index, its TTL at least the queue's (one key of its own slot). */
const LIST = `
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

/** KEYS: due, entries, dead, bytes, deadbytes, deadat; ARGV: id…, now, TTL margin ms. */
const REPLAY = `
local moved = 0
local now, margin = ARGV[#ARGV - 1], tonumber(ARGV[#ARGV])
for i = 1, #ARGV - 2 do
  local raw = redis.call('HGET', KEYS[3], ARGV[i])
  if raw then
    local dead = cjson.decode(raw)
    redis.call('DECRBY', KEYS[5], #raw)
    redis.call('HDEL', KEYS[3], ARGV[i])
    redis.call('ZREM', KEYS[6], ARGV[i])
    if dead.sealed and dead.sealed ~= '' then
      redis.call('INCRBY', KEYS[4], #dead.sealed - redis.call('HSTRLEN', KEYS[2], ARGV[i]))
      redis.call('HSET', KEYS[2], ARGV[i], dead.sealed)
      redis.call('ZADD', KEYS[1], now, ARGV[i])
      moved = moved + 1
    end
  end
end
for _, key in ipairs({KEYS[1], KEYS[2], KEYS[4]}) do
  if redis.call('PTTL', key) < margin then redis.call('PEXPIRE', key, margin) end
end
local deadTtl = redis.call('PTTL', KEYS[3])
if deadTtl > 0 then redis.call('PEXPIRE', KEYS[5], deadTtl) else redis.call('DEL', KEYS[5], KEYS[6]) end
return moved`;

/** KEYS: dead, deadbytes, deadat; ARGV: id…. Returns how many were deleted. */
const PURGE = `
local n = 0
for i = 1, #ARGV do
  local size = redis.call('HSTRLEN', KEYS[1], ARGV[i])
  if redis.call('HDEL', KEYS[1], ARGV[i]) == 1 then
    n = n + 1
    redis.call('DECRBY', KEYS[2], size)
  end
  redis.call('ZREM', KEYS[3], ARGV[i])
end
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('DEL', KEYS[2], KEYS[3]) end
return n`;

/**
 * The outbox in Redis. Per queue three keys sharing a hash tag (one Cluster slot):
 * `<prefix>:outbox:{<platform>:<destination>}:due` (sorted set: event id → next try, ms),
 * `…:entries` (hash: event id → sealed entry) and `…:dead` (hash: event id → reason and the
 * sealed entry); `<prefix>:outbox:queues` lists the queues. Nothing readable without the key
 * but event ids, due times and dead-letter reasons.
 */
export class OutboxStore {
	readonly prefix: string;

	readonly bounds: OutboxBounds;

	constructor(
		private readonly client: RedisClient,
		prefix?: string,
		bounds: Partial<OutboxBounds> = {},
	) {
		this.prefix = prefix || DEFAULT_KEY_PREFIX;
		this.bounds = { ...outboxBounds(), ...bounds };
	}

	private keyList(q: OutboxQueue): string[] {
		const k = this.keys(q);
		return [k.due, k.entries, k.dead, k.bytes, k.deadBytes, k.deadAt];
	}

	private keys(q: OutboxQueue) {
		const base = `${this.prefix}:outbox:{${q.platform}:${q.destination}}`;
		return {
			due: `${base}:due`,
			entries: `${base}:entries`,
			dead: `${base}:dead`,
			bytes: `${base}:bytes`,
			deadBytes: `${base}:deadbytes`,
			deadAt: `${base}:deadat`,
		};
	}

	private get index() {
		return `${this.prefix}:outbox:queues`;
	}

	/**
	 * Queues an entry (sealed) for `dueAt`; the same event id queued again replaces it. Returns
	 * false when the outbox refused it (the destination's budget, or Redis's headroom).
	 */
	async enqueue(
		q: OutboxQueue,
		id: string,
		sealed: string,
		dueAt: number,
		deadline = dueAt + OUTBOX_TTL_MARGIN_MS,
	): Promise<boolean> {
		const writes = { enqueue: [{ id, sealed, dueAt, deadline }], remove: [], dead: [] };
		return (await this.apply(q, writes, dueAt)).length === 0;
	}

	/**
	 * Applies a queue's writes in one script (atomic for the queue): new entries past the
	 * destination's byte budget, or that would eat into Redis's headroom (bounds), are refused
	 * and returned; every key of the queue gets a TTL (the queued ones past the latest deadline
	 * plus a margin, dead letters their keep time, older dead letters dropped). When entries were
	 * queued or dead-lettered it lists the queue (every time: a list lost comes back with the
	 * next write). One round trip (a pipeline); two on a Cluster, where the list is elsewhere.
	 */
	async apply(q: OutboxQueue, writes: QueueWrites, now: number): Promise<Refused[]> {
		const { enqueue, remove, dead } = writes;
		if (enqueue.length + remove.length + dead.length === 0) return [];
		const b = this.bounds;
		const args = [now, enqueue.length, remove.length, dead.length, b.maxBytes, b.headroomPercent]
			.concat([b.deadLetterMs, OUTBOX_TTL_MARGIN_MS, ENTRY_GROWTH_BYTES])
			.map(String);
		for (const e of enqueue) args.push(e.id, e.sealed, String(e.dueAt), String(e.deadline));
		args.push(...remove);
		for (const d of dead)
			args.push(d.id, d.reason, d.message.slice(0, LAST_ERROR_CHARS), d.sealed ?? '');
		const listed = enqueue.length + dead.length > 0;
		const listTtl =
			Math.max(b.deadLetterMs, ...enqueue.map((e) => e.deadline - now)) + OUTBOX_TTL_MARGIN_MS;
		const listArgs = [
			LIST,
			1,
			this.index,
			`${q.platform}|${q.destination}`,
			String(listTtl),
		] as const;
		if (!listed || isClusterClient(this.client)) {
			const reply = await this.client.eval(APPLY, 6, ...this.keyList(q), ...args);
			if (listed) await this.client.eval(...listArgs);
			return refusedOf(reply);
		}
		const replies = await this.client
			.pipeline()
			.eval(APPLY, 6, ...this.keyList(q), ...args)
			.eval(...listArgs)
			.exec();
		const failed = (replies ?? []).find(([error]) => error);
		if (failed) throw failed[0];
		if (!replies) throw new Error('the outbox write got no reply');
		return refusedOf(replies[0][1]);
	}

	/** Bytes a queue holds (its sealed queued events and its dead letters, as counted). */
	async bytes(q: OutboxQueue): Promise<{ queued: number; dead: number }> {
		const k = this.keys(q);
		const [queued, dead] = await this.client.mget(k.bytes, k.deadBytes);
		return { queued: Number(queued ?? 0), dead: Number(dead ?? 0) };
	}

	async queues(): Promise<OutboxQueue[]> {
		const members = await this.client.smembers(this.index);
		return members.sort().map((m) => {
			const at = m.indexOf('|');
			return { platform: m.slice(0, at) as Platform, destination: m.slice(at + 1) };
		});
	}

	/**
	 * Takes up to `limit` entries due at `now` and leases them for `leaseMs` (their next try
	 * moves past the lease), in one script: drainers polling at once never take the same entry.
	 * An entry whose drain dies comes due again when the lease ends.
	 */
	async claimDue(q: OutboxQueue, now: number, limit: number, leaseMs: number): Promise<DueEntry[]> {
		const k = this.keys(q);
		const reply = (await this.client.eval(
			CLAIM_DUE,
			2,
			k.due,
			k.entries,
			String(now),
			String(limit),
			String(now + leaseMs),
		)) as string[];
		const out: DueEntry[] = [];
		for (let i = 0; i < reply.length; i += 2)
			out.push({ id: reply[i], sealed: reply[i + 1] || null });
		return out;
	}

	async load(q: OutboxQueue, ids: string[]): Promise<Array<string | null>> {
		if (ids.length === 0) return [];
		return this.client.hmget(this.keys(q).entries, ...ids);
	}

	/** Removes a delivered entry. */
	async remove(q: OutboxQueue, id: string): Promise<void> {
		await this.apply(q, { enqueue: [], remove: [id], dead: [] }, 0);
	}

	/** Writes an entry back with its next try (after a retryable failure). */
	async reschedule(q: OutboxQueue, id: string, sealed: string, dueAt: number): Promise<void> {
		await this.enqueue(q, id, sealed, dueAt);
	}

	/** Moves an entry to dead letters with the reason (its sealed event kept for Replay). */
	async deadLetter(q: OutboxQueue, id: string, reason: DeadReason, message: string, now: number) {
		await this.apply(q, { enqueue: [], remove: [], dead: [{ id, reason, message }] }, now);
	}

	async pendingCount(q: OutboxQueue): Promise<number> {
		return this.client.zcard(this.keys(q).due);
	}

	/**
	 * A queue's dead letters; with `now`, only those still within their keep time (older ones
	 * are dropped at the queue's next write).
	 */
	async deadLetters(q: OutboxQueue, now?: number): Promise<DeadLetter[]> {
		const all = await this.client.hgetall(this.keys(q).dead);
		const letters = Object.entries(all).map(([event_id, raw]) => {
			const dead = JSON.parse(raw) as { reason: DeadReason; message: string; at: number };
			return { event_id, reason: dead.reason, message: dead.message, at: dead.at };
		});
		return now === undefined
			? letters
			: letters.filter((d) => now - d.at <= this.bounds.deadLetterMs);
	}

	/** Puts dead letters back in the queue, due at `now` (same event ids). Returns how many. */
	async replay(q: OutboxQueue, ids: string[] | 'all', now: number): Promise<number> {
		const chosen = ids === 'all' ? await this.client.hkeys(this.keys(q).dead) : ids;
		if (chosen.length === 0) return 0;
		const margin = String(OUTBOX_TTL_MARGIN_MS);
		return (await this.client.eval(
			REPLAY,
			6,
			...this.keyList(q),
			...chosen,
			String(now),
			margin,
		)) as number;
	}

	/** Deletes dead letters for good. Returns how many. */
	async purge(q: OutboxQueue, ids: string[] | 'all'): Promise<number> {
		const k = this.keys(q);
		const chosen = ids === 'all' ? await this.client.hkeys(k.dead) : ids;
		if (chosen.length === 0) return 0;
		return (await this.client.eval(PURGE, 3, k.dead, k.deadBytes, k.deadAt, ...chosen)) as number;
	}
}

function refusedOf(reply: unknown): Refused[] {
	const flat = (reply ?? []) as string[];
	const out: Refused[] = [];
	for (let i = 0; i < flat.length; i += 2)
		out.push({ id: flat[i], why: flat[i + 1] as Refused['why'] });
	return out;
}
