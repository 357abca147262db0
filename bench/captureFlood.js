// @ts-check
/**
 * Bench scenario "capture flood": a stranger posts hostile maximum-size captures to the public
 * capture endpoint as fast as the capture path takes them. Redis (a private redis-server of its
 * own, so INFO counts nothing else) must stay under the capture log's documented budget.
 *
 *   full run: 100,000 captures into a log with the default budget (64 MiB)
 *   --quick:  5,000 captures into a log with a 4 MiB budget
 *
 * The first FULL_PATH captures (1,000; quick 200) go through the whole capture path — a 250 KB
 * capture-script body parsed by processCapture, as the trigger's webhook does — then redaction,
 * the entry cap and the atomic append. Parsing a 250 KB body costs ~40 ms, so the rest are
 * records already at every field's clip limit and beyond (distinct form ids, page paths, cities,
 * 60 attributes): what reaches Redis is the same maximum-size entry, through the same redaction,
 * cap and append, at the rate Redis takes it.
 *
 * Reported: used_memory before and after, the budget, the log's MEMORY USAGE and counted bytes,
 * entries kept. Gated (`--check`): used_memory growth and MEMORY USAGE within the budget, every
 * capture appended.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Redis = require('ioredis').default;
const { ping, freePort } = require('../scripts/local/redis.js');
const { hostileScriptBody, HOSTILE_ATTRIBUTE_KEYS } = require('./lib/hostileCapture.js');

/** Attribute keys of limitRecord. */
const LIMIT_ATTRIBUTE_KEYS = Array.from({ length: 60 }, (_, k) => `attribute_${k}`);
/** Declared, as a user would to preview on them: the log keeps declared attributes only. */
const DECLARED = [...HOSTILE_ATTRIBUTE_KEYS, ...LIMIT_ATTRIBUTE_KEYS];

const MB = 1024 * 1024;

/** A redis-server of this scenario's own: quiet, no persistence, no limit (growth shows as growth). */
async function privateRedis() {
	const port = await freePort();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-bench-flood-'));
	const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
		stdio: 'ignore',
	});
	for (let i = 0; i < 100; i++) {
		if (await ping('127.0.0.1', port, 200)) {
			return {
				url: `redis://127.0.0.1:${port}`,
				stop: () => {
					child.kill('SIGTERM');
					fs.rmSync(dir, { recursive: true, force: true });
				},
			};
		}
		await new Promise((r) => setTimeout(r, 50));
	}
	child.kill('SIGKILL');
	throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
}

/** @param {Redis} admin */
async function usedMemory(admin) {
	return Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))?.[1] ?? NaN);
}

/**
 * A record at and beyond every clip limit of the capture log, distinct per `i`.
 * @param {number} i
 */
function limitRecord(i) {
	const word = String(i).padStart(8, '0').replace(/\d/g, (d) => 'abcdefghij'[Number(d)]);
	/** @type {Record<string, string>} */
	const attributes = {};
	// As long as a kept attribute value can be (a 64-character token).
	for (const key of LIMIT_ATTRIBUTE_KEYS) attributes[key] = `${word}${'v'.repeat(56)}`;
	return {
		record_id: `flood_${i}`,
		state: 'lead',
		occurred_at: new Date().toISOString(),
		source: {
			kind: 'script',
			form_id: `form-${word}-${'f'.repeat(1_000)}`,
			page_url: `https://www.example.com/${word}/${'p'.repeat(2_000)}?utm_source=${'s'.repeat(300)}`,
			referrer: `https://${'h'.repeat(60)}.example/x`,
		},
		contact: { email: `x@example.com`, city: `City${word}${'c'.repeat(1_000)}`, region: `Region${word}${'r'.repeat(1_000)}` },
		consent: { ad_user_data: `granted${'g'.repeat(1_000)}${word}` },
		attributes,
	};
}

