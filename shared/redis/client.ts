import { isIP } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { backoffDelay } from '../transport/backoff';

/** One `host:port` of a Sentinel or a cluster node. */
export interface RedisAddress {
	host: string;
	port: number;
}

/** What every connection type shares: authentication, TLS and the fail-fast timeouts. */
interface RedisCommonConfig {
	username?: string;
	password?: string;
	tls?: boolean;
	/** Only with TLS: accept self-signed certificates. */
	allowUnauthorizedCerts?: boolean;
	connectTimeoutMs?: number;
	commandTimeoutMs?: number;
}

/** One Redis server, by host and port or by URL. */
export interface RedisStandaloneConfig extends RedisCommonConfig {
	mode?: 'standalone';
	/** `redis://[user:password@]host:port/db` or `rediss://…` (TLS); overrides the fields below. */
	url?: string;
	host?: string;
	port?: number;
	database?: number;
}

/**
 * The master a group of Sentinels monitors. `username`/`password`/`database`/`tls` are the
 * master's; the Sentinels have their own (optional) credentials. With TLS on, the Sentinels
 * and the master are both reached over TLS.
 */
export interface RedisSentinelConfig extends RedisCommonConfig {
	mode: 'sentinel';
	sentinels: RedisAddress[];
	masterName: string;
	sentinelUsername?: string;
	sentinelPassword?: string;
	database?: number;
}

/** A Redis Cluster, found from one or more seed nodes. Cluster mode has only database 0. */
export interface RedisClusterConfig extends RedisCommonConfig {
	mode: 'cluster';
	nodes: RedisAddress[];
}

/** What the `leadCapiRedisApi` credential holds, framework-free. */
export type RedisConnectionConfig =
	| RedisStandaloneConfig
	| RedisSentinelConfig
	| RedisClusterConfig;

/** The client every Redis user in the package accepts: one server (direct or via Sentinel) or a cluster. */
export type RedisClient = Redis | Cluster;

export const DEFAULT_REDIS_CONNECT_TIMEOUT_MS = 3_000;
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 3_000;
export const DEFAULT_SENTINEL_PORT = 26379;
const CONNECTION_NAME = 'n8n-nodes-lead-capi';

export function isClusterClient(client: RedisClient): client is Cluster {
	// `isCluster` rather than `instanceof`: n8n may load another copy of ioredis.
	return client.isCluster === true;
}

/**
 * Parses `host:port, host:port` (commas, spaces or new lines between; `[::1]:7000` for IPv6; a
 * bare host gets `defaultPort`). Throws a message naming the field, the entry's position and the
 * problem for anything else — never the entry itself: a password pasted into an address field
 * (`:pw@host:6379`) must not come back in an error, a log line or execution data.
 */
export function parseRedisAddresses(
	text: string,
	defaultPort: number,
	field: string,
): RedisAddress[] {
	const parts = text
		.split(/[\s,;]+/)
		.map((part) => part.trim())
		.filter(Boolean);
	if (parts.length === 0) throw new Error(`${field}: enter at least one host:port`);
	return parts.map((part, index) => {
		const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]/@]+))(?::(\d{1,5}))?$/.exec(part);
		const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
		if (!match || port < 1 || port > 65535) {
			const which = parts.length > 1 ? `entry ${index + 1} of ${parts.length}` : 'the address';
			throw new Error(`${field}: ${which} ${redisAddressProblem(part)}`);
		}
		return { host: match[1] ?? match[2], port };
	});
}

/**
 * What is wrong with an address a user typed, without repeating it (it may hold a password).
 * `expected` says what the field takes.
 */
export function redisAddressProblem(text: string, expected = 'host:port'): string {
	const hidden = '(the value is not shown)';
	if (text.includes('@')) {
		return `holds a user name or password (an "@"): enter those in Username and Password, and here only ${expected} ${hidden}`;
	}
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
		return `is a URL: enter ${expected}, or choose the Redis URL connection type ${hidden}`;
	}
	return `is not ${expected} ${hidden}`;
}

/** Throws `<field>: …` unless `host` is a host name or an IP address (never echoing it). */
export function checkRedisHost(host: string, field: string): void {
	if (isIP(host) !== 0 || /^[\p{L}\p{N}_](?:[\p{L}\p{N}_.-]*[\p{L}\p{N}_])?$/u.test(host)) return;
	throw new Error(`${field}: the value ${redisAddressProblem(host, 'a host name or IP address')}`);
}

