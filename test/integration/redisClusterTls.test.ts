import type { ICredentialTestFunctions } from 'n8n-workflow';
import {
	describeRedis,
	dispatch,
	metaAdapter,
	RedisDedupStore,
	Transport,
	type DispatchItem,
	type meta,
} from '../../shared';
import { createRedisClient, type RedisClient } from '../../shared/redis/client';
import { leadCapiRedisConnectionTest } from '../../nodes/common/credentialTests';
import { redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { webLead } from '../support/leads';
import { uniquePrefix } from '../support/redisClient';
import { startClusterTopology, type ClusterTopology } from '../support/redisTopology';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'cluster-tls-token-0123456789';
const PIXEL = '3330001112223';
type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

const credentialTest = (data: Record<string, unknown>) =>
	leadCapiRedisConnectionTest.call({} as ICredentialTestFunctions, {
		id: '1',
		name: 'Dedup Redis Cluster (TLS)',
		type: 'leadCapiRedisApi',
		data: data as never,
	});

/**
 * A 3-master Redis Cluster that speaks nothing but TLS (client ports and cluster bus), with a
 * self-signed certificate from `openssl req`: real redis-server processes on loopback ports.
 */
describe('Redis Cluster over TLS (real TLS-only processes, self-signed certificate)', () => {
	let topology: ClusterTopology;
	let standIn: StandIn;
	const clients: RedisClient[] = [];
	const credential = (overrides: Record<string, unknown> = {}) => ({
		connection: 'cluster',
		clusterNodes: topology.ports.map((p) => `127.0.0.1:${p}`).join(','),
		password: topology.password,
		tls: true,
		disableTlsVerification: true,
		...overrides,
	});

	beforeAll(async () => {
		topology = await startClusterTopology({ masters: 3, tls: true });
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
				`^Redis TLS Cluster 127\\.0\\.0\\.1:${topology.ports[0]} \\(\\+2\\): the TLS certificate was not accepted \\(.*self[- ]signed certificate.*\\); for a self-signed certificate turn on Ignore SSL Issues$`,
			),
		);
	});

	it('dispatch over TLS sends each lead once and a re-run sends nothing', async () => {
		const prefix = uniquePrefix('cluster-tls');
		const config = redisConfigFromCredentials(credential());
		const client = createRedisClient(config);
		clients.push(client);
		const store = new RedisDedupStore(client, { description: describeRedis(config) });
		expect(store.hashTagKeys).toBe(true);
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
		const leads = [0, 1, 2].map((i) => ({ record: webLead(i), eventName: 'Lead' }));
		expect((await send(leads)).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		const again = await send(leads);
		expect(again.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(standIn.received).toHaveLength(3);
		const owner = await topology.portOfSlot(await topology.slotOf(`{${PIXEL}}`));
		expect(await topology.admin(owner).get(`${prefix}:meta:{${PIXEL}}:${again[0].event_id}`)).toBe(
			's',
		);
		const report = await store.readStats(prefix, { hours: 24 });
		expect(report.map((r) => [r.destination, r.sent, r.duplicate])).toEqual([[PIXEL, 3, 3]]);
	});
});
