import type Redis from 'ioredis';
import { CaptureLog, captureLogKey, redactForLog } from '../../shared/captureLog';
import { createRedisClient } from '../../shared/dedup';
import { adminRedis, dropPrefix, uniquePrefix } from '../support/redisClient';
import { webLead } from '../support/leads';

describe('capture log (Redis stream)', () => {
	let client: Redis;
	let admin: Redis;
	let prefix: string;

	beforeAll(() => {
		client = createRedisClient({ url: process.env.REDIS_URL });
		admin = adminRedis();
	});
	beforeEach(() => {
		prefix = uniquePrefix('capturelog');
	});
	afterEach(() => dropPrefix(admin, prefix));
	afterAll(() => {
		client.disconnect();
		admin.disconnect();
	});

	it('keeps what rules need and no raw email, phone or name (scans everything Redis holds for the log)', async () => {
		const log = new CaptureLog(client, { key: captureLogKey(prefix, 'site') });
		const leads = [
			webLead(1, { attributes: { utm_source: 'fb', plan: 'pro', message: 'call me at +1 650 555 1212', note_email: 'x@y.io', score: 42 } }),
			webLead(2, { contact: { email: 'Jane.Doe@Acme.io', phone: '+44 20 7946 0958', first_name: 'Jane', last_name: 'Doe', country: 'GB' } }),
			webLead(3, { source: { page_url: 'https://example.com/pricing?email=bob%40example.com&utm_campaign=spring&token=abc' } }),
		];
		for (const lead of leads) await log.append(lead, { attributes: ['plan', 'score', 'message', 'note_email'] });
		const raw = JSON.stringify(await admin.xrange(captureLogKey(prefix, 'site'), '-', '+'));
		for (const pii of ['lead.1@example.com', 'Lead.1', 'jane.doe', 'Jane', 'Doe', 'Mary', "O'Neil", '555', '5551212', '79460958', '7946', 'bob%40example.com', 'bob@', 'x@y.io', '203.0.113.7', 'IwAR', 'Mozilla']) {
			expect(raw).not.toContain(pii);
		}
		const { entries } = await log.readWindow();
		// Location in Capture Log defaults to Country: countries as written, no region or city.
		expect(entries.map((e) => e.record.contact)).toEqual([
			{ email_domain: 'example.com', has_email: true, has_phone: true, phone_country: 'us', country: 'US' },
			{ email_domain: 'acme.io', has_email: true, has_phone: true, phone_country: 'gb', country: 'GB' },
			{ email_domain: 'example.com', has_email: true, has_phone: true, phone_country: 'us', country: 'US' },
		]);
		// The entry says the live lead has a city and a region (their lengths), for the preview.
		expect(entries[0].record._reduced).toMatchObject({ 'contact.city': [3, 13], 'contact.region': [3, expect.any(Number)] });
		await log.append(webLead(4), { location: 'city' });
		const [newest] = (await log.readWindow()).entries;
		expect(newest.record.contact).toMatchObject({ city: 'San Francisco', country: 'US' });
		expect(entries[0].record.source?.page_url).toBe('https://example.com/pricing?utm_campaign=spring');
		expect(entries[2].record).toMatchObject({
			_redacted: true,
			state: 'lead',
			click: { fbclid: true, fbp: true },
			attributes: { utm_source: 'fb', plan: 'pro', score: 42 },
		});
		expect(entries[2].record.attributes).not.toHaveProperty('message');
		expect(entries[2].record.attributes).not.toHaveProperty('note_email');
	});

	it('reads the window newest first, in pages, and says when the cap cut it', async () => {
		const log = new CaptureLog(client, { key: captureLogKey(prefix, 'many'), maxEntries: 12_000 });
		const pipeline = admin.pipeline();
		const record = JSON.stringify(redactForLog(webLead(0)));
		for (let i = 0; i < 11_000; i++) pipeline.xadd(captureLogKey(prefix, 'many'), '*', 'r', record);
		await pipeline.exec();
		const all = await log.readWindow();
		expect(all.entries).toHaveLength(11_000);
		expect(all.truncated).toBe(false);
		const ids = all.entries.map((e) => e.id);
		expect(new Set(ids).size).toBe(11_000);
		const newestFirst = (a: string, b: string) => {
			const [am, as] = a.split('-').map(Number);
			const [bm, bs] = b.split('-').map(Number);
			return bm - am || bs - as;
		};
		expect([...ids].sort(newestFirst)).toEqual(ids);
		const capped = await log.readWindow({ max: 5_001 });
		expect(capped.entries).toHaveLength(5_001);
		expect(capped.truncated).toBe(true);
		expect(capped.entries[0].id).toBe(ids[0]);
	});

	it('trims entries older than the window and keeps the length cap', async () => {
		const key = captureLogKey(prefix, 'trim');
		let now = Date.now();
		const log = new CaptureLog(client, { key, maxEntries: 5, windowMs: 60_000, clock: () => now });
		// Two entries written "8 days ago" (explicit old stream ids), then fresh appends.
		const old = Date.now() - 8 * 86_400_000;
		await admin.xadd(key, `${old}-0`, 'r', '{}');
		await admin.xadd(key, `${old + 1}-0`, 'r', '{}');
		await log.append(webLead(1));
		expect(await admin.xlen(key)).toBe(1);
		for (let i = 2; i <= 8; i++) await log.append(webLead(i));
		expect(await admin.xlen(key)).toBe(5);
		now += 120_000; // the window has passed for everything written so far
		expect((await log.readWindow()).entries).toHaveLength(0);
		expect(await admin.pttl(key)).toBeGreaterThan(60_000);
	});
});
