import { waitForReady, type RedisClient } from '../redis/client';
import { explainOutOfMemory } from '../redis/memory';
import type { LeadRecord } from '../types';
import { DEFAULT_MAX_ENTRY_BYTES, MIN_MAX_ENTRY_BYTES } from './limits';
import { captureLogEntry } from './entry';
import { captureLogSize, entryCost, ENTRY_OVERHEAD_BYTES, ENTRY_ROUNDING } from '../redis/logSize';
import type { EntryCut, RedactedRecord, RedactOptions } from './types';

export const CAPTURE_LOG_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_CAPTURE_LOG_MAX_ENTRIES = 100_000;
/** Byte budget of one capture log: 64 MiB (about 100,000 typical entries of ~600 bytes). */
export const DEFAULT_CAPTURE_LOG_MAX_BYTES = 64 * 1024 * 1024;
/** The smallest budget accepted: a few hundred maximum-size entries. */
export const MIN_CAPTURE_LOG_MAX_BYTES = 1024 * 1024;
/** Entries read per XREVRANGE call when building a preview. */
const READ_PAGE = 5_000;

/**
 * `<prefix>:capturelog:<workflow id>:<name>` — one log per workflow and trigger path (or Capture
 * Log Name), so two workflows on the same path never read each other's captures; with a Client
 * Key the prefix is `<prefix>:<client key>`. The nodes always pass the workflow id; without one
 * (tools, tests) the key is `<prefix>:capturelog:<name>`.
 */
export function captureLogKey(prefix: string, name: string, workflowId?: string): string {
	const scope = workflowId === undefined ? '' : `${workflowId.replace(/[^A-Za-z0-9_.-]/g, '_') || '_'}:`;
	return `${prefix || 'leadcapi'}:capturelog:${scope}${name}`;
}

export interface CaptureLogEntry {
	/** Redis stream id (`<ms>-<seq>`), assigned by Redis. */
	id: string;
	/** Epoch ms the capture was logged (from the stream id). */
	at: number;
	record: RedactedRecord;
}

export interface CaptureLogOptions {
	key: string;
	/** Length cap; older entries are trimmed first. */
	maxEntries?: number;
	/** Byte budget of the whole log (each entry counted as entryCost of its JSON); older entries are trimmed first. */
	maxBytes?: number;
	/** Byte cap of one entry's JSON (see boundEntry). */
	maxEntryBytes?: number;
	/** Entries older than this are trimmed (default 7 days). */
	windowMs?: number;
	connectTimeoutMs?: number;
	clock?: () => number;
}

/** What one append did. */
export interface CaptureLogAppend {
	/** Redis stream id of the new entry. */
	id: string;
	/** Bytes the entry counts for in the budget (entryCost of its JSON). */
	bytes: number;
	/** Entries and counted bytes of the whole log after the append and its trims. */
	entries: number;
	logBytes: number;
	/** What bounding cut from this capture (absent when nothing). */
	truncated?: EntryCut;
}

/**
 * The append, atomic in Redis: one script on the one stream key (so a Redis Cluster routes it
 * to the key's node). Each entry carries `o`, the log's byte offset where it starts (the offset
 * after the newest entry, read from that entry); the log's size is then the newest entry's end
 * minus the oldest entry's start, and the budget is kept by trimming (XTRIM MINID) up to the
 * oldest entry that starts within `maxBytes` of the new end. Age (MINID) and length (MAXLEN)
 * are trimmed in the same call, and the key's TTL is renewed.
 *
 * A log written before entries carried `o` (newest entry without one) is measured once from the
 * newest 16 entries and cut by count to fit the budget; its remaining entries count as starting
 * at offset 0, so they are the first to go.
 *
 * KEYS[1] = stream; ARGV = json, min id, max entries, max bytes, TTL ms, per-entry overhead,
 * rounding factor (see entryCost).
 * Returns { id, entries, log bytes }.
 */
const APPEND_SCRIPT = `
local key = KEYS[1]
local json = ARGV[1]
local maxBytes = tonumber(ARGV[4])
local overhead = tonumber(ARGV[6])
local rounding = tonumber(ARGV[7])
local function cost(json) return math.ceil(#json * rounding) + overhead end
local function field(fields, name)
  for i = 1, #fields, 2 do
    if fields[i] == name then return fields[i + 1] end
  end
  return nil
end
local start = 0
local newest = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 16)
if #newest > 0 then
  local o = tonumber(field(newest[1][2], 'o'))
  local r = field(newest[1][2], 'r') or ''
  if o then
    start = o + cost(r)
  else
    local sum = 0
    for _, entry in ipairs(newest) do sum = sum + cost(field(entry[2], 'r') or '') end
    local average = sum / #newest
    local keep = math.floor(maxBytes / average)
    redis.call('XTRIM', key, 'MAXLEN', keep)
    start = math.min(redis.call('XLEN', key), keep) * average
  end
end
local id = redis.call('XADD', key, 'MINID', ARGV[2], '*', 'o', string.format('%.0f', start), 'r', json)
redis.call('XTRIM', key, 'MAXLEN', ARGV[3])
local finish = start + cost(json)
local floor = finish - maxBytes
local from = '-'
local cut = nil
while floor > 0 and not cut do
  local page = redis.call('XRANGE', key, from, '+', 'COUNT', 128)
  if #page == 0 then break end
  for _, entry in ipairs(page) do
    if (tonumber(field(entry[2], 'o')) or 0) >= floor then
      cut = entry[1]
      break
    end
  end
  from = '(' .. page[#page][1]
end
if cut then redis.call('XTRIM', key, 'MINID', cut) end
redis.call('PEXPIRE', key, ARGV[5])
local oldest = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)
local first = tonumber(field(oldest[1][2], 'o')) or 0
return { id, redis.call('XLEN', key), string.format('%.0f', finish - first) }
`;