/** @param {{ quick: boolean, log: (line: string) => void }} options */
async function run({ quick, log }) {
	const core = require(path.join(__dirname, '..', 'dist', 'shared'));
	const n = quick ? 5_000 : 100_000;
	const fullPath = quick ? 200 : 1_000;
	const budget = quick ? 4 * MB : core.DEFAULT_CAPTURE_LOG_MAX_BYTES;
	const redis = await privateRedis();
	const client = core.createRedisClient({ url: redis.url });
	const admin = new Redis(redis.url);
	try {
		await core.waitForReady(client, 10_000);
		const key = 'bench:capturelog:flood';
		const captureLog = new core.CaptureLog(client, { key, maxBytes: budget });
		const before = await usedMemory(admin);
		log(`capture flood: ${n.toLocaleString('en-US')} hostile captures (${fullPath.toLocaleString('en-US')} through processCapture from 250 KB bodies), budget ${(budget / MB).toFixed(0)} MiB, used_memory before ${(before / MB).toFixed(1)} MB`);
		/** @type {import('../shared/capture').CaptureConfig} */
		const config = { source: 'script', signature: { kind: 'none' }, state: { from: 'preset' }, maxBodyBytes: 256 * 1024, deriveRecordId: false, trustProxy: false };
		let appended = 0;
		let largestEntry = 0;
		let peak = before;
		const t0 = process.hrtime.bigint();
		for (let i = 0; i < n; i++) {
			let record;
			if (i < fullPath) {
				const outcome = core.processCapture(
					{ method: 'POST', headers: { 'content-type': 'application/json' }, rawBody: Buffer.from(hostileScriptBody(i)), query: {}, remoteAddress: '203.0.113.9' },
					config,
				);
				if (outcome.kind !== 'accepted') throw new Error(`hostile capture ${i} was not accepted: ${outcome.reason ?? outcome.kind}`);
				record = outcome.record;
			} else {
				record = limitRecord(i);
			}
			const result = await captureLog.append(record, { attributes: DECLARED });
			appended++;
			largestEntry = Math.max(largestEntry, result.bytes);
			if (i % 5_000 === 4_999) {
				peak = Math.max(peak, await usedMemory(admin));
				log(`  ${(i + 1).toLocaleString('en-US')} appended; log ${result.entries.toLocaleString('en-US')} entries, ${(result.logBytes / MB).toFixed(2)} MiB counted; used_memory ${(peak / MB).toFixed(1)} MB`);
			}
		}
		const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
		const after = await usedMemory(admin);
		peak = Math.max(peak, after);
		const usage = Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
		const size = await captureLog.size();
		const growth = peak - before;
		const mb = (/** @type {number} */ b) => `${(b / MB).toFixed(1)} MB`;
		log(`capture flood: used_memory ${mb(before)} → ${mb(after)} (peak ${mb(peak)}), budget ${mb(budget)}; MEMORY USAGE of the log ${mb(usage)}; ${size.entries.toLocaleString('en-US')} entries kept`);
		return {
			rows: [
				{
					scenario: 'capture flood',
					variant: `hostile max-size captures → capture log (budget ${(budget / MB).toFixed(0)} MiB)`,
					n,
					metrics: {
						events_per_s: n / seconds,
						us_per_event: (seconds * 1e6) / n,
						note: `used_memory ${mb(before)} → ${mb(after)} (peak +${mb(growth)}); log MEMORY USAGE ${mb(usage)}, ${size.entries.toLocaleString('en-US')} entries; largest entry ${largestEntry} B counted`,
					},
					details: { used_memory_before: before, used_memory_after: after, used_memory_peak: peak, budget, memory_usage: usage, counted_bytes: size.bytes, entries: size.entries, appended, full_path: fullPath, largest_entry_cost: largestEntry },
				},
			],
			targets: [
				{
					target: `Capture flood: Redis grows by at most the capture log budget (${mb(budget)})`,
					value: `${n.toLocaleString('en-US')} hostile captures: used_memory ${mb(before)} → ${mb(after)}, peak growth ${mb(growth)}; MEMORY USAGE of the log ${mb(usage)}; ${appended.toLocaleString('en-US')} appended`,
					met: growth <= budget && usage <= budget && appended === n,
					gate: true,
				},
			],
			info: {},
		};
	} finally {
		client.disconnect();
		admin.disconnect();
		redis.stop();
	}
}

module.exports = { run };
