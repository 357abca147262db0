import type Redis from 'ioredis';
import { PLATFORMS } from '../types';
import { isClusterClient, type RedisClient } from './client';
import { captureLogSize } from './logSize';

/**
 * What uses a Redis's memory, in one line for an error message: when Redis refuses a write with
 * "OOM command not allowed when used memory > 'maxmemory'", the dedup store's and the capture
 * log's errors say how full it is, which capture logs hold how much (from the byte offsets their
 * entries carry, and MEMORY USAGE), and what share of a sample of keys belongs to which of the
 * package's key families — so whoever reads it knows what filled Redis. Reads only; bounded in
 * time (REPORT_BUDGET_MS), so a full Redis is not kept busy by its own diagnosis.
 */
const REPORT_BUDGET_MS = 1_500;
const SCAN_ROUNDS = 40;
const SAMPLE_KEYS = 64;
const SHOWN_LOGS = 3;

export function isOutOfMemory(error: unknown): boolean {
	return /^OOM\b|OOM command not allowed/.test(error instanceof Error ? error.message : String(error));
}

export const formatBytes = (n: number): string =>
	n >= 1024 * 1024 * 1024
		? `${(n / 1024 ** 3).toFixed(2)} GB`
		: n >= 1024 * 1024
			? `${(n / 1024 ** 2).toFixed(1)} MB`
			: n >= 1024
				? `${(n / 1024).toFixed(1)} KB`
				: `${n} B`;

