import Redis, { type RedisOptions } from 'ioredis';

/** What the `leadCapiRedisApi` credential holds, framework-free. */
export interface RedisConnectionConfig {
	/** `redis://[user:password@]host:port/db` or `rediss://…` (TLS); overrides the fields below. */
	url?: string;
	host?: string;
	port?: number;
	username?: string;
	password?: string;
	database?: number;
	tls?: boolean;
	/** Only with TLS: accept self-signed certificates. */
	allowUnauthorizedCerts?: boolean;
	connectTimeoutMs?: number;
	commandTimeoutMs?: number;
}

export const DEFAULT_REDIS_CONNECT_TIMEOUT_MS = 3_000;
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 3_000;

interface Endpoint {
	host: string;
	port: number;
	database: number;
	tls: boolean;
}

function endpoint(config: RedisConnectionConfig): Endpoint {
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

/** `Redis 127.0.0.1:6379/0` — never includes credentials; used in messages and logs. */
export function describeRedis(config: RedisConnectionConfig): string {
	const e = endpoint(config);
	return `Redis ${e.tls ? 'TLS ' : ''}${e.host}:${e.port}/${e.database}`;
}

/**
 * One ioredis client. Commands are not queued while disconnected (`enableOfflineQueue: false`)
 * and time out quickly, so an unreachable store fails a dispatch at once instead of hanging it;
 * `RedisDedupStore` waits for the connection itself, bounded by the connect timeout.
 */
export function createRedisClient(config: RedisConnectionConfig): Redis {
	const e = endpoint(config);
	const options: RedisOptions = {
		host: e.host,
		port: e.port,
		db: e.database,
		lazyConnect: true,
		enableOfflineQueue: false,
		maxRetriesPerRequest: 0,
		connectTimeout: config.connectTimeoutMs ?? DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
		commandTimeout: config.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
		// Keep reconnecting in the background (capped backoff) so a recovered Redis is picked up.
		retryStrategy: (times) => Math.min(times * 200, 2_000),
		connectionName: 'n8n-nodes-lead-capi',
	};
	if (config.url) {
		const url = new URL(config.url);
		if (url.username) options.username = decodeURIComponent(url.username);
		if (url.password) options.password = decodeURIComponent(url.password);
	}
	if (config.username) options.username = config.username;
	if (config.password) options.password = config.password;
	if (e.tls) options.tls = { rejectUnauthorized: !config.allowUnauthorizedCerts, servername: e.host };
	const client = new Redis(options);
	// Errors surface through commands and `waitForReady`; an unhandled 'error' event would crash n8n.
	client.on('error', () => undefined);
	return client;
}

/** Resolves when the client is ready, connecting it if needed; rejects after `timeoutMs`. */
export function waitForReady(client: Redis, timeoutMs: number): Promise<void> {
	if (client.status === 'ready') return Promise.resolve();
	return new Promise<void>((resolve, reject) => {
		let lastError = 'no answer';
		const onError = (error: Error) => {
			lastError = error.message || String(error);
		};
		const cleanup = () => {
			clearTimeout(timer);
			client.off('ready', onReady);
			client.off('error', onError);
		};
		const onReady = () => {
			cleanup();
			resolve();
		};
		const timer = setTimeout(() => {
			cleanup();
			reject(new Error(`not reachable within ${timeoutMs} ms (${lastError})`));
		}, timeoutMs);
		client.on('ready', onReady);
		client.on('error', onError);
		if (client.status === 'wait' || client.status === 'end') {
			client.connect().catch((error: Error) => onError(error));
		}
	});
}

/**
 * Connects, PINGs and disconnects; for the credential test. Friendly messages for the usual
 * failures; never echoes the password.
 */
export async function testRedisConnection(
	config: RedisConnectionConfig,
	timeoutMs = DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
): Promise<{ ok: true } | { ok: false; message: string }> {
	const client = createRedisClient({ ...config, connectTimeoutMs: timeoutMs });
	const where = describeRedis(config);
	try {
		await waitForReady(client, timeoutMs);
		const pong = await client.ping();
		if (pong !== 'PONG') return { ok: false, message: `${where} answered PING with "${pong}"` };
		return { ok: true };
	} catch (error) {
		return { ok: false, message: friendlyRedisError(where, error) };
	} finally {
		client.disconnect();
	}
}

export function friendlyRedisError(where: string, error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	if (/ECONNREFUSED/.test(message)) return `${where}: connection refused — is Redis running there?`;
	if (/ENOTFOUND|EAI_AGAIN/.test(message)) return `${where}: host not found`;
	if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(message)) {
		return `${where}: authentication failed — check the username and password`;
	}
	if (/ETIMEDOUT|not reachable within/.test(message)) return `${where}: ${message}`;
	if (/DB index is out of range/i.test(message)) return `${where}: database number is out of range`;
	return `${where}: ${message}`;
}