interface Endpoint {
	host: string;
	port: number;
	database: number;
	tls: boolean;
}

function endpoint(config: RedisStandaloneConfig): Endpoint {
	if (config.url) {
		const url = new URL(config.url);
		const database = Number(url.pathname.replace(/^\//, '') || 0);
		return {
			host: url.hostname || '127.0.0.1',
			port: Number(url.port || 6379),
			database: Number.isFinite(database) ? database : 0,
			tls: url.protocol === 'rediss:',
		};
	}
	return {
		host: config.host || '127.0.0.1',
		port: config.port || 6379,
		database: config.database ?? 0,
		tls: Boolean(config.tls),
	};
}

function formatAddress({ host, port }: RedisAddress): string {
	return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** `127.0.0.1:26379 (+2)`: the first address and how many more. */
function formatAddresses(addresses: RedisAddress[]): string {
	if (addresses.length === 0) return '(no address)';
	const more = addresses.length > 1 ? ` (+${addresses.length - 1})` : '';
	return `${formatAddress(addresses[0])}${more}`;
}

/**
 * `Redis at 127.0.0.1:6379`, `Redis at 127.0.0.1:6379, database 2`, `Redis Sentinel mymaster
 * via 127.0.0.1:26379`, `Redis Cluster 127.0.0.1:7000 (+2)` — never includes credentials; used
 * in messages and logs.
 */
export function describeRedis(config: RedisConnectionConfig): string {
	if (config.mode === 'sentinel') {
		const tls = config.tls ? 'TLS ' : '';
		const database = config.database ? `/${config.database}` : '';
		return `Redis ${tls}Sentinel ${config.masterName}${database} via ${formatAddresses(config.sentinels)}`;
	}
	if (config.mode === 'cluster') {
		return `Redis ${config.tls ? 'TLS ' : ''}Cluster ${formatAddresses(config.nodes)}`;
	}
	const e = endpoint(config);
	const database = e.database ? `, database ${e.database}` : '';
	return `Redis ${e.tls ? '(TLS) ' : ''}at ${formatAddress(e)}${database}`;
}

/**
 * Keep reconnecting in the background so a recovered Redis is picked up: the package's backoff,
 * from 200 ms up to 2 s between attempts (half to all of each step, so many clients spread out).
 */
const backoff = (times: number) => backoffDelay(times, { baseDelayMs: 200, maxDelayMs: 2_000, minShare: 0.5 });

function tlsOptions(config: RedisCommonConfig, servername?: string): ConnectionOptions {
	const options: ConnectionOptions = { rejectUnauthorized: !config.allowUnauthorizedCerts };
	// Node warns on an IP as server name (RFC 6066); certificates for IPs are checked by address.
	if (servername && !isIP(servername)) options.servername = servername;
	return options;
}

/**
 * Options every connection to one Redis server gets: commands are not queued while
 * disconnected (`enableOfflineQueue: false`) and time out quickly, so an unreachable store
 * fails a dispatch at once instead of hanging it; `RedisDedupStore` waits for the connection
 * itself, bounded by the connect timeout.
 */
function serverOptions(config: RedisCommonConfig): RedisOptions {
	const options: RedisOptions = {
		lazyConnect: true,
		enableOfflineQueue: false,
		maxRetriesPerRequest: 0,
		connectTimeout: config.connectTimeoutMs ?? DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
		commandTimeout: config.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
		retryStrategy: backoff,
		connectionName: CONNECTION_NAME,
	};
	if (config.username) options.username = config.username;
	if (config.password) options.password = config.password;
	return options;
}

function standaloneOptions(config: RedisStandaloneConfig): RedisOptions {
	const e = endpoint(config);
	const options: RedisOptions = {
		...serverOptions(config),
		host: e.host,
		port: e.port,
		db: e.database,
	};
	if (config.url) {
		const url = new URL(config.url);
		if (url.username && !config.username) options.username = decodeURIComponent(url.username);
		if (url.password && !config.password) options.password = decodeURIComponent(url.password);
	}
	if (e.tls) options.tls = tlsOptions(config, e.host);
	return options;
}

function sentinelOptions(config: RedisSentinelConfig): RedisOptions {
	const options: RedisOptions = {
		...serverOptions(config),
		sentinels: config.sentinels.map(({ host, port }) => ({ host, port })),
		name: config.masterName,
		db: config.database ?? 0,
		role: 'master',
		sentinelRetryStrategy: backoff,
		sentinelCommandTimeout: config.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
		// Subscribes to the Sentinels' +switch-master, so a failover moves the claims to the new
		// master at once instead of after the old one drops the connection.
		failoverDetector: true,
		// A demoted master answers writes with READONLY: reconnect (via the Sentinels) and resend.
		reconnectOnError: (error) => (/READONLY/.test(error.message) ? 2 : false),
	};
	if (config.sentinelUsername) options.sentinelUsername = config.sentinelUsername;
	if (config.sentinelPassword) options.sentinelPassword = config.sentinelPassword;
	if (config.tls) {
		// The master's address comes from the Sentinels (usually an IP), so no server name.
		options.tls = tlsOptions(config);
		options.sentinelTLS = tlsOptions(config);
		options.enableTLSForSentinelMode = true;
	}
	return options;
}

function clusterOptions(config: RedisClusterConfig): ClusterOptions {
	const redisOptions = serverOptions(config);
	// The cluster creates its node connections itself (lazily, queueing until each is up, no
	// reconnect of its own); these keys would fight that, so only the cluster level has them.
	delete redisOptions.lazyConnect;
	delete redisOptions.enableOfflineQueue;
	delete redisOptions.retryStrategy;
	const options: ClusterOptions = {
		lazyConnect: true,
		enableOfflineQueue: false,
		enableReadyCheck: true,
		clusterRetryStrategy: backoff,
		slotsRefreshTimeout: config.connectTimeoutMs ?? DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
		redisOptions,
	};
	if (config.tls) {
		// Each node is verified against its own address (no fixed server name), and host names
		// are kept as given so certificates issued for names (e.g. managed clusters) verify.
		redisOptions.tls = tlsOptions(config);
		options.dnsLookup = (address, callback) => callback(null, address);
	}
	return options;
}

type ServerClientOptions = { mode: 'standalone' | 'sentinel'; options: RedisOptions };
type ClusterClientOptions = { mode: 'cluster'; nodes: RedisAddress[]; options: ClusterOptions };

/**
 * ioredis options for a configuration, as `createRedisClient` uses them (exposed so that the
 * mapping from credential to client can be checked without a server).
 */
export function redisClientOptions(config: RedisClusterConfig): ClusterClientOptions;
export function redisClientOptions(
	config: RedisStandaloneConfig | RedisSentinelConfig,
): ServerClientOptions;
export function redisClientOptions(
	config: RedisConnectionConfig,
): ServerClientOptions | ClusterClientOptions;
export function redisClientOptions(
	config: RedisConnectionConfig,
): ServerClientOptions | ClusterClientOptions {
	if (config.mode === 'cluster') {
		return { mode: 'cluster', nodes: config.nodes, options: clusterOptions(config) };
	}
	if (config.mode === 'sentinel') return { mode: 'sentinel', options: sentinelOptions(config) };
	return { mode: 'standalone', options: standaloneOptions(config) };
}

/**
 * One ioredis client: a `Redis` for one server (direct or via Sentinel), a `Cluster` for a
 * cluster. All fail fast and reconnect in the background.
 */
export function createRedisClient(config: RedisClusterConfig): Cluster;
export function createRedisClient(config: RedisStandaloneConfig | RedisSentinelConfig): Redis;
export function createRedisClient(config: RedisConnectionConfig): RedisClient;
export function createRedisClient(config: RedisConnectionConfig): RedisClient {
	const resolved = redisClientOptions(config);
	const client: RedisClient =
		resolved.mode === 'cluster'
			? new Cluster(
					resolved.nodes.map(({ host, port }) => ({ host, port })),
					resolved.options,
				)
			: new Redis(resolved.options);
	// Errors surface through commands and `waitForReady`; an unhandled 'error' event would crash n8n.
	client.on('error', () => undefined);
	return client;
}

function messageOf(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	// A cluster that found no usable node says so generically; the node's own error says why.
	const last = (error as Error & { lastNodeError?: unknown }).lastNodeError;
	const cause = last instanceof Error && last.message ? ` (${last.message})` : '';
	return `${error.message || String(error)}${cause}`;
}

/**
 * Errors that waiting will not cure (a wrong password, an unknown master name, a rejected
 * certificate): reported at once instead of after the timeout. The client keeps retrying in the
 * background, so fixing the server side still heals a pooled connection.
 */
const DEFINITIVE =
	/WRONGPASS|NOAUTH|invalid password|No such master with that name|invalid reply: null|certificate|cluster support disabled/i;

/**
 * Resolves when the client is ready, connecting it if needed; rejects after `timeoutMs`, or at
 * once on an error that waiting will not cure.
 */
export function waitForReady(client: RedisClient, timeoutMs: number): Promise<void> {
	if (client.status === 'ready') return Promise.resolve();
	return new Promise<void>((resolve, reject) => {
		let lastError = 'no answer';
		// The Sentinel's or node's own complaint ("… invalid reply: null") says more than the
		// generic "All sentinels are unreachable" that follows it.
		let detail = '';
		const onError = (error: unknown) => {
			lastError = messageOf(error);
			if (DEFINITIVE.test(lastError)) fail(lastError);
		};
		const onDetail = (error: unknown) => {
			detail = messageOf(error);
			if (DEFINITIVE.test(detail)) fail(detail);
		};
		const fail = (message: string) => {
			cleanup();
			reject(new Error(message));
		};
		const cleanup = () => {
			clearTimeout(timer);
			client.off('ready', onReady);
			client.off('error', onError);
			client.off('sentinelError', onDetail);
			client.off('node error', onDetail);
		};
		const onReady = () => {
			cleanup();
			resolve();
		};
		const timer = setTimeout(() => {
			cleanup();
			const extra = detail && !lastError.includes(detail) ? `; ${detail}` : '';
			reject(new Error(`not reachable within ${timeoutMs} ms (${lastError}${extra})`));
		}, timeoutMs);
		client.on('ready', onReady);
		client.on('error', onError);
		client.on('sentinelError', onDetail);
		client.on('node error', onDetail);
		if (client.status === 'wait' || client.status === 'end') {
			client.connect().catch(onError);
		}
	});
}

/** `redis_mode` from INFO: standalone, sentinel or cluster. */
function redisMode(info: string): string | undefined {
	return /^redis_mode:(\w+)/m.exec(info)?.[1];
}

/**
 * Connects, PINGs and disconnects; for the credential test. Also checks that the server is the
 * kind the connection type expects (a cluster node or a Sentinel behind "Host and Port" would
 * fail every batch later). Friendly messages for the usual failures; never echoes a password.
 */
export async function testRedisConnection(
	config: RedisConnectionConfig,
	timeoutMs = DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
): Promise<{ ok: true } | { ok: false; message: string }> {
	const where = describeRedis(config);
	if ((config.mode === 'sentinel' || config.mode === 'cluster') && config.tls) {
		// ioredis reports a failed TLS handshake with a Sentinel or cluster node only as
		// "Connection is closed" (after the whole timeout); one handshake of our own says why at
		// once. An address that is merely down is left to the real connection, which tries the others.
		const [first] = config.mode === 'sentinel' ? config.sentinels : config.nodes;
		const label = config.mode === 'sentinel' ? 'Sentinel' : 'node';
		const handshake =
			first && (await tlsHandshakeError(first, tlsOptions(config), Math.min(timeoutMs, 2_000)));
		if (handshake && !/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH/.test(handshake)) {
			return {
				ok: false,
				message: friendlyRedisError(where, `${label} ${formatAddress(first)}: ${handshake}`),
			};
		}
	}
	const client = createRedisClient({ ...config, connectTimeoutMs: timeoutMs });
	try {
		await waitForReady(client, timeoutMs);
		const pong = await client.ping();
		if (pong !== 'PONG') return { ok: false, message: `${where} answered PING with "${pong}"` };
		if (config.mode !== 'cluster') {
			const mode = redisMode(await client.info('server'));
			if (mode === 'cluster') {
				return {
					ok: false,
					message: `${where} is a Redis Cluster node: choose the Cluster connection type`,
				};
			}
			if (mode === 'sentinel') {
				return {
					ok: false,
					message: `${where} is a Sentinel, not a Redis server: choose the Sentinel connection type`,
				};
			}
		}
		return { ok: true };
	} catch (error) {
		return {
			ok: false,
			message: friendlyRedisError(where, error, { cluster: config.mode === 'cluster' }),
		};
	} finally {
		client.disconnect();
	}
}

/** Why a TLS handshake with an address fails, or undefined when it succeeds. */
function tlsHandshakeError(
	address: RedisAddress,
	options: ConnectionOptions,
	timeoutMs: number,
): Promise<string | undefined> {
	return new Promise((resolve) => {
		const socket = tlsConnect({ ...options, host: address.host, port: address.port });
		const done = (result: string | undefined) => {
			clearTimeout(timer);
			socket.destroy();
			resolve(result);
		};
		const timer = setTimeout(() => done(undefined), timeoutMs);
		socket.once('secureConnect', () => done(undefined));
		socket.once('error', (error) => done(error.message || String(error)));
	});
}

export function friendlyRedisError(
	where: string,
	error: unknown,
	context: { cluster?: boolean } = {},
): string {
	const message = error instanceof Error ? error.message : String(error);
	return `${where}: ${redisErrorHint(message, context) ?? message}`;
}

/**
 * What a raw Redis/ioredis error means for the person who filled in the credential, or
 * undefined when the raw message is as good as it gets.
 */
export function redisErrorHint(
	message: string,
	context: { cluster?: boolean } = {},
): string | undefined {
	if (/No such master with that name|got an invalid reply: null/.test(message)) {
		return 'the Sentinels know no master by this name — check the Master Name';
	}
	if (
		/WRONGPASS|NOAUTH|invalid password|invalid username|AUTH.*without any password/i.test(message)
	) {
		return /sentinel/i.test(message)
			? 'authentication failed at the Sentinel — check the Sentinel username and password'
			: 'authentication failed — check the username and password';
	}
	if (
		/self[- ]signed certificate|unable to verify|certificate|UNABLE_TO_GET_ISSUER|ERR_TLS_CERT/i.test(
			message,
		)
	) {
		return `the TLS certificate was not accepted (${message}); for a self-signed certificate turn on Ignore SSL Issues`;
	}
	if (/wrong version number|packet length too long|unknown protocol/i.test(message)) {
		return `the TLS handshake failed (${message}) — is TLS enabled on the server? Turn SSL/TLS off for a server without TLS`;
	}
	if (/cluster support disabled/i.test(message)) {
		return 'this Redis is not a cluster node: choose the Host and Port (or Sentinel) connection type';
	}
	// Only a single-server client meets these from a cluster node (a cluster client follows MOVED,
	// and its batches share a hash slot).
	if (!context.cluster && /\bMOVED \d+ |CROSSSLOT/.test(message)) {
		return `${message} — this Redis is part of a Redis Cluster: choose the Cluster connection type`;
	}
	if (/unknown command .?(eval|set|get)/i.test(message)) {
		return `${message} — this looks like a Sentinel: choose the Sentinel connection type`;
	}
	if (/ECONNREFUSED/.test(message)) return 'connection refused — is Redis running there?';
	if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'host not found';
	if (/DB index is out of range/i.test(message)) return 'database number is out of range';
	return undefined;
}

/**
 * Whether a Redis command outlived the client's command timeout: it may still run once Redis
 * answers. ioredis rejects it with `new Error("Command timed out")` and no code
 * (built/Command.js), so this is the one place that reads its text; everything above reads the
 * flag (DedupStoreError.timedOut).
 */
export function isCommandTimeout(error: unknown): boolean {
	return error instanceof Error && /^Command timed out$/.test(error.message);
}

/**
 * What went wrong with the dedup store, in words that follow "The dedup store (…)": e.g.
 * `refused the connection: is Redis running at that address?`. Never repeats a raw error code
 * such as ECONNREFUSED, which n8n would turn into a headline of its own about "the service".
 */
export function describeRedisTrouble(
	message: string,
	context: { cluster?: boolean } = {},
): string {
	if (/ECONNREFUSED/.test(message)) {
		return 'refused the connection: is Redis running at that address and port?';
	}
	if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'could not be found: check the host name';
	if (/ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/.test(message)) {
		return 'could not be reached: check the host, the port and the network between n8n and Redis';
	}
	const within = /not reachable within (\d+) ms/.exec(message);
	if (within && !DEFINITIVE.test(message)) return `did not answer within ${within[1]} ms`;
	if (/ECONNRESET|Connection is closed/i.test(message)) {
		return 'closed the connection: is it restarting, or does it expect TLS?';
	}
	if (/^Command timed out$/.test(message)) {
		return 'did not answer in time (Command timed out): is Redis overloaded or paused?';
	}
	if (/^OOM command not allowed/.test(message)) return `refused the write: ${message}`;
	return `is unavailable: ${redisErrorHint(message, context) ?? message}`;
}
