import type Redis from 'ioredis';
import { formatBytes } from '../redis/memory';
import { outboxBounds } from '../redis/budget';
import { isClusterClient, type RedisClient } from '../redis/client';

/**
 * Whether Redis may evict the dedup markers. A *sent* marker is what stops a re-run from sending
 * an event again; if Redis evicts it to make room, the next run sends the event a second time
 * and nobody is told. Which keys Redis evicts when it reaches `maxmemory` is its
 * `maxmemory-policy`:
 *
 *  - `noeviction`: nothing is evicted; writes fail with OOM instead (the errors then say what
 *    fills Redis). The only policy under which markers are safe.
 *  - `allkeys-*`: any key may go, markers included.
 *  - `volatile-*`: any key with a TTL may go — and every key this package writes has one (sent
 *    markers 30 days, claims 120 s, counters 49 h, capture logs the window + 1 day), so markers
 *    are candidates too; `volatile-ttl` takes the shortest remaining TTL first, which is an old
 *    marker as soon as it has less left than the capture log.
 *  - `maxmemory 0` (no limit): no eviction ever happens, whatever the policy; Redis grows until
 *    the machine runs out.
 *
 * The check reads `CONFIG GET maxmemory-policy` and `maxmemory`; managed services often disable
 * CONFIG, then INFO memory (which carries both) is read and the report says CONFIG was refused.
 */
export interface EvictionCheck {
	/** e.g. `noeviction`, `allkeys-lru`; undefined when it could not be read. */
	policy?: string;
	/** Bytes; 0 = no limit; undefined when unknown. */
	maxmemory?: number;
	/** Where the policy was read. */
	source: 'CONFIG GET' | 'INFO memory' | 'unread';
	/** False when markers could be evicted, or when the policy could not be read. */
	markersSafe: boolean;
	/** The line to log and show when markers are not known to be safe. */
	warning?: string;
	/** Why CONFIG GET was not used (e.g. the command is disabled). */
	configRefused?: string;
	/** Set when Redis keeps nothing on disk (no AOF, no RDB save): a restart loses the outbox. */
	persistenceWarning?: string;
	/** Set when the outbox's budget for one destination does not fit below the dedup headroom. */
	headroomWarning?: string;
}

/** What an eviction or a restart without persistence would lose, named in every warning. */
const AT_RISK =
	'the dedup "sent" markers (a re-run then sends those events again — duplicates nobody is told about) and the outbox\'s queued events and dead letters (gone with no dead letter and no message)';

export const EVICTION_ADVICE =
	'set maxmemory-policy to noeviction (CONFIG SET maxmemory-policy noeviction, or your provider\'s parameter group) and keep the capture log in another database or instance (docs/dedup.md#eviction-and-the-sent-markers)';

/** The verdict for a policy and limit, in words (no I/O). */
export function assessEvictionPolicy(
	where: string,
	policy: string | undefined,
	maxmemory: number | undefined,
	source: EvictionCheck['source'],
	configRefused?: string,
): EvictionCheck {
	const base: EvictionCheck = { policy, maxmemory, source, markersSafe: false, ...(configRefused ? { configRefused } : {}) };
	if (policy === undefined) {
		return {
			...base,
			warning: `${where}: its maxmemory-policy could not be read (${configRefused ?? 'no answer'}), so whether Redis may evict ${AT_RISK} is unknown. Make sure the policy is noeviction: ${EVICTION_ADVICE}`,
		};
	}
	if (policy === 'noeviction' || maxmemory === 0) return { ...base, markersSafe: true };
	const why = policy.startsWith('volatile-')
		? 'every key this package writes has a TTL (sent markers: 30 days; outbox queues: their platform\'s window and a day; dead letters: 30 days), so volatile-* policies may evict them too'
		: 'allkeys-* policies evict any key';
	const limit = maxmemory ? ` with maxmemory ${formatBytes(maxmemory)}` : '';
	return {
		...base,
		warning: `${where}: maxmemory-policy is ${policy}${limit}: when Redis fills up it may evict ${AT_RISK} (${why}). ${EVICTION_ADVICE[0].toUpperCase()}${EVICTION_ADVICE.slice(1)}`,
	};
}

