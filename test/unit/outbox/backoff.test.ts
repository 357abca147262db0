import { nextTryDelayMs } from '../../../shared/outbox';

describe('outbox backoff', () => {
	const base = 60_000;
	it('doubles per attempt, jittered between half and all of the step', () => {
		for (const attempts of [1, 2, 3, 4, 5]) {
			const step = base * 2 ** (attempts - 1);
			expect(nextTryDelayMs(attempts, { random: () => 0 })).toBe(step / 2);
			expect(nextTryDelayMs(attempts, { random: () => 0.999999 })).toBeLessThanOrEqual(step);
			expect(nextTryDelayMs(attempts, { random: () => 0.999999 })).toBeGreaterThan(step * 0.99);
		}
	});

	it('never waits longer than the cap (an hour), however many attempts', () => {
		for (let i = 0; i < 200; i++) {
			const d = nextTryDelayMs(40);
			expect(d).toBeGreaterThanOrEqual(30 * 60_000);
			expect(d).toBeLessThanOrEqual(60 * 60_000);
		}
	});

	it('honours a longer Retry-After, ignores a shorter one', () => {
		expect(nextTryDelayMs(1, { random: () => 0, retryAfterMs: 600_000 })).toBe(600_000);
		expect(nextTryDelayMs(3, { random: () => 0, retryAfterMs: 1_000 })).toBe(120_000);
	});
});
