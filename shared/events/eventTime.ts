/**
 * Event time against a platform's acceptance window. Each platform's window is a property of
 * its adapter (`eventTimeWindow`), with where the figure comes from; outside it:
 *  - `skip` (default): the event is not sent (status skipped), and the reason names the
 *    platform's window. A rewritten time is never sent unless asked for;
 *  - `clamp`: only where the platform itself documents the window (Meta, Google), the event is
 *    sent with the oldest accepted time (a small margin inside the window), with a warning.
 *    Where the window is a third party's figure or an assumption, clamping would invent a time
 *    on an unconfirmed rule, so the event is skipped as under `skip`.
 * Future times (clock skew, time zones parsed wrong upstream) become now, with a warning.
 */
export type EventWindowPolicy = 'clamp' | 'skip';

/** A platform's oldest accepted event time, and what backs the figure. */
export interface EventTimeWindow {
	/** The platform, as the reason names it ("Meta", "TikTok"). */
	platform: string;
	/** Oldest accepted event, in seconds before the send. */
	seconds: number;
	/**
	 * `documented`: the platform's own documents state the window; `unconfirmed`: they are
	 * silent and the figure is a third party's or our assumption (docs/platforms/<platform>.md).
	 */
	basis: 'documented' | 'unconfirmed';
}

export interface EventTimeInput {
	/** ISO-8601 string, epoch milliseconds or epoch seconds (number or numeric string). */
	occurredAt: unknown;
	window: EventTimeWindow;
	policy?: EventWindowPolicy;
	/** Clock in epoch milliseconds; injectable for tests. */
	now?: number;
	/** The record field the time came from, as messages name it (default `occurred_at`). */
	field?: string;
	/** The time may never be clamped (a stage event): messages offer no Clamp to Window. */
	neverClamp?: boolean;
}

export type EventTimeResult =
	| { ok: true; unixSeconds: number; warnings: string[] }
	| { ok: false; reason: string; warnings: string[] };

/** Margin kept inside the window so an event clamped to its edge does not age out in flight. */
const CLAMP_MARGIN_SECONDS = 60;
/** Numbers below this are read as seconds, above as milliseconds (year 2286 in seconds). */
const SECONDS_MS_BOUNDARY = 1e10;

/** Parses a time value to epoch ms, or null when it is not a time. */
export function parseTimeMs(raw: unknown): number | null {
	if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.getTime();
	if (typeof raw === 'number') {
		if (!Number.isFinite(raw) || raw <= 0) return null;
		return raw < SECONDS_MS_BOUNDARY ? Math.round(raw * 1000) : Math.round(raw);
	}
	if (typeof raw !== 'string') return null;
	const text = raw.trim();
	if (text === '') return null;
	if (/^\d+(\.\d+)?$/.test(text)) return parseTimeMs(Number(text));
	// Only ISO-8601-like strings: Date.parse accepts locale formats that are ambiguous.
	if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(text)) {
		return null;
	}
	const ms = Date.parse(text.replace(' ', 'T'));
	return Number.isNaN(ms) ? null : ms;
}

/** A span in words, in the largest unit it fills: "2.5 days", "3 hours", "4 minutes", "40 seconds". */
function describeAge(seconds: number): string {
	const days = seconds / 86400;
	if (days >= 1) return `${days.toFixed(1)} days`;
	const [count, unit] =
		seconds >= 3600
			? [Math.round(seconds / 3600), 'hour']
			: seconds >= 60
				? [Math.round(seconds / 60), 'minute']
				: [Math.max(1, Math.round(seconds)), 'second'];
	return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

export function resolveEventTime(input: EventTimeInput): EventTimeResult {
	const now = input.now ?? Date.now();
	const nowSeconds = Math.floor(now / 1000);
	const policy = input.policy ?? 'skip';
	const warnings: string[] = [];
	const absent =
		input.occurredAt === undefined || input.occurredAt === null || input.occurredAt === '';
	const ms = absent ? null : parseTimeMs(input.occurredAt);
	if (ms === null) {
		warnings.push(
			absent
				? 'occurred_at: missing, used the send time as the event time'
				: 'occurred_at: not a valid time (ISO-8601 or epoch expected), used the send time as the event time',
		);
		return { ok: true, unixSeconds: nowSeconds, warnings };
	}
	const seconds = Math.floor(ms / 1000);
	if (seconds > nowSeconds) {
		warnings.push(
			`occurred_at: ${describeAge(seconds - nowSeconds)} in the future, sent as the current time`,
		);
		return { ok: true, unixSeconds: nowSeconds, warnings };
	}
	const age = nowSeconds - seconds;
	const { window } = input;
	if (age <= window.seconds) return { ok: true, unixSeconds: seconds, warnings };
	const rule = describeWindow(window);
	if (policy !== 'clamp' || window.basis !== 'documented' || input.neverClamp) {
		const clampHint =
			window.basis === 'documented' && !input.neverClamp
				? '; Event Window Policy → Clamp to Window sends it with the oldest accepted time'
				: '';
		return {
			ok: false,
			reason: `${input.field ?? 'occurred_at'} is ${describeAge(age)} old, outside ${rule}: not sent (the event time is never rewritten${clampHint})`,
			warnings,
		};
	}
	const clamped = nowSeconds - window.seconds + CLAMP_MARGIN_SECONDS;
	warnings.push(
		`occurred_at: ${describeAge(age)} old, outside ${rule}; clamped to the oldest accepted time (Event Window Policy: Clamp to Window)`,
	);
	return { ok: true, unixSeconds: clamped, warnings };
}

/** "Meta's 7-day window" / "the 7-day window applied for Pinterest (Pinterest documents none)". */
export function describeWindow(window: EventTimeWindow): string {
	const days = window.seconds / 86400;
	const span = Number.isInteger(days) ? `${days}-day` : `${describeAge(window.seconds)}`;
	return window.basis === 'documented'
		? `${window.platform}'s ${span} window`
		: `the ${span} window applied for ${window.platform} (${window.platform} documents none)`;
}
