import { parseTimeMs, resolveEventTime, type EventTimeWindow } from '../../../shared/events';
import { PLATFORM_ADAPTERS } from '../../../shared/platforms';

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
	const META: EventTimeWindow = { platform: 'Meta', seconds: WEEK, basis: 'documented' };
	const PINTEREST: EventTimeWindow = { platform: 'Pinterest', seconds: WEEK, basis: 'unconfirmed' };

	it('keeps a time inside the window', () => {
		const r = resolveEventTime({ occurredAt: '2026-11-29T12:00:00Z', window: META, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S - 86400, warnings: [] });
	});

	it('skips an old event by default, naming the platform and its window; the time is never rewritten', () => {
		const r = resolveEventTime({ occurredAt: '2026-11-01T12:00:00Z', window: META, now: NOW });
		expect(r).toEqual({
			ok: false,
			reason:
				"occurred_at is 29.0 days old, outside Meta's 7-day window: not sent (the event time is never rewritten; Event Window Policy → Clamp to Window sends it with the oldest accepted time)",
			warnings: [],
		});
	});

	it('clamps only when asked and only where the platform documents its window, with a warning', () => {
		const r = resolveEventTime({ occurredAt: '2026-11-01T12:00:00Z', window: META, policy: 'clamp', now: NOW });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.unixSeconds).toBeGreaterThan(NOW_S - WEEK);
		expect(r.unixSeconds).toBeLessThan(NOW_S - WEEK + 3600);
		expect(r.warnings).toEqual([
			"occurred_at: 29.0 days old, outside Meta's 7-day window; clamped to the oldest accepted time (Event Window Policy: Clamp to Window)",
		]);
	});

	it('never clamps into a window the platform does not document: skipped even under clamp', () => {
		for (const policy of ['clamp', 'skip', undefined] as const) {
			const r = resolveEventTime({ occurredAt: '2026-11-20T12:00:00Z', window: PINTEREST, policy, now: NOW });
			expect(r).toEqual({
				ok: false,
				reason:
					'occurred_at is 10.0 days old, outside the 7-day window applied for Pinterest (Pinterest documents none): not sent (the event time is never rewritten)',
				warnings: [],
			});
		}
	});

	it.each([
		// [adapter window, age in days, sent?] — each platform's own window, not Meta's for all
		['meta', 6.9, true],
		['meta', 8, false],
		['pinterest', 6.9, true],
		['pinterest', 8, false],
		['microsoft', 8, false],
		['tiktok', 8, true],
		['tiktok', 27.9, true],
		['tiktok', 29, false],
		['google', 8, true],
		['google', 89.9, true],
		['google', 91, false],
	] as const)("%s: an event %s days old is sent: %s (the adapter's eventTimeWindow)", (platform, days, sent) => {
		const window = PLATFORM_ADAPTERS[platform].eventTimeWindow;
		const r = resolveEventTime({ occurredAt: NOW - days * 86_400_000, window, now: NOW });
		expect(r.ok).toBe(sent);
		if (!r.ok) expect(r.reason).toContain(window.platform);
	});

	it('states which windows the platforms themselves document', () => {
		const basis = Object.fromEntries(
			Object.entries(PLATFORM_ADAPTERS).map(([k, a]) => [k, [a.eventTimeWindow.seconds / 86400, a.eventTimeWindow.basis]]),
		);
		expect(basis).toEqual({
			meta: [7, 'documented'],
			pinterest: [7, 'unconfirmed'],
			tiktok: [28, 'unconfirmed'],
			microsoft: [7, 'unconfirmed'],
			google: [90, 'unconfirmed'],
		});
	});

	it.each(['clamp', 'skip'] as const)('turns a future time into now under %s, with a warning', (policy) => {
		const r = resolveEventTime({ occurredAt: '2026-11-30T15:00:00Z', window: META, policy, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S, warnings: [expect.stringMatching(/3 hours in the future/)] });
	});

	it.each<[string, string]>([
		['2026-11-30T12:04:00Z', 'occurred_at: 4 minutes in the future, sent as the current time'],
		['2026-11-30T12:01:00Z', 'occurred_at: 1 minute in the future, sent as the current time'],
		['2026-11-30T12:00:30Z', 'occurred_at: 30 seconds in the future, sent as the current time'],
		['2026-11-30T13:00:00Z', 'occurred_at: 1 hour in the future, sent as the current time'],
	])('a time a little ahead (%s) says by how much, never "0 hours"', (occurredAt, warning) => {
		const r = resolveEventTime({ occurredAt, window: META, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S, warnings: [warning] });
	});

	it.each([undefined, '', 'not a date'])('uses the send time when occurred_at is %j, with a warning', (occurredAt) => {
		const r = resolveEventTime({ occurredAt, window: META, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S, warnings: [expect.stringMatching(/occurred_at/)] });
	});

	it('accepts the window edge exactly', () => {
		const r = resolveEventTime({ occurredAt: (NOW_S - WEEK) * 1000, window: META, now: NOW });
		expect(r).toEqual({ ok: true, unixSeconds: NOW_S - WEEK, warnings: [] });
	});
});
