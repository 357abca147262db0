import type Redis from 'ioredis';
import {
	CaptureLog,
	captureLogKey,
	checkEvictionPolicy,
	createRedisClient,
	processCapture,
	type CaptureConfig,
	type LeadRecord,
} from '../../shared';
import { statusCounts } from '../support/faultFigures';
import { faultHarness, runCounts } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { leadItems } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { hostileScriptBody, HOSTILE_ATTRIBUTE_KEYS } = require('../../bench/lib/hostileCapture.js');

const MB = 1024 * 1024;
/** The Redis's memory limit and the capture log's budget in these scenarios. */
const MAXMEMORY_MB = 40;
const BUDGET_MB = 4;
/** Hostile captures posted: ~210 KB each once parsed, about 1 GB if the log kept them whole. */
const CAPTURES = 5_000;
/** Distinct hostile bodies parsed by the capture core (40 ms each); the flood cycles through them. */
const DISTINCT = 200;

const SCRIPT: CaptureConfig = {
	source: 'script',
	signature: { kind: 'none' },
	state: { from: 'preset' },
	maxBodyBytes: 256 * 1024,
	deriveRecordId: false,
	trustProxy: false,
};

const ROWS = {
	'capture-flood-noeviction': {
		order: 140,
		scenario: 'Hostile captures fill the Redis (noeviction)',
		done: `${MAXMEMORY_MB} MB Redis, maxmemory-policy noeviction; 2,000 leads sent; ${CAPTURES.toLocaleString('en-US')} hostile 250 KB captures (distinct forms, pages, 700 attributes) appended through the capture path to a ${BUDGET_MB} MiB capture log; 5,000 new leads dispatched; re-run of all 7,000`,
		expected:
			'the capture log stays within its budget, so no OOM: the 5,000 new leads are sent; the re-run sends nothing',
	},
	'capture-flood-allkeys-lru': {
		order: 150,
		scenario: 'Hostile captures fill the Redis (allkeys-lru)',
		done: `${MAXMEMORY_MB} MB Redis, maxmemory-policy allkeys-lru; 5,000 leads sent; ${CAPTURES.toLocaleString('en-US')} hostile 250 KB captures appended to a ${BUDGET_MB} MiB capture log; re-run of the 5,000`,
		expected:
			'the connect check warns that markers can be evicted; the capture log stays within its budget, nothing is evicted, the re-run sends nothing',
	},
};

/** The hostile captures, parsed by the capture core as the trigger's webhook does. */
function hostileRecords(): LeadRecord[] {
	return Array.from({ length: DISTINCT }, (_, i) => {
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
		if (outcome.kind !== 'accepted') throw new Error(`hostile capture ${i} not accepted`);
		return outcome.record;
	});
}