function infoField(info: string, name: string): string | undefined {
	return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/** A dedup marker's or claim's platform segment (`:<platform>:`), for any registered platform. */
const PLATFORM_SEGMENT = new RegExp(`:(?:${PLATFORMS.join('|')}):`);

/** The package's key families, from a key's shape (`<prefix>[:<client>]:<family>:…`). */
export function keyFamily(key: string): string {
	if (/:capturelog:/.test(key)) return 'capture logs';
	if (/:outbox:.*:(dead|deadbytes|deadat)$/.test(key)) return 'outbox dead letters';
	if (/:outbox:/.test(key)) return 'outbox queued events';
	if (/:stats:/.test(key)) return 'health counters';
	if (/:refused:/.test(key)) return 'refusal counters';
	if (PLATFORM_SEGMENT.test(key)) {
		return 'dedup markers and claims';
	}
	return 'other keys (not written by this package)';
}

interface ServerMemory {
	used: number;
	max: number;
	policy: string;
	keys: number;
	logs: Array<{ key: string; entries: number; bytes: number; usage?: number }>;
	/** The outbox's byte counts (queued events, dead letters) summed over its queues. */
	outbox: { queued: number; dead: number; queues: number };
	sample: Map<string, number>;
}

async function scanKeys(server: Redis, deadline: number, match: string, type: string): Promise<string[]> {
	const keys: string[] = [];
	let cursor = '0';
	for (let round = 0; round < SCAN_ROUNDS && Date.now() < deadline; round++) {
		const [next, found] = (await server.call(
			'SCAN',
			cursor,
			'MATCH',
			match,
			'COUNT',
			'5000',
			'TYPE',
			type,
		)) as [string, string[]];
		keys.push(...found);
		cursor = next;
		if (cursor === '0') break;
	}
	return keys;
}

async function serverMemory(server: Redis, deadline: number): Promise<ServerMemory> {
	const [memory, keyspace] = await Promise.all([server.info('memory'), server.info('keyspace')]);
	const keys = [...keyspace.matchAll(/keys=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
	const logs: ServerMemory['logs'] = [];
	for (const key of await scanKeys(server, deadline, '*:capturelog:*', 'stream')) {
		if (Date.now() > deadline) break;
		const size = await captureLogSize(server, key);
		const usage = await server.call('MEMORY', 'USAGE', key, 'SAMPLES', '5').catch(() => null);
		logs.push({ key, ...size, ...(typeof usage === 'number' ? { usage } : {}) });
	}
	const outbox = { queued: 0, dead: 0, queues: 0 };
	const counters = await scanKeys(server, deadline, '*:outbox:*bytes', 'string');
	const values = counters.length ? await server.mget(...counters) : [];
	counters.forEach((key, i) => {
		if (key.endsWith(':deadbytes')) outbox.dead += Number(values[i] ?? 0);
		else {
			outbox.queued += Number(values[i] ?? 0);
			outbox.queues++;
		}
	});
	const sample = new Map<string, number>();
	const pipeline = server.pipeline();
	for (let i = 0; i < SAMPLE_KEYS; i++) pipeline.randomkey();
	for (const [error, key] of (await pipeline.exec()) ?? []) {
		if (error || typeof key !== 'string') continue;
		const family = keyFamily(key);
		sample.set(family, (sample.get(family) ?? 0) + 1);
	}
	return {
		used: Number(infoField(memory, 'used_memory') ?? 0),
		max: Number(infoField(memory, 'maxmemory') ?? 0),
		policy: infoField(memory, 'maxmemory_policy') ?? 'unknown',
		keys,
		logs,
		outbox,
		sample,
	};
}

function describeServer(m: ServerMemory): string {
	const limit = m.max ? ` of maxmemory ${formatBytes(m.max)}` : '';
	const parts = [`used ${formatBytes(m.used)}${limit} (maxmemory-policy ${m.policy}), ${m.keys.toLocaleString('en-US')} keys`];
	if (m.logs.length) {
		const total = m.logs.reduce((sum, l) => sum + (l.usage ?? l.bytes), 0);
		const largest = [...m.logs]
			.sort((a, b) => (b.usage ?? b.bytes) - (a.usage ?? a.bytes))
			.slice(0, SHOWN_LOGS)
			.map((l) => `${l.key} ${formatBytes(l.usage ?? l.bytes)}, ${l.entries.toLocaleString('en-US')} entries`);
		parts.push(
			`capture logs ${formatBytes(total)} in ${m.logs.length} key${m.logs.length === 1 ? '' : 's'} (${largest.join('; ')}${m.logs.length > SHOWN_LOGS ? '; …' : ''})`,
		);
	} else {
		parts.push('no capture log found');
	}
	if (m.outbox.queued + m.outbox.dead > 0)
		parts.push(
			`the outbox ${formatBytes(m.outbox.queued)} of queued events in ${m.outbox.queues} queue${m.outbox.queues === 1 ? '' : 's'} and ${formatBytes(m.outbox.dead)} of dead letters`,
		);
	const sampled = [...m.sample.values()].reduce((a, b) => a + b, 0);
	if (sampled) {
		const shares = [...m.sample.entries()]
			.sort((a, b) => b[1] - a[1])
			.map(([family, n]) => `${Math.round((n / sampled) * 100)}% ${family}`);
		parts.push(`of ${sampled} keys sampled: ${shares.join(', ')}`);
	}
	return parts.join('; ');
}

/**
 * One line on what uses the memory of the Redis behind `client` (each master of a cluster), or
 * why it could not be read. Never throws.
 */
export async function describeRedisMemory(client: RedisClient): Promise<string> {
	const deadline = Date.now() + REPORT_BUDGET_MS;
	const servers = isClusterClient(client) ? client.nodes('master') : [client];
	let timer: ReturnType<typeof setTimeout> | undefined;
	try {
		const reports = await Promise.race([
			Promise.all(servers.map((server) => serverMemory(server, deadline))),
			new Promise<never>((_, reject) => {
				timer = setTimeout(() => reject(new Error('no answer in time')), REPORT_BUDGET_MS + 1_000);
			}),
		]);
		return reports
			.map((r, i) => (reports.length > 1 ? `master ${i + 1}: ${describeServer(r)}` : describeServer(r)))
			.join(' | ');
	} catch (error) {
		return `what uses the memory could not be read (${error instanceof Error ? error.message : String(error)})`;
	} finally {
		clearTimeout(timer);
	}
}

/** Advice that follows every out-of-memory report. */
export const OUT_OF_MEMORY_ADVICE =
	'raise maxmemory; lower the capture logs\' Max Size (MB) or move the capture log to another database or instance; bring a down platform back, Purge its dead letters (Lead CAPI Dead Letters) or lower LEAD_CAPI_OUTBOX_MAX_MB if the outbox fills it (docs/dedup.md#redis-memory)';

/**
 * `error` itself unless Redis refused a write for lack of memory; then an Error whose message
 * keeps Redis's own and adds what uses the memory and what to do.
 */
export async function explainOutOfMemory(client: RedisClient, error: unknown): Promise<unknown> {
	if (!isOutOfMemory(error)) return error;
	const message = error instanceof Error ? error.message : String(error);
	const explained = new Error(
		`${message.replace(/\.$/, '')} — Redis is full: ${await describeRedisMemory(client)}. To free memory: ${OUT_OF_MEMORY_ADVICE}`,
	);
	explained.name = 'RedisOutOfMemoryError';
	return explained;
}
