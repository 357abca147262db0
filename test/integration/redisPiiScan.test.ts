import type Redis from 'ioredis';
import { adminRedis, uniquePrefix } from '../support/redisClient';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { keysMatching, scanKeys } = require('../support/redis-pii-scan.js');

/**
 * The scan the jest global teardown runs over what the suites leave in Redis (and dropPrefix over
 * each test's keys): it must see raw personal data in every kind of value we write — a dedup
 * string, a stats hash field, a capture-log stream entry — and in key names. Seeded keys are
 * removed with DEL here, not dropPrefix, which would report them.
 */
describe('Redis PII scan', () => {
	let admin: Redis;
	let prefix: string;
	beforeAll(() => {
		admin = adminRedis();
	});
	beforeEach(() => {
		prefix = uniquePrefix('pii-scan');
	});
	afterEach(async () => {
		const keys: string[] = await keysMatching(admin, `${prefix}:*`);
		if (keys.length) await admin.del(...keys);
	});
	afterAll(() => admin.disconnect());

	const scan = async () => scanKeys(admin, await keysMatching(admin, `${prefix}:*`));

	it('finds an email, a phone and a name in strings, hash fields, stream entries and key names', async () => {
		await admin.set(`${prefix}:claim`, 'ana.lima@example.com');
		await admin.hset(`${prefix}:stats`, 'sent', '3', '+1 (650) 555-1212', '1');
		await admin.xadd(
			`${prefix}:log`,
			'*',
			'r',
			JSON.stringify({ contact: { first_name: 'Jordan' } }),
		);
		await admin.set(`${prefix}:by:16505551212`, '1');
		const found = await scan();
		expect(found).toMatchObject({ keys: 4, byType: { string: 2, hash: 1, stream: 1 } });
		expect(found.hits).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/:claim: an email address/),
				expect.stringMatching(/:stats: the phone \+1 \(650\) 555-1212/),
				expect.stringMatching(/:log: the name "Jordan"/),
				expect.stringMatching(/:by:16505551212: the phone 16505551212/),
			]),
		);
	});

	it('passes what the project stores: hashes, counts and redacted captures', async () => {
		await admin.set(`${prefix}:meta:1234567890:${'ab'.repeat(32)}`, 'committed:7f0c');
		await admin.hset(`${prefix}:stats`, 'sent', '2500', 'duplicate', '12');
		await admin.xadd(
			`${prefix}:log`,
			'*',
			'r',
			JSON.stringify({
				_redacted: true,
				contact: { email_domain: 'example.com', has_phone: true, city: 'Austin' },
			}),
		);
		expect((await scan()).hits).toEqual([]);
	});
});