/** The warning for a Redis that keeps nothing on disk (no words when it does, or is unknown). */
export function assessPersistence(where: string, save: string | undefined, appendonly: string | undefined): string | undefined {
	if (save === undefined || appendonly === undefined) return undefined;
	if (appendonly === 'yes' || save.trim() !== '') return undefined;
	return `${where}: no persistence (appendonly no, save ""): a restart of Redis loses ${AT_RISK}. Turn on the append-only file (CONFIG SET appendonly yes, or your provider's persistence setting) where the outbox or the dedup store lives (docs/outbox.md#bounds)`;
}

/** The warning when one destination's outbox budget does not fit below the dedup headroom. */
export function assessHeadroom(where: string, maxmemory: number | undefined): string | undefined {
	const bounds = outboxBounds();
	if (!maxmemory) return undefined;
	const room = (maxmemory * (100 - bounds.headroomPercent)) / 100;
	if (bounds.maxBytes <= room) return undefined;
	return `${where}: maxmemory ${formatBytes(maxmemory)} leaves ${formatBytes(room)} to the outbox (${bounds.headroomPercent} % kept for the dedup markers, LEAD_CAPI_REDIS_HEADROOM_PERCENT), less than one destination's outbox budget of ${formatBytes(bounds.maxBytes)} (LEAD_CAPI_OUTBOX_MAX_MB): a destination that is down stops queueing at Redis's headroom, before its budget. Raise maxmemory or lower LEAD_CAPI_OUTBOX_MAX_MB (docs/dedup.md#sizing)`;
}

async function readPersistence(server: Redis): Promise<{ save?: string; appendonly?: string }> {
	try {
		const reply = (await server.call('CONFIG', 'GET', 'save')) as string[];
		const aof = (await server.call('CONFIG', 'GET', 'appendonly')) as string[];
		return { save: reply[1], appendonly: aof[1] };
	} catch {
		return {};
	}
}

