import type Redis from 'ioredis';
import {
	CaptureLog,
	captureLogKey,
	DEFAULT_MAX_ENTRY_BYTES,
	entryCost,
	redactForLog,
} from '../../shared/captureLog';
import { processCapture, type CaptureConfig } from '../../shared/capture';
import { createRedisClient, DedupStoreError, RedisDedupStore, waitForReady } from '../../shared/dedup';
import type { LeadRecord } from '../../shared/types';
import { startStandaloneRedis, type StandaloneRedis } from '../support/redisTopology';
import { webLead } from '../support/leads';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { hostileScriptBody, HOSTILE_ATTRIBUTE_KEYS } = require('../../bench/lib/hostileCapture.js');

const MB = 1024 * 1024;
const SCRIPT: CaptureConfig = {
	source: 'script',
	signature: { kind: 'none' },
	state: { from: 'preset' },
	maxBodyBytes: 256 * 1024,
	deriveRecordId: false,
	trustProxy: false,
};

/** A hostile maximum-size capture through the capture core, as the trigger receives it. */
function hostileRecord(i: number): LeadRecord {
	const outcome = processCapture(
		{
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			rawBody: Buffer.from(hostileScriptBody(i)),
			query: {},
			remoteAddress: '203.0.113.9',
		},
		SCRIPT,
	);
	if (outcome.kind !== 'accepted') throw new Error(`hostile capture ${i} not accepted: ${JSON.stringify(outcome)}`);
	return outcome.record;
}

async function memoryUsage(admin: Redis, key: string): Promise<number> {
	return Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
}

/**
 * The capture log's byte budget in a Redis of the test's own (maxmemory 64 MB, noeviction: what
 * the docs recommend): hostile maximum-size captures through the capture core keep each entry
 * under its cap and the log under its budget, atomically in Redis; a log written before the
 * budget is cut to it on the next append; a Redis that is full says what fills it.
 */
