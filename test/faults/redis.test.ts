import type { ItemResult } from '../../shared';
import { statusCounts } from '../support/faultFigures';
import { faultHarness, runCounts, sleep } from '../support/faultHarness';
import { crmLead } from '../support/leads';
import { until } from '../support/redisTopology';
import { leadItems } from '../support/senderHarness';

/** Long enough to outlive the outage: this is not a claim-expiry test. */
const LONG_CLAIM_TTL_MS = 30_000;
/** The dedup connection's command timeout here: a paused Redis is given up on after 1 s. */
const COMMAND_TIMEOUT_MS = 1_000;
const FAIL_CLOSED =
	/^The dedup store \(Redis redis:\/\/127\.0\.0\.1:\d+\) .+[.?] Nothing was sent \(dedup fails closed\)\. Retry the execution once the store answers/;
/** How long the killed Redis stays away: beyond the store's 3 s wait for a reconnection. */
const OUTAGE_MS = 5_000;
const distinct = (messages: string[]) => [...new Set(messages)];

/** The rows of RELIABILITY.md these scenarios write: what was done, what was expected. */
const ROWS = {
	'redis-killed': {
		order: 10,
		scenario: 'Redis killed mid-dispatch, then back',
		done: 'SIGKILL of redis-server while 4 batches (4,000 events) were at the platform; their answers released while Redis was down; a second dispatch (2,000 leads) during the outage; redis-server restarted from its append-only file 5 s later; re-run of all 7,000',
		expected:
			'dispatch during the outage fails closed, nothing sent; the answered batches are recorded once Redis is back; the re-run sends exactly the 2,000 unsent',
	},
	'redis-paused-claim': {
		order: 20,
		scenario: 'Redis paused while claiming',
		done: `CLIENT PAUSE WRITE (beyond the ${COMMAND_TIMEOUT_MS / 1000} s command timeout) during a dispatch of 1,500 leads (default 30 s claim lease); unpaused; re-run at once`,
		expected:
			'every item fails closed ("Command timed out … Nothing was sent"), nothing sent; the claims the timed-out scripts made once Redis resumed are freed, so the re-run sends all 1,500 at once',
	},
	'redis-paused-settle': {
		order: 30,
		scenario: 'Redis paused while settling',
		done: 'CLIENT PAUSE WRITE after the platform accepted 2 batches (2,000 events), answers released during the pause, unpaused 4 s (4 command timeouts) later; re-run',
		expected:
			'the dispatch waits for Redis and records the 2,000 as sent, no warning; the re-run sends nothing',
	},
};

/**
 * The dedup store itself under fault: a redis-server of the test's own, with an append-only
 * file fsynced on every write (what a production dedup store needs), SIGKILLed while batches
 * are at the platform and started again from that file; paused with CLIENT PAUSE beyond the
 * command timeout, while claiming and while settling.
 */
