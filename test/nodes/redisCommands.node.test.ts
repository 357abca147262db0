import type Redis from 'ioredis';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { getRedisClient, redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { webLead } from '../support/leads';
import { watchServer } from '../support/redisClient';
import { startStandaloneRedis, type StandaloneRedis } from '../support/redisTopology';
import { runExecute } from './support/context';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'EAAG-node-commands-token-0123456789';

/**
 * Every command the Meta node's execute() issues to Redis with its defaults (Redis dedup, the
 * stage ledger on, Retry Failed Sends Later with an Outbox Key), counted by a private
 * redis-server: the batch's claim and settle scripts and the workflow's destination mark, the
 * same three whatever the number of items.
 */
describe('Meta Conversions: Redis commands per execution, whatever the number of items (a private redis-server)', () => {
	let server: StandaloneRedis;
	let admin: Redis;
	let standIn: { url: string; received: unknown[]; close(): Promise<void> };
	let next = 0;
	const redisCredential = (): ICredentialDataDecryptedObject => ({
		connection: 'url',
		url: server.url,
		keyPrefix: 'test:node-commands',
	});
	const execute = (n: number) =>
		runExecute(
			new MetaConversions(),
			Array.from({ length: n }, () => webLead(++next) as unknown as IDataObject),
			{
				credentials: {
					leadCapiMetaApi: { pixelId: '4440002223', accessToken: TOKEN, baseUrl: standIn.url },
					leadCapiRedisApi: redisCredential(),
					leadCapiOutboxApi: { secret: 'node-commands-outbox-key-0000' },
				},
			},
		);

	beforeAll(async () => {
		server = await startStandaloneRedis();
		admin = server.admin();
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		// The pooled connection's first commands (its name, the eviction-policy check) are its own.
		await execute(1);
	});
	afterAll(async () => {
		getRedisClient(redisConfigFromCredentials(redisCredential())).client.disconnect();
		await standIn.close();
		await server.stop();
	});

	it.each([1, 10, 100])('%i items: one claim script, one settle script and the destination mark', async (n) => {
		const watch = await watchServer(admin);
		const { outputs } = await execute(n);
		const { client } = await watch.stop();
		expect(outputs[0].map((o) => o.json.status)).toEqual(Array(n).fill('sent'));
		expect(client).toEqual(['eval', 'eval', 'eval']);
	});
});
