import type { ICredentialDataDecryptedObject, ICredentialTestFunctions } from 'n8n-workflow';
import {
	dedupKey,
	describeRedis,
	dispatch,
	metaAdapter,
	RedisDedupStore,
	Transport,
	type DispatchItem,
	type meta,
} from '../../shared';
import {
	createRedisClient,
	redisClientOptions,
	type RedisClient,
} from '../../shared/redis/client';
import { leadCapiRedisConnectionTest } from '../../nodes/common/credentialTests';
import { redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { webLead } from '../support/leads';
import { uniquePrefix } from '../support/redisClient';
import { startSentinelTopology, type SentinelTopology } from '../support/redisTopology';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'sentinel-tls-token-0123456789';
const PIXEL = '4440001112223';
type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

const credentialTest = (data: Record<string, unknown>) =>
	leadCapiRedisConnectionTest.call({} as ICredentialTestFunctions, {
		id: '1',
		name: 'Dedup Redis (TLS)',
		type: 'leadCapiRedisApi',
		data: data as never,
	});

/** The ioredis options a single-server or Sentinel credential produces. */
function serverOptions(data: ICredentialDataDecryptedObject) {
	const resolved = redisClientOptions(redisConfigFromCredentials(data));
	if (resolved.mode === 'cluster') throw new Error('expected a single server or Sentinel');
	return resolved;
}

describe('TLS options of the Redis credential', () => {
	it('single server: TLS with verification, the host name as server name (never an IP)', () => {
		const named = serverOptions({
			connection: 'fields',
			host: 'redis.internal',
			port: 6380,
			tls: true,
		});
		expect(named.options.tls).toEqual({ rejectUnauthorized: true, servername: 'redis.internal' });
		const byIp = serverOptions({
			connection: 'fields',
			host: '10.1.2.3',
			tls: true,
			disableTlsVerification: true,
		});
		expect(byIp.options.tls).toEqual({ rejectUnauthorized: false });
		const url = serverOptions({
			connection: 'url',
			url: 'rediss://u:p%40ss@cache.example.com:6380/2',
		});
		expect(url.options).toMatchObject({
			host: 'cache.example.com',
			port: 6380,
			db: 2,
			username: 'u',
			password: 'p@ss',
			tls: { rejectUnauthorized: true, servername: 'cache.example.com' },
		});
		const plain = serverOptions({ connection: 'fields', host: 'redis.internal' });
		expect(plain.options.tls).toBeUndefined();
	});

	it('Sentinel: TLS to the Sentinels and to the master, with the same verification choice', () => {
		const config = redisConfigFromCredentials({
			connection: 'sentinel',
			sentinels: '10.0.0.1:26380, 10.0.0.2, [fd00::3]:26381',
			masterName: 'cache',
			sentinelUsername: 'watcher',
			sentinelPassword: 'sentinel-pw',
			username: 'app',
			password: 'master-pw',
			database: 3,
			tls: true,
			disableTlsVerification: true,
		});
		const resolved = redisClientOptions(config);
		expect(resolved.mode).toBe('sentinel');
		expect(resolved.options).toMatchObject({
			sentinels: [
				{ host: '10.0.0.1', port: 26380 },
				{ host: '10.0.0.2', port: 26379 },
				{ host: 'fd00::3', port: 26381 },
			],
			name: 'cache',
			sentinelUsername: 'watcher',
			sentinelPassword: 'sentinel-pw',
			username: 'app',
			password: 'master-pw',
			db: 3,
			enableTLSForSentinelMode: true,
			tls: { rejectUnauthorized: false },
			sentinelTLS: { rejectUnauthorized: false },
			enableOfflineQueue: false,
			maxRetriesPerRequest: 0,
		});
		expect(describeRedis(config)).toBe('Redis TLS Sentinel cache/3 via 10.0.0.1:26380 (+2)');
		const plain = serverOptions({ connection: 'sentinel', sentinels: 'a', masterName: 'm' });
		expect(plain.options).not.toHaveProperty('tls');
		expect(plain.options).not.toHaveProperty('sentinelTLS');
		expect(plain.options).not.toHaveProperty('enableTLSForSentinelMode');
	});

	it('Cluster: TLS on every node connection, host names kept for certificate checks', () => {
		const resolved = redisClientOptions(
			redisConfigFromCredentials({
				connection: 'cluster',
				clusterNodes: 'node-1.cache.example.com:6379,node-2.cache.example.com',
				password: 'pw',
				tls: true,
			}),
		);
		if (resolved.mode !== 'cluster') throw new Error('expected a cluster');
		expect(resolved.nodes).toEqual([
			{ host: 'node-1.cache.example.com', port: 6379 },
			{ host: 'node-2.cache.example.com', port: 6379 },
		]);
		expect(resolved.options).toMatchObject({
			enableOfflineQueue: false,
			redisOptions: { password: 'pw', tls: { rejectUnauthorized: true }, maxRetriesPerRequest: 0 },
		});
		// The cluster manages its node connections (lazy, queueing until each is up): ours must not override that.
		expect(resolved.options.redisOptions).not.toHaveProperty('enableOfflineQueue');
		expect(resolved.options.redisOptions).not.toHaveProperty('lazyConnect');
		expect(resolved.options.redisOptions).not.toHaveProperty('retryStrategy');
		const lookedUp: string[] = [];
		resolved.options.dnsLookup!('node-1.cache.example.com', (_error, address) =>
			lookedUp.push(address),
		);
		expect(lookedUp).toEqual(['node-1.cache.example.com']);
	});
});

/**
 * A TLS-only master and Sentinel (self-signed certificate from `openssl req`), both real
 * redis-server processes on loopback ports: the Sentinel speaks TLS to the client and to the
 * master, the master accepts nothing but TLS.
 */
describe('Redis Sentinel over TLS (real TLS-only processes, self-signed certificate)', () => {
	let topology: SentinelTopology;
	let standIn: StandIn;
	const clients: RedisClient[] = [];
	const credential = (overrides: Record<string, unknown> = {}) => ({
		connection: 'sentinel',
		sentinels: `127.0.0.1:${topology.sentinel.port}`,
		masterName: topology.masterName,
		sentinelPassword: topology.sentinelPassword,
		password: topology.password,
		tls: true,
		disableTlsVerification: true,
		...overrides,
	});

	beforeAll(async () => {
		topology = await startSentinelTopology({ tls: true });
		standIn = await startMetaStandIn({ accessToken: TOKEN });
	}, 60_000);
	afterAll(async () => {
		for (const client of clients) client.disconnect();
		await standIn?.close();
		await topology?.stop();
	});

	it('passes the credential test with Ignore SSL Issues, and names the certificate problem without it', async () => {
		expect(await credentialTest(credential())).toEqual({
			status: 'OK',
			message: 'Connection successful: Redis answered PING',
		});
		const strict = await credentialTest(credential({ disableTlsVerification: false }));
		expect(strict.status).toBe('Error');
		expect(strict.message).toMatch(
			new RegExp(
				`^Redis TLS Sentinel mymaster via 127\\.0\\.0\\.1:${topology.sentinel.port}: the TLS certificate was not accepted \\(.*self[- ]signed certificate.*\\); for a self-signed certificate turn on Ignore SSL Issues$`,
			),
		);
	});

	it('reaches the TLS master directly too, by Host and Port and by rediss:// URL', async () => {
		const port = topology.master.port;
		expect(
			await credentialTest({
				connection: 'fields',
				host: '127.0.0.1',
				port,
				password: topology.password,
				tls: true,
				disableTlsVerification: true,
			}),
		).toMatchObject({ status: 'OK' });
		expect(
			await credentialTest({
				connection: 'url',
				url: `rediss://:${topology.password}@127.0.0.1:${port}/0`,
				disableTlsVerification: true,
			}),
		).toMatchObject({ status: 'OK' });
		const strict = await credentialTest({
			connection: 'fields',
			host: '127.0.0.1',
			port,
			password: topology.password,
			tls: true,
		});
		expect(strict.message).toMatch(
			/^Redis \(TLS\) at 127\.0\.0\.1:\d+: the TLS certificate was not accepted/,
		);
	});

	it('dispatch over TLS through the Sentinel sends each lead once and a re-run sends nothing', async () => {
		const prefix = uniquePrefix('sentinel-tls');
		const config = redisConfigFromCredentials(credential());
		const client = createRedisClient(config);
		clients.push(client);
		const store = new RedisDedupStore(client, { description: describeRedis(config) });
		const send = (items: DispatchItem[]) =>
			dispatch(items, {
				adapter: metaAdapter,
				config: {
					pixelId: PIXEL,
					accessToken: TOKEN,
					baseUrl: standIn.url,
					actionSource: 'auto',
					limitedDataUse: 'auto',
				} satisfies meta.MetaConfig,
				transport: new Transport(),
				store,
				keyPrefix: prefix,
			});
		const leads = [0, 1].map((i) => ({ record: webLead(i), eventName: 'Lead' }));
		expect((await send(leads)).map((r) => r.status)).toEqual(['sent', 'sent']);
		const again = await send(leads);
		expect(again.map((r) => r.status)).toEqual(['duplicate', 'duplicate']);
		expect(standIn.received).toHaveLength(2);
		expect(
			await topology
				.admin(topology.master.port)
				.get(dedupKey(prefix, 'meta', PIXEL, again[0].event_id!)),
		).toBe('s');
	});
});
