import type Redis from 'ioredis';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { getRedisClient, redisConfigFromCredentials } from '../../../nodes/common/redisClients';
import { adminRedis, dropPrefix, uniquePrefix } from '../../support/redisClient';

/**
 * The real Redis of the test run (REDIS_URL, from the jest global setup) as the nodes'
 * leadCapiRedisApi credential, with a key prefix of each test's own that is scanned for raw
 * personal data and dropped after the test. Call inside a describe(): it registers its hooks.
 */
export function nodeRedis(label: string) {
	let admin: Redis;
	let prefix = '';
	const credential = (): ICredentialDataDecryptedObject => ({
		connection: 'url',
		url: process.env.REDIS_URL ?? '',
		keyPrefix: prefix,
	});
	beforeAll(() => {
		admin = adminRedis();
	});
	beforeEach(() => {
		prefix = uniquePrefix(`nodes:${label}`);
	});
	afterEach(() => dropPrefix(admin, prefix));
	afterAll(async () => {
		admin.disconnect();
		// The nodes' pooled connection (one per credential config) would keep jest waiting; once
		// it has ended, the pool opens a new one for the next describe().
		const { client } = getRedisClient(redisConfigFromCredentials(credential()));
		const ended = new Promise((resolve) => client.once('end', resolve));
		await client.quit();
		await ended;
	});
	return {
		credential,
		get prefix() {
			return prefix;
		},
		get admin() {
			return admin;
		},
	};
}