const usedMemory = async (admin: Redis) =>
	Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))?.[1]);
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MiB`;

/** Floods a capture log on the harness's Redis; returns what Redis used before and after. */
async function flood(admin: Redis, url: string, prefix: string, records: LeadRecord[]) {
	const client = createRedisClient({ url });
	try {
		const log = new CaptureLog(client, { key: captureLogKey(prefix, 'lead-capture'), maxBytes: BUDGET_MB * MB });
		const before = await usedMemory(admin);
		let failed = 0;
		let peak = before;
		for (let i = 0; i < CAPTURES; i++) {
			// Declared, as a user would to preview on them: entries as large as the cap allows.
			await log.append(records[i % records.length], { attributes: HOSTILE_ATTRIBUTE_KEYS }).catch(() => failed++);
			if (i % 500 === 499) peak = Math.max(peak, await usedMemory(admin));
		}
		const after = await usedMemory(admin);
		const size = await log.size();
		const usage = Number(await admin.call('MEMORY', 'USAGE', log.key, 'SAMPLES', '0'));
		return { before, after, peak: Math.max(peak, after), size, usage, failed };
	} finally {
		client.disconnect();
	}
}

describe('hostile captures against a Redis with a memory limit', () => {
	let records: LeadRecord[];
	beforeAll(() => {
		records = hostileRecords();
	});

	describe('noeviction', () => {
		const h = faultHarness('faults-flood-noeviction', {
			redisConfig: [`maxmemory ${MAXMEMORY_MB}mb`, 'maxmemory-policy noeviction'],
		});

		it('the capture log stays within its budget: no OOM for the leads that follow, and their re-run sends nothing', async () => {
			const first = leadItems(2000, (i) => crmLead(40_000 + i), 'Lead');
			const sent = await h.run(first);
			expect(statusCounts(sent)).toEqual({ sent: 2000 });

			const memory = await flood(h.admin, h.redis.url, h.prefix, records);
			expect(memory.failed).toBe(0);
			expect(memory.size.bytes).toBeLessThanOrEqual(BUDGET_MB * MB);
			expect(memory.usage).toBeLessThanOrEqual(BUDGET_MB * MB);
			expect(memory.peak - memory.before).toBeLessThanOrEqual(BUDGET_MB * MB);

			const next = leadItems(5000, (i) => crmLead(50_000 + i), 'Lead');
			const afterFlood = await h.run(next);
			expect(statusCounts(afterFlood)).toEqual({ sent: 5000 });
			const rerun = await h.run([...first, ...next]);
			expect(statusCounts(rerun)).toEqual({ duplicate: 7000 });
			expect(await h.audit()).toBe(0);

			await h.record(
				{
					id: 'capture-flood-noeviction',
					...ROWS['capture-flood-noeviction'],
					notes: `used_memory ${mb(memory.before)} → ${mb(memory.after)} (peak growth ${mb(memory.peak - memory.before)}) over ${CAPTURES.toLocaleString('en-US')} hostile captures; capture log ${memory.size.entries.toLocaleString('en-US')} entries, ${mb(memory.usage)} (MEMORY USAGE), budget ${BUDGET_MB} MiB; maxmemory ${MAXMEMORY_MB} MiB; 0 OOM`,
					details: { memory },
				},
				[...first, ...next],
				runCounts(afterFlood, rerun),
			);
		}, 480_000);
	});

	describe('allkeys-lru', () => {
		const h = faultHarness('faults-flood-lru', {
			redisConfig: [`maxmemory ${MAXMEMORY_MB}mb`, 'maxmemory-policy allkeys-lru'],
		});

		it('the check at connect warns that markers can be evicted; the bounded log evicts nothing, and the re-run sends nothing', async () => {
			const check = await checkEvictionPolicy(h.admin, 'Redis under test');
			expect(check).toMatchObject({ policy: 'allkeys-lru', markersSafe: false });
			expect(check.warning).toMatch(/may evict the dedup "sent" markers/);

			const items = leadItems(5000, (i) => crmLead(60_000 + i), 'Lead');
			const sent = await h.run(items);
			expect(statusCounts(sent)).toEqual({ sent: 5000 });
			const memory = await flood(h.admin, h.redis.url, h.prefix, records);
			expect(memory.failed).toBe(0);
			expect(memory.usage).toBeLessThanOrEqual(BUDGET_MB * MB);
			const evicted = Number(/^evicted_keys:(\d+)/m.exec(await h.admin.info('stats'))?.[1]);
			expect(evicted).toBe(0);

			const rerun = await h.run(items);
			expect(statusCounts(rerun)).toEqual({ duplicate: 5000 });
			expect(await h.audit()).toBe(0);

			await h.record(
				{
					id: 'capture-flood-allkeys-lru',
					...ROWS['capture-flood-allkeys-lru'],
					notes: `used_memory ${mb(memory.before)} → ${mb(memory.after)} over ${CAPTURES.toLocaleString('en-US')} hostile captures; capture log ${mb(memory.usage)} (budget ${BUDGET_MB} MiB); ${evicted} keys evicted; the connect check said: "${check.warning?.slice(0, 140)}…"`,
					details: { memory, evicted, check },
				},
				items,
				runCounts(sent, rerun),
			);
		}, 480_000);
	});
});
