/**
 * conversionDateTime is `yyyy-mm-dd hh:mm:ss+hh:mm`: wall-clock time in the Google Ads account's
 * time zone with that zone's UTC offset at that very instant (so DST is right on both sides of a
 * change). Computed with Intl, no time zone database of our own.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
	let formatter = formatters.get(timeZone);
	if (!formatter) {
		formatter = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		});
		formatters.set(timeZone, formatter);
	}
	return formatter;
}

/** Whether Intl knows the IANA time zone name (e.g. `America/New_York`). */
export function isValidTimeZone(timeZone: string): boolean {
	if (typeof timeZone !== 'string' || timeZone.trim() === '') return false;
	try {
		formatterFor(timeZone);
		return true;
	} catch {
		return false;
	}
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `1796000000`, `America/New_York` → `2026-11-29 19:53:20-05:00`. */
export function formatConversionDateTime(unixSeconds: number, timeZone: string): string {
	const instantMs = Math.floor(unixSeconds) * 1000;
	const parts: Record<string, number> = {};
	for (const part of formatterFor(timeZone).formatToParts(new Date(instantMs))) {
		if (part.type !== 'literal') parts[part.type] = Number(part.value);
	}
	// The wall clock read as if it were UTC, minus the instant, is the zone's offset.
	const wallAsUtcMs = Date.UTC(
		parts.year,
		parts.month - 1,
		parts.day,
		parts.hour,
		parts.minute,
		parts.second,
	);
	const offsetMinutes = Math.round((wallAsUtcMs - instantMs) / 60_000);
	const sign = offsetMinutes < 0 ? '-' : '+';
	const absolute = Math.abs(offsetMinutes);
	const date = `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}`;
	const time = `${pad(parts.hour)}:${pad(parts.minute)}:${pad(parts.second)}`;
	return `${date} ${time}${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}