function infoField(info: string, name: string): string | undefined {
	return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/** Policy and limit of one server: CONFIG GET, else INFO memory. */
async function readPolicy(
	server: Redis,
): Promise<{ policy?: string; maxmemory?: number; source: EvictionCheck['source']; configRefused?: string }> {
	let configRefused: string | undefined;
	try {
		const reply = (await server.call('CONFIG', 'GET', 'maxmemory*')) as string[] | Record<string, string>;
		const pairs: Record<string, string> = Array.isArray(reply)
			? Object.fromEntries(reply.flatMap((v, i) => (i % 2 === 0 ? [[v, reply[i + 1]]] : [])))
			: reply;
		if (pairs['maxmemory-policy'] !== undefined) {
			return { policy: pairs['maxmemory-policy'], maxmemory: Number(pairs.maxmemory ?? 0), source: 'CONFIG GET' };
		}
		configRefused = 'CONFIG GET returned no maxmemory-policy';
	} catch (error) {
		configRefused = `CONFIG GET is disabled or not permitted here: ${error instanceof Error ? error.message : String(error)}`;
	}
	try {
		const info = await server.info('memory');
		const policy = infoField(info, 'maxmemory_policy');
		const max = infoField(info, 'maxmemory');
		if (policy) return { policy, maxmemory: max === undefined ? undefined : Number(max), source: 'INFO memory', configRefused };
		return { source: 'unread', configRefused: `${configRefused}; INFO memory has no maxmemory_policy` };
	} catch (error) {
		return {
			source: 'unread',
			configRefused: `${configRefused}; INFO memory refused too: ${error instanceof Error ? error.message : String(error)}`,
		};
	}
}

/**
 * Reads the eviction policy of the Redis behind a ready client (each master of a cluster: the
 * least safe one decides) and says whether the dedup markers are safe. Never throws.
 */
export async function checkEvictionPolicy(client: RedisClient, where: string): Promise<EvictionCheck> {
	try {
		const servers = isClusterClient(client) ? client.nodes('master') : [client];
		const checks = await Promise.all(
			servers.map(async (server) => {
				const read = await readPolicy(server);
				const persisted = await readPersistence(server);
				const check = assessEvictionPolicy(where, read.policy, read.maxmemory, read.source, read.configRefused);
				const persistenceWarning = assessPersistence(where, persisted.save, persisted.appendonly);
				const headroomWarning = assessHeadroom(where, read.maxmemory);
				return {
					...check,
					...(persistenceWarning ? { persistenceWarning } : {}),
					...(headroomWarning ? { headroomWarning } : {}),
				};
			}),
		);
		const worst = checks.find((c) => !c.markersSafe) ?? checks[0];
		const persistenceWarning = checks.find((c) => c.persistenceWarning)?.persistenceWarning;
		const headroomWarning = checks.find((c) => c.headroomWarning)?.headroomWarning;
		return {
			...worst,
			...(persistenceWarning ? { persistenceWarning } : {}),
			...(headroomWarning ? { headroomWarning } : {}),
		};
	} catch (error) {
		return assessEvictionPolicy(where, undefined, undefined, 'unread', error instanceof Error ? error.message : String(error));
	}
}

const latest = new WeakMap<RedisClient, Promise<EvictionCheck>>();
const watched = new WeakSet<RedisClient>();

/**
 * Checks the eviction policy each time `client` becomes ready (first connection, reconnection,
 * Sentinel failover: the new master may be configured otherwise); `evictionCheck` returns the
 * latest. Called once where the package creates its pooled Redis clients.
 */
export function watchEvictionPolicy(client: RedisClient, where: string): void {
	const run = () => {
		const check = checkEvictionPolicy(client, where);
		latest.set(client, check);
		return check;
	};
	if (watched.has(client)) return;
	watched.add(client);
	client.on('ready', () => void run());
	if (client.status === 'ready') void run();
}

/**
 * The latest check of a watched client: resolves once the client has been ready and the check
 * ran. Undefined for a client nobody watches.
 */
export function evictionCheck(client: RedisClient): Promise<EvictionCheck> | undefined {
	const known = latest.get(client);
	if (known) return known;
	if (!watched.has(client)) return undefined;
	return new Promise((resolve) => client.once('ready', () => setImmediate(() => void latest.get(client)?.then(resolve))));
}

const warnedAt = new WeakMap<RedisClient, number>();
/** One warn line per Redis connection per this long. */
export const EVICTION_WARNING_INTERVAL_MS = 10 * 60_000;

/**
 * Logs the latest check's warning through `warn` (n8n's logger) when markers are not known to be
 * safe, at most once per EVICTION_WARNING_INTERVAL_MS per connection. Resolves once logged, or
 * after `waitMs` (default 0: at once; the line is logged whenever the check has run). Never throws.
 */
export async function warnIfMarkersEvictable(
	client: RedisClient,
	warn: (message: string) => void,
	options: { waitMs?: number; now?: () => number } = {},
): Promise<void> {
	const pending = evictionCheck(client);
	if (!pending) return;
	const now = options.now ?? Date.now;
	const logged = pending.then((check) => {
		const lines = [check.warning, check.persistenceWarning, check.headroomWarning].filter(Boolean);
		if (lines.length === 0) return;
		const last = warnedAt.get(client);
		if (last !== undefined && now() - last < EVICTION_WARNING_INTERVAL_MS) return;
		warnedAt.set(client, now());
		for (const line of lines) warn(line as string);
	});
	if (!options.waitMs) return;
	let timer: ReturnType<typeof setTimeout> | undefined;
	await Promise.race([
		logged,
		new Promise<void>((resolve) => {
			timer = setTimeout(resolve, options.waitMs);
			timer.unref?.();
		}),
	]);
	clearTimeout(timer);
}