describe('the dedup Redis killed, paused and back', () => {
	const h = faultHarness('faults-redis', {
		persistent: true,
		commandTimeoutMs: COMMAND_TIMEOUT_MS,
	});

	it('SIGKILLed while 4 batches are at the platform: a dispatch during the outage fails closed; back again, the answered batches are recorded and the re-run sends exactly the unsent events', async () => {
		const atPlatform = leadItems(5000, crmLead, 'Lead');
		const duringOutage = leadItems(2000, (i) => crmLead(10_000 + i), 'Lead');
		// The first four requests (4 batches of 1,000: the default 4 in flight) are accepted and
		// their answers held back until Redis is gone; the fifth batch is not claimed yet.
		h.standIn.queueFaults(Array.from({ length: 4 }, () => ({ kind: 'accept-hold' })));
		const first = h.run(atPlatform, { claimTtlMs: LONG_CLAIM_TTL_MS });
		await until(
			'4 batches held at the stand-in',
			async () => h.standIn.heldAnswers() === 4,
			120_000,
		);

		await h.redis.server.kill('SIGKILL');
		expect(h.standIn.releaseHeld()).toBe(4);
		const refused = await h.run(duringOutage, { claimTtlMs: LONG_CLAIM_TTL_MS });
		// Nothing went out while Redis was away: no claim, no send.
		expect(h.standIn.requests).toHaveLength(4);
		expect(statusCounts(refused)).toEqual({ failed: 2000 });
		for (const r of refused) {
			expect(r).toMatchObject({ retryable: true, error: expect.stringMatching(FAIL_CLOSED) });
		}

		// Down for longer than the store waits for a reconnection (3 s) before Redis is back.
		await sleep(OUTAGE_MS);
		await h.redis.restart();
		const completed = await first;
		expect(statusCounts(completed)).toEqual({ sent: 5000 });
		expect(distinct(completed.flatMap((r) => r.warnings))).toEqual([]);
		expect(await h.audit()).toBe(0);

		const rerun = await h.run([...atPlatform, ...duringOutage], { claimTtlMs: LONG_CLAIM_TTL_MS });
		expect(statusCounts(rerun.slice(0, 5000))).toEqual({ duplicate: 5000 });
		expect(statusCounts(rerun.slice(5000))).toEqual({ sent: 2000 });
		// The health counters count every event once.
		expect(await h.healthCounters()).toMatchObject({ sent: 7000, duplicate: 5000 });

		await h.record(
			{ id: 'redis-killed', ...ROWS['redis-killed'] },
			[...atPlatform, ...duringOutage],
			runCounts([...completed, ...refused], rerun),
		);
	});

	it('paused (CLIENT PAUSE WRITE) beyond the command timeout while claiming: every item fails closed and nothing is sent; afterwards the re-run sends every event once', async () => {
		const items = leadItems(1500, (i) => crmLead(20_000 + i), 'Lead');
		await h.redis.command('CLIENT', 'PAUSE', '120000', 'WRITE');
		let paused: ItemResult[] = [];
		try {
			// The default claim lease (30 s): what a re-run after a pause meets in production.
			paused = await h.run(items);
		} finally {
			await h.redis.command('CLIENT', 'UNPAUSE');
		}
		expect(h.standIn.requests).toHaveLength(0);
		expect(statusCounts(paused)).toEqual({ failed: 1500 });
		for (const r of paused) {
			expect(r).toMatchObject({
				retryable: true,
				error: expect.stringMatching(
					/did not answer in time \(Command timed out\): is Redis overloaded or paused\? Nothing was sent \(dedup fails closed\)/,
				),
			});
		}
		expect(await h.audit()).toBe(0);

		// The timed-out claim scripts ran when Redis resumed; the run freed what they claimed right
		// behind them, so nothing is left blocked for the claim TTL: the re-run sends at once.
		const rerun = await h.run(items);
		expect(statusCounts(rerun)).toEqual({ sent: 1500 });

		await h.record(
			{ id: 'redis-paused-claim', ...ROWS['redis-paused-claim'] },
			items,
			runCounts(paused, rerun),
		);
	});

	it('paused while the platform answers: the settle waits for Redis, the answered events are recorded once it resumes, without a warning; the re-run sends nothing', async () => {
		const items = leadItems(2000, (i) => crmLead(30_000 + i), 'Lead');
		h.standIn.queueFaults([{ kind: 'accept-hold' }, { kind: 'accept-hold' }]);
		const running = h.run(items, { claimTtlMs: LONG_CLAIM_TTL_MS });
		await until(
			'2 batches held at the stand-in',
			async () => h.standIn.heldAnswers() === 2,
			120_000,
		);
		await h.redis.command('CLIENT', 'PAUSE', '120000', 'WRITE');
		h.standIn.releaseHeld();
		try {
			// Long enough for the settle to time out at least once while Redis is paused.
			await Promise.race([running, sleep(COMMAND_TIMEOUT_MS * 4)]);
		} finally {
			await h.redis.command('CLIENT', 'UNPAUSE');
		}
		const results = await running;
		expect(statusCounts(results)).toEqual({ sent: 2000 });
		expect(distinct(results.flatMap((r) => r.warnings))).toEqual([]);
		expect(await h.audit()).toBe(0);

		const rerun = await h.run(items, { claimTtlMs: LONG_CLAIM_TTL_MS });
		expect(statusCounts(rerun)).toEqual({ duplicate: 2000 });
		expect(h.standIn.requests).toHaveLength(2);
		expect(await h.healthCounters()).toMatchObject({ sent: 2000, duplicate: 2000 });

		await h.record(
			{ id: 'redis-paused-settle', ...ROWS['redis-paused-settle'] },
			items,
			runCounts(results, rerun),
		);
	});
});