describe('capture log byte budget (own redis-server, maxmemory 64 MB, noeviction)', () => {
	let redis: StandaloneRedis;
	let client: Redis;
	let admin: Redis;
	const records = new Map<number, LeadRecord>();
	const record = (i: number) => {
		let r = records.get(i);
		if (!r) records.set(i, (r = hostileRecord(i)));
		return r;
	};

	beforeAll(async () => {
		redis = await startStandaloneRedis({ config: ['maxmemory 64mb', 'maxmemory-policy noeviction'] });
		client = createRedisClient({ url: redis.url });
		admin = redis.admin();
		await waitForReady(client, 10_000);
	});
	afterAll(async () => {
		client?.disconnect();
		await redis?.stop();
	});

	it('600 distinct hostile 250 KB captures: each entry within 4 KiB, the log within its 1 MiB budget (counted and MEMORY USAGE), only one key', async () => {
		const key = captureLogKey('budget', 'site');
		const log = new CaptureLog(client, { key, maxBytes: MB });
		const keysBefore = await admin.dbsize();
		let largest = 0;
		for (let i = 0; i < 600; i++) {
			const appended = await log.append(record(i), { attributes: HOSTILE_ATTRIBUTE_KEYS });
			largest = Math.max(largest, appended.bytes);
			expect(appended.logBytes).toBeLessThanOrEqual(MB);
			expect(appended.truncated?.dropped).toContain('attributes');
		}
		expect(largest).toBeLessThanOrEqual(entryCost(DEFAULT_MAX_ENTRY_BYTES));
		const size = await log.size();
		expect(size.bytes).toBeLessThanOrEqual(MB);
		// The budget holds what it says: about 1 MiB of 4 KiB entries, not 600 of them.
		expect(size.entries).toBeGreaterThan(150);
		expect(size.entries).toBeLessThan(300);
		expect(await memoryUsage(admin, key)).toBeLessThanOrEqual(MB);
		// Distinct forms and page paths make no keys of their own.
		expect(await admin.dbsize()).toBe(keysBefore + 1);
		// The preview still reads every entry, newest first, with what was cut.
		const { entries } = await log.readWindow();
		expect(entries).toHaveLength(size.entries);
		expect(entries[0].record).toMatchObject({ state: 'lead', _truncated: { dropped: expect.arrayContaining(['attributes']) } });
		// A 20,000-character form id is no enum-like token: not kept (docs/capture.md).
		expect(entries[0].record.source?.form_id).toBeUndefined();
		expect(Object.keys(entries[0].record.attributes ?? {})[0]).toBe(HOSTILE_ATTRIBUTE_KEYS[0]);
		expect(await admin.pttl(key)).toBeGreaterThan(7 * 24 * 3600 * 1000);
	}, 240_000);

	it('many appenders at once keep the budget (the trim is atomic with the append)', async () => {
		const key = captureLogKey('budget', 'parallel');
		const clients = Array.from({ length: 8 }, () => createRedisClient({ url: redis.url }));
		const logs = clients.map((c) => new CaptureLog(c, { key, maxBytes: MB }));
		await Promise.all(
			logs.map(async (log, p) => {
				for (let i = 0; i < 80; i++) await log.append(record((p * 80 + i) % 600), { attributes: HOSTILE_ATTRIBUTE_KEYS });
			}),
		);
		const size = await logs[0].size();
		expect(size.bytes).toBeLessThanOrEqual(MB);
		expect(await memoryUsage(admin, key)).toBeLessThanOrEqual(MB);
		expect(size.entries).toBeGreaterThan(150);
		for (const c of clients) c.disconnect();
	}, 120_000);

	it('a log written before the budget (entries of 200 KB, no offsets) is cut to the budget by the next append', async () => {
		const key = captureLogKey('budget', 'legacy');
		const legacy = JSON.stringify({ ...redactForLog(webLead(1)), attributes: { blob: 'x'.repeat(200_000) } });
		const pipeline = admin.pipeline();
		for (let i = 0; i < 100; i++) pipeline.xadd(key, '*', 'r', legacy);
		await pipeline.exec();
		expect(await memoryUsage(admin, key)).toBeGreaterThan(19 * MB);
		const log = new CaptureLog(client, { key, maxBytes: MB });
		const appended = await log.append(webLead(2));
		expect(appended.logBytes).toBeLessThanOrEqual(MB);
		expect(await memoryUsage(admin, key)).toBeLessThanOrEqual(MB + 300_000);
		// Once new entries fill the budget, the old ones are gone.
		for (let i = 0; i < 300; i++) await log.append(record(i), { attributes: HOSTILE_ATTRIBUTE_KEYS });
		expect(await memoryUsage(admin, key)).toBeLessThanOrEqual(MB);
		const { entries } = await log.readWindow();
		expect(entries.every((e) => !e.record.attributes?.blob)).toBe(true);
	}, 120_000);

	it('a full Redis: the capture log and the dedup store both say what fills it', async () => {
		// Fill the rest of the 64 MB with what a stranger could not: keys of another application.
		const filler = 'y'.repeat(50_000);
		for (let i = 0; ; i++) {
			try {
				await admin.set(`someone-else:blob:${i}`, filler);
			} catch (error) {
				expect(String(error)).toMatch(/OOM command not allowed/);
				break;
			}
		}
		const log = new CaptureLog(client, { key: captureLogKey('budget', 'site'), maxBytes: MB });
		const appendError = await log.append(webLead(3)).then(
			() => undefined,
			(error: Error) => error,
		);
		// A trimmed XADD may still fit; the claim below cannot be satisfied by trimming.
		if (appendError) {
			expect(appendError.message).toMatch(/^OOM command not allowed .*Redis is full: used [\d.]+ MB of maxmemory 64\.0 MB \(maxmemory-policy noeviction\)/);
			expect(appendError.message).toMatch(/capture logs [\d.]+ (MB|KB) in 3 keys/);
		}
		const store = new RedisDedupStore(client, { description: `Redis ${redis.url}` });
		const claim = await store.claimBatch(
			Array.from({ length: 20_000 }, (_, i) => `budget:meta:px:${'e'.repeat(64)}${i}`),
			60_000,
		).then(
			() => undefined,
			(error: Error) => error,
		);
		expect(claim).toBeInstanceOf(DedupStoreError);
		const message = (claim as Error).message;
		expect(message).toMatch(/^The dedup store \(Redis redis:\/\/127\.0\.0\.1:\d+\) refused the write: OOM command not allowed/);
		expect(message).toMatch(/Redis is full: used [\d.]+ MB of maxmemory 64\.0 MB \(maxmemory-policy noeviction\), [\d,]+ keys/);
		expect(message).toMatch(/capture logs [\d.]+ (MB|KB) in 3 keys \(budget:capturelog:\w+ [\d.]+ (MB|KB), \d+ entries/);
		expect(message).toMatch(/of \d+ keys sampled: \d+% other keys \(not written by this package\)/);
		expect(message).toMatch(/To free memory: raise maxmemory; lower the capture logs' Max Size \(MB\) or move the capture log to another database or instance; bring a down platform back, Purge its dead letters/);
	}, 120_000);
});
