// @ts-check
/**
 * The rule preview over a full capture log, in a child process of its own.
 *
 *   node --expose-gc bench/lib/preview-child.js '<json options>'  → last stdout line: JSON
 *
 * Seeding (not timed): N captures as the Lead Capture Trigger logs them — the bench leads
 * (bench/lib/leads.js) with a third of them partial and utm_source as an attribute, redacted
 * with `redactForLog`, written to one stream with explicit stream ids spread evenly over the
 * last 7 days (oldest first, as test/support/captureWeek.ts does), in pipelines of 10,000.
 *
 * Measured, `reps` times after one warm-up (median reported): exactly what the Lead Rule
 * Filter's preview does — `CaptureLog.readWindow()` (XREVRANGE pages + JSON.parse), then
 * `buildPreview()` over the entries (decideSend per capture) — with a 3-condition rule set
 * evaluated on every capture (automatic_match, rules apply to all captures).
 */
const path = require('node:path');
const { generateLeads } = require('./leads.js');
const m = require('./measure.js');

const shared = require(path.join(__dirname, '..', '..', 'dist', 'shared', 'index.js'));

/** @typedef {{ n: number, reps: number, redisUrl: string, keyPrefix: string }} PreviewOptions */

const POLICY = {
	mode: /** @type {const} */ ('automatic_match'),
	rulesApplyTo: /** @type {const} */ ('all'),
	rules: {
		combinator: /** @type {const} */ ('and'),
		conditions: [
			{ field: 'source.page_url', match_type: /** @type {const} */ ('contains'), pattern: '/pricing' },
			{ field: 'attributes.utm_source', match_type: /** @type {const} */ ('in_list'), pattern: 'fb, ig' },
			{ field: 'contact.email', match_type: /** @type {const} */ ('is_work_email') },
		],
	},
};

/** @param {any} client @param {string} key @param {number} n */
async function seed(client, key, n) {
	const now = Date.now();
	const span = 7 * 86_400_000 - 10 * 60_000;
	const leads = generateLeads(n, { idPrefix: 'cap', nowMs: now });
	let seq = 0;
	let lastMs = -1;
	for (let start = 0; start < n; start += 10_000) {
		const pipeline = client.pipeline();
		for (let i = start; i < Math.min(n, start + 10_000); i++) {
			// Oldest first: capture i is (n - i) steps before now.
			const at = Math.round(now - 60_000 - ((n - 1 - i) * span) / n);
			seq = at === lastMs ? seq + 1 : 0;
			lastMs = at;
			const lead = /** @type {any} */ (leads[i]);
			if (i % 3 === 0) lead.state = 'partial';
			const utm = /utm_source=(\w+)/.exec(lead.source?.page_url ?? '')?.[1];
			if (utm) lead.attributes = { utm_source: utm };
			pipeline.xadd(key, `${at}-${seq}`, 'r', JSON.stringify(shared.redactForLog(lead)));
		}
		await pipeline.exec();
	}
}

/** @param {PreviewOptions} o */
async function main(o) {
	const client = shared.createRedisClient({ url: o.redisUrl, commandTimeoutMs: 60_000 });
	await shared.waitForReady(client, 5000);
	const key = `${o.keyPrefix}:capturelog:bench`;
	await seed(client, key, o.n);
	const log = new shared.CaptureLog(client, { key });

	const once = async () => {
		const read = await m.timed(() => log.readWindow());
		const evaluate = await m.timed(() =>
			shared.buildPreview(
				POLICY,
				read.result.entries.map((/** @type {any} */ e) => ({ id: e.id, at: e.at, record: e.record })),
				{ truncated: read.result.truncated },
			),
		);
		return { read, evaluate };
	};
	await once();
	const runs = [];
	/** @type {any} */
	let report;
	for (let r = 0; r < o.reps; r++) {
		const { read, evaluate } = await once();
		report = evaluate.result;
		runs.push({ readMs: read.ms, evaluateMs: evaluate.ms, totalMs: read.ms + evaluate.ms });
	}
	await client.del(key);
	client.disconnect();
	return {
		n: o.n,
		runs,
		considered: report.considered,
		matched: report.matched ?? report.would_send,
		truncated: report.truncated ?? false,
		conditions: report.conditions?.map((/** @type {any} */ c) => ({ passed: c.passed, failed: c.failed, not_evaluable: c.not_evaluable })),
	};
}

main(m.childOptions()).then(m.finish, m.fail);
