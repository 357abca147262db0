import { parseTimeMs, resolveEventTime } from '../../../shared/events';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const NOW_S = NOW / 1000;
const WEEK = 7 * 24 * 3600;

describe('parseTimeMs', () => {
	it.each([
		['2026-11-30T11:00:00Z', Date.parse('2026-11-30T11:00:00Z')],
		['2026-11-30T11:00:00.250+01:00', Date.parse('2026-11-30T10:00:00.250Z')],
		['2026-11-30 11:00:00Z', Date.parse('2026-11-30T11:00:00Z')],
		[1764500000, 1764500000000],
		[1764500000123, 1764500000123],
		['1764500000', 1764500000000],
		['yesterday', null],
		['30/11/2026', null],
		['', null],
		[null, null],
		[-5, null],
	])('%j → %j', (raw, expected) => {
		expect(parseTimeMs(raw)).toBe(expected);
	});
});

describe('resolveEventTime', () => {
	it('keeps a time inside the window', () => {
		const r = resolveEventTime({ occurredAt: '2026-11-29T12:00:00Z', windowSeconds: WEEK, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S - 86400, warnings: [] });
	});

	it('clamps an old event inside the window by default, with a warning', () => {
		const r = resolveEventTime({ occurredAt: '2026-11-01T12:00:00Z', windowSeconds: WEEK, now: NOW });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.unixSeconds).toBeGreaterThan(NOW_S - WEEK);
		expect(r.unixSeconds).toBeLessThan(NOW_S - WEEK + 3600);
		expect(r.warnings).toEqual([expect.stringMatching(/29\.0 days old.*7\.0 days window; clamped/)]);
	});

	it('skips an old event under the skip policy, saying why', () => {
		const r = resolveEventTime({
			occurredAt: '2026-11-01T12:00:00Z',
			windowSeconds: WEEK,
			policy: 'skip',
			now: NOW,
		});
		expect(r).toEqual({ ok: false, reason: expect.stringMatching(/outside the platform's 7\.0 days window \(event window policy: skip\)/), warnings: [] });
	});

	it.each(['clamp', 'skip'] as const)('turns a future time into now under %s, with a warning', (policy) => {
		const r = resolveEventTime({ occurredAt: '2026-11-30T15:00:00Z', windowSeconds: WEEK, policy, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S, warnings: [expect.stringMatching(/3 hours in the future/)] });
	});

	it.each([undefined, '', 'not a date'])('uses the send time when occurred_at is %j, with a warning', (occurredAt) => {
		const r = resolveEventTime({ occurredAt, windowSeconds: WEEK, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S, warnings: [expect.stringMatching(/occurred_at/)] });
	});

	it('accepts the window edge exactly', () => {
		const r = resolveEventTime({ occurredAt: (NOW_S - WEEK) * 1000, windowSeconds: WEEK, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S - WEEK, warnings: [] });
	});
});
