import { waitForReady, type RedisClient } from '../dedup/redisClient';
import type { LeadRecord } from '../types';
import { redactForLog, type RedactedRecord } from './redact';

export const CAPTURE_LOG_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_CAPTURE_LOG_MAX_ENTRIES = 100_000;
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
	/** Entries older than this are trimmed (default 7 days). */
	windowMs?: number;
	connectTimeoutMs?: number;
	clock?: () => number;
}

/**
 * The capture log behind the rule preview: a Redis stream of redacted captures (no raw email,
 * phone or name). Appending trims by age (MINID) and by length (MAXLEN) in the same round trip;
 * the key expires a day after the last capture beyond the window, so abandoned logs vanish.
 * Every command touches the one stream key, so a Redis Cluster client works unchanged (the
 * MULTI goes to the key's node).
 */
export class CaptureLog {
	readonly key: string;
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
		this.windowMs = options.windowMs ?? CAPTURE_LOG_WINDOW_MS;
		this.connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
		this.clock = options.clock ?? Date.now;
	}

	/** Appends the redacted form of a record; returns the stream id. */
	async append(record: LeadRecord, options: { defaultCountry?: string } = {}): Promise<string> {
		const redacted = redactForLog(record, options);
		await waitForReady(this.client, this.connectTimeoutMs);
		const minId = Math.max(0, this.clock() - this.windowMs);
		const replies = await this.client
			.multi()
			.xadd(this.key, 'MINID', String(minId), '*', 'r', JSON.stringify(redacted))
			.xtrim(this.key, 'MAXLEN', this.maxEntries)
			.pexpire(this.key, this.windowMs + 24 * 3600 * 1000)
			.exec();
		const failed = replies?.find(([error]) => error);
		if (!replies || failed) throw failed?.[0] ?? new Error('capture log append was not executed');
		return String(replies[0][1]);
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