/**
 * The capture log behind the rule preview: a Redis stream of redacted captures (no raw email,
 * phone or name), each entry bounded to `maxEntryBytes` (boundEntry), the whole log to
 * `maxBytes`, `maxEntries` and the window, trimmed atomically on every append. The key expires a
 * day after the last capture beyond the window, so abandoned logs vanish. Every command touches
 * the one stream key, so a Redis Cluster client works unchanged.
 */
export class CaptureLog {
	readonly key: string;
	readonly maxBytes: number;
	readonly maxEntryBytes: number;
	private readonly maxEntries: number;
	private readonly windowMs: number;
	private readonly connectTimeoutMs: number;
	private readonly clock: () => number;

	constructor(
		private readonly client: RedisClient,
		options: CaptureLogOptions,
	) {
		this.key = options.key;
		this.maxEntries = options.maxEntries ?? DEFAULT_CAPTURE_LOG_MAX_ENTRIES;
		this.maxBytes = Math.max(MIN_CAPTURE_LOG_MAX_BYTES, options.maxBytes ?? DEFAULT_CAPTURE_LOG_MAX_BYTES);
		this.maxEntryBytes = Math.max(MIN_MAX_ENTRY_BYTES, options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES);
		this.windowMs = options.windowMs ?? CAPTURE_LOG_WINDOW_MS;
		this.connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
		this.clock = options.clock ?? Date.now;
	}

	/** The TTL the key gets on every append: the window plus a day. */
	get ttlMs(): number {
		return this.windowMs + 24 * 3600 * 1000;
	}

	/**
	 * Appends the redacted, bounded form of a record. On an out-of-memory refusal the error says
	 * what uses Redis's memory (describeRedisMemory).
	 */
	async append(record: LeadRecord, options: RedactOptions = {}): Promise<CaptureLogAppend> {
		const entry = captureLogEntry(record, options, this.maxEntryBytes);
		await waitForReady(this.client, this.connectTimeoutMs);
		const minId = Math.max(0, this.clock() - this.windowMs);
		let reply: [string, number, string];
		try {
			reply = (await this.client.eval(
				APPEND_SCRIPT,
				1,
				this.key,
				entry.json,
				String(minId),
				String(this.maxEntries),
				String(this.maxBytes),
				String(this.ttlMs),
				String(ENTRY_OVERHEAD_BYTES),
				String(ENTRY_ROUNDING),
			)) as [string, number, string];
		} catch (error) {
			throw await explainOutOfMemory(this.client, error);
		}
		return {
			id: String(reply[0]),
			bytes: entryCost(entry.bytes),
			entries: Number(reply[1]),
			logBytes: Number(reply[2]),
			...(entry.record._truncated ? { truncated: entry.record._truncated } : {}),
		};
	}

	/** Entries and counted bytes of the log now (0 and 0 when it does not exist). */
	async size(): Promise<{ entries: number; bytes: number }> {
		await waitForReady(this.client, this.connectTimeoutMs);
		return captureLogSize(this.client, this.key);
	}

	/**
	 * Every entry of the window, newest first, up to `max` (default: the length cap). Reads in
	 * pages so a full log never becomes one huge reply. `truncated` is true when the window held
	 * more entries than were read.
	 */
	async readWindow(options: { max?: number } = {}): Promise<{ entries: CaptureLogEntry[]; truncated: boolean }> {
		const max = options.max ?? this.maxEntries;
		await waitForReady(this.client, this.connectTimeoutMs);
		const minId = String(Math.max(0, this.clock() - this.windowMs));
		const entries: CaptureLogEntry[] = [];
		let end = '+';
		for (;;) {
			const want = Math.min(READ_PAGE, max - entries.length + 1);
			const page = (await this.client.xrevrange(this.key, end, minId, 'COUNT', want)) as Array<
				[string, string[]]
			>;
			for (const [id, fields] of page) {
				if (entries.length === max) return { entries, truncated: true };
				const json = fields[fields.indexOf('r') + 1];
				try {
					entries.push({ id, at: Number(id.split('-')[0]), record: JSON.parse(json) as RedactedRecord });
				} catch {
					// A malformed entry (written by something else) is skipped, not fatal.
				}
			}
			if (page.length < want) return { entries, truncated: false };
			end = `(${page[page.length - 1][0]}`;
		}
	}
}
