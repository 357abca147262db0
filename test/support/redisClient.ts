import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createRedisClient } from '../../shared/dedup';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { keysMatching, scanPrefixBeforeDrop } = require('./redis-pii-scan.js');

function redisUrl(): string {
	const url = process.env.REDIS_URL;
	if (!url) throw new Error('REDIS_URL is not set: the jest global setup did not run');
	return url;
}

/** A connection made exactly as the nodes make theirs (REDIS_URL is set by the global setup). */
export function testRedis(): Redis {
	return createRedisClient({ url: redisUrl() });
}

/** A plain connection for test bookkeeping (inspecting and cleaning keys). */
export function adminRedis(): Redis {
	const client = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
	// A test that blocks the event loop (spawnSync of an n8n command) can time a connect out;
	// ioredis reconnects on its own, and the commands that matter report their own errors.
	client.on('error', () => undefined);
	return client;
}

/** A key prefix no other test uses. */
export function uniquePrefix(label: string): string {
	return `test:${label}:${randomUUID().slice(0, 8)}`;
}

/**
 * Deletes every key under a prefix, after scanning them for raw personal data (the findings go
 * to the run's summary, which the jest global teardown prints and fails on: redis-pii-scan.js).
 */
export async function dropPrefix(client: Redis, prefix: string): Promise<void> {
	const keys = await keysMatching(client, `${prefix}:*`);
	await scanPrefixBeforeDrop(client, prefix, keys);
	for (let i = 0; i < keys.length; i += 1000) await client.del(...keys.slice(i, i + 1000));
}

/**
 * Records every command one connection sends, in order, as they are written to Redis (each
 * command of a pipeline or MULTI too): `stop()` returns their names. Counted at the connection,
 * not with MONITOR, which sees every test's traffic on the shared Redis (the suite runs files in
 * parallel) and whose replies ioredis can mis-sort under load ("Command queue state error").
 */
export async function watchCommands(client: Redis): Promise<{ stop: () => Promise<string[]> }> {
	const seen: string[] = [];
	const send = client.sendCommand;
	client.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
		seen.push(String(args[0].name).toLowerCase());
		return send.apply(this, args);
	} as Redis['sendCommand'];
	return {
		stop: async () => {
			client.sendCommand = send;
			return seen;
		},
	};
}

/** What a Redis server ran, by name in order: the commands its clients sent, and those their scripts ran. */
export interface ServerCommands {
	client: string[];
	script: string[];
}

/**
 * Watches every command a redis-server of the test's own runs (MONITOR on `admin`'s server):
 * those the clients sent and those their scripts ran (source `lua`). Only for a private server
 * (test/support/redisTopology startStandaloneRedis), where nothing else runs. `stop()` sends a
 * marker PING on `admin`, waits for it to show, and returns what ran before it.
 */
export async function watchServer(admin: Redis): Promise<{ stop: () => Promise<ServerCommands> }> {
	const monitor = await admin.monitor();
	const seen: Array<{ name: string; script: boolean; marker: boolean }> = [];
	monitor.on('monitor', (_time: string, args: string[], source: string) => {
		const name = String(args[0]).toLowerCase();
		seen.push({ name, script: source === 'lua', marker: name === 'ping' && args[1] === 'watchServer:done' });
	});
	return {
		stop: async () => {
			await admin.ping('watchServer:done');
			for (let i = 0; i < 200 && !seen.some((c) => c.marker); i++) await new Promise((r) => setTimeout(r, 10));
			monitor.disconnect();
			const end = seen.findIndex((c) => c.marker);
			const before = end >= 0 ? seen.slice(0, end) : seen;
			return {
				client: before.filter((c) => !c.script).map((c) => c.name),
				script: before.filter((c) => c.script).map((c) => c.name),
			};
		},
	};
}

/** How many times each name occurs. */
export function countNames(names: string[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
	return counts;
}
