/** Numbers and dates for greater_than / less_than. */
import { parseNumber } from '../numbers';

/** The number a value stands for (`1,200.50` → 1200.5, `$99` → 99), or null. */
export const parseRuleNumber = parseNumber;

const ISO_DATE =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Epoch ms of an ISO-8601 date or date-time, or null. A date-time without an offset is read as
 * UTC (not the server's zone), so a rule means the same on every server.
 */
export function parseRuleDate(value: unknown): number | null {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
	if (typeof value !== 'string') return null;
	const match = ISO_DATE.exec(value.trim());
	if (!match) return null;
	const [, year, month, day, hour, minute, second, zone] = match;
	if (+month < 1 || +month > 12 || +day < 1 || +day > daysInMonth(+year, +month)) return null;
	if (
		hour !== undefined &&
		(+hour > 23 || +minute > 59 || (second !== undefined && +second > 59))
	) {
		return null;
	}
	let text = value.trim().replace(' ', 'T').replace(',', '.');
	if (hour !== undefined && zone === undefined) text += 'Z';
	const time = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
	return Number.isNaN(time) ? null : time;
}

function daysInMonth(year: number, month: number): number {
	return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** What a greater_than / less_than pattern compares with. */
export type Bound = { kind: 'number'; value: number } | { kind: 'date'; value: number };

/** A pattern as a bound: a number first ("2024" is a number), else an ISO date. */
export function parseBound(pattern: string): Bound | null {
	const number = parseRuleNumber(pattern);
	if (number !== null) return { kind: 'number', value: number };
	const date = parseRuleDate(pattern);
	return date === null ? null : { kind: 'date', value: date };
}
