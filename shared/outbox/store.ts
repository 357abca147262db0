import { isClusterClient, type RedisClient } from '../redis/client';
import type { KeptLedgerWrite } from '../dispatch/types';
import { DEFAULT_KEY_PREFIX } from '../clientKey';
import type { Platform } from '../types';

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
	enqueue: Array<{ id: string; sealed: string; dueAt: number }>;
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

const APPLY = `
local now = tonumber(ARGV[1])
local i = 5
for _ = 1, tonumber(ARGV[2]) do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
  i = i + 3
end
for _ = 1, tonumber(ARGV[3]) do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
  i = i + 1
end
for _ = 1, tonumber(ARGV[4]) do
  local id = ARGV[i]
  local sealed = ARGV[i + 3]
  if sealed == '' then sealed = redis.call('HGET', KEYS[2], id) or '' end
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HSET', KEYS[3], id, cjson.encode({reason = ARGV[i + 1], message = ARGV[i + 2], at = now, sealed = sealed}))
  i = i + 4
end
return 1`;

const REPLAY = `
local moved = 0
for i = 1, #ARGV - 1 do
  local raw = redis.call('HGET', KEYS[3], ARGV[i])
  if raw then
    local dead = cjson.decode(raw)
    redis.call('HDEL', KEYS[3], ARGV[i])
    if dead.sealed and dead.sealed ~= '' then
      redis.call('HSET', KEYS[2], ARGV[i], dead.sealed)
      redis.call('ZADD', KEYS[1], ARGV[#ARGV], ARGV[i])
      moved = moved + 1
    end
  end
end
return moved`;

/**
 * The outbox in Redis. Per queue three keys sharing a hash tag (one Cluster slot):
 * `<prefix>:outbox:{<platform>:<destination>}:due` (sorted set: event id → next try, ms),
 * `…:entries` (hash: event id → sealed entry) and `…:dead` (hash: event id → reason and the
 * sealed entry); `<prefix>:outbox:queues` lists the queues. Nothing readable without the key
 * but event ids, due times and dead-letter reasons.
 */
export class OutboxStore {
	readonly prefix: string;

	constructor(
		private readonly client: RedisClient,
		prefix?: string,
	) {
		this.prefix = prefix || DEFAULT_KEY_PREFIX;
	}

	private keys(q: OutboxQueue) {
		const base = `${this.prefix}:outbox:{${q.platform}:${q.destination}}`;
		return { due: `${base}:due`, entries: `${base}:entries`, dead: `${base}:dead` };
	}

	private get index() {
		return `${this.prefix}:outbox:queues`;
	}

	/** Queues an entry (sealed) for `dueAt`; the same event id queued again replaces it. */
	async enqueue(q: OutboxQueue, id: string, sealed: string, dueAt: number): Promise<void> {
		await this.apply(q, { enqueue: [{ id, sealed, dueAt }], remove: [], dead: [] }, dueAt);
	}

	/**
	 * Applies a queue's writes in one script (atomic for the queue) and — when entries were
	 * queued or dead-lettered — lists the queue (SADD, every time: a list lost to eviction comes
	 * back with the next write). One round trip (a pipeline); two on a Cluster, where the list
	 * is in another slot.
	 */
	async apply(q: OutboxQueue, writes: QueueWrites, now: number): Promise<void> {
		const { enqueue, remove, dead } = writes;
		if (enqueue.length + remove.length + dead.length === 0) return;
		const k = this.keys(q);
		const args = [String(now), String(enqueue.length), String(remove.length), String(dead.length)];
		for (const e of enqueue) args.push(e.id, e.sealed, String(e.dueAt));
		args.push(...remove);
		for (const d of dead) args.push(d.id, d.reason, d.message.slice(0, 300), d.sealed ?? '');
		const listed = enqueue.length + dead.length > 0;
		const member = `${q.platform}|${q.destination}`;
		if (!listed || isClusterClient(this.client)) {
			await this.client.eval(APPLY, 3, k.due, k.entries, k.dead, ...args);
			if (listed) await this.client.sadd(this.index, member);
			return;
		}
		const replies = await this.client
			.pipeline()
			.eval(APPLY, 3, k.due, k.entries, k.dead, ...args)
			.sadd(this.index, member)
			.exec();
		const failed = (replies ?? []).find(([error]) => error);
		if (failed) throw failed[0];
		if (!replies) throw new Error('the outbox write got no reply');
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

	async deadLetters(q: OutboxQueue): Promise<DeadLetter[]> {
		const all = await this.client.hgetall(this.keys(q).dead);
		return Object.entries(all).map(([event_id, raw]) => {
			const dead = JSON.parse(raw) as { reason: DeadReason; message: string; at: number };
			return { event_id, reason: dead.reason, message: dead.message, at: dead.at };
		});
	}

	/** Puts dead letters back in the queue, due at `now` (same event ids). Returns how many. */
	async replay(q: OutboxQueue, ids: string[] | 'all', now: number): Promise<number> {
		const k = this.keys(q);
		const chosen = ids === 'all' ? await this.client.hkeys(k.dead) : ids;
		if (chosen.length === 0) return 0;
		return (await this.client.eval(
			REPLAY,
			3,
			k.due,
			k.entries,
			k.dead,
			...chosen,
			String(now),
		)) as number;
	}

	/** Deletes dead letters for good. Returns how many. */
	async purge(q: OutboxQueue, ids: string[] | 'all'): Promise<number> {
		const k = this.keys(q);
		if (ids === 'all') {
			const n = await this.client.hlen(k.dead);
			await this.client.del(k.dead);
			return n;
		}
		return ids.length ? this.client.hdel(k.dead, ...ids) : 0;
	}
}
