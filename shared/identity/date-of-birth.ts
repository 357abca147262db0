import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';

export interface DateOfBirthContext {
	/** "Now" in epoch ms, for rejecting dates in the future; defaults to the system clock. */
	now?: number;
}

interface DateParts {
	year: number;
	month: number;
	day: number;
}

type DateReading = DateParts | { omitted: string };

/** Meta: year 1900 to the current year. */
const EARLIEST_YEAR = 1900;

/**
 * Date of birth (db): YYYYMMDD. Accepts YYYYMMDD, ISO dates (a time part is ignored),
 * YYYY/MM/DD, MM/DD/YYYY, DD.MM.YYYY, and DD-MM-YYYY or DD/MM/YYYY when the first group cannot
 * be a month. Two-digit years, ambiguous day/month orders and impossible dates are omitted.
 */
export function normalizeDateOfBirthText(
	text: string,
	context: DateOfBirthContext = {},
): FieldOutcome {
	const reading = readDateParts(text);
	if ('omitted' in reading) return reading;
	const problem = findDateProblem(reading, context.now ?? Date.now());
	if (problem !== null) return { omitted: problem };
	const { year, month, day } = reading;
	return { value: `${year}${pad2(month)}${pad2(day)}` };
}

function readDateParts(text: string): DateReading {
	let match = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
	if (match) return parts(match[1], match[2], match[3]);
	match = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?:[T\s].*)?$/.exec(text);
	if (match) return parts(match[1], match[3], match[4]);
	match = /^(\d{1,2})([-/.])(\d{1,2})\2(\d{4})$/.exec(text);
	if (match)
		return readDayMonthOrder(Number(match[1]), match[2], Number(match[3]), Number(match[4]));
	if (/^\d{1,2}([-/.])\d{1,2}\1\d{2}$/.test(text)) return { omitted: 'two-digit year' };
	return { omitted: 'not a recognised date format' };
}

/** Slashes are US month-first, dots are day-first, dashes are read only when unambiguous. */
function readDayMonthOrder(
	first: number,
	separator: string,
	second: number,
	year: number,
): DateReading {
	if (separator === '.') return { year, month: second, day: first };
	const firstCannotBeMonth = first > 12;
	if (separator === '/') {
		return firstCannotBeMonth
			? { year, month: second, day: first }
			: { year, month: first, day: second };
	}
	if (firstCannotBeMonth) return { year, month: second, day: first };
	if (first === second) return { year, month: first, day: first };
	return { omitted: 'ambiguous day and month order (use YYYY-MM-DD)' };
}

function parts(year: string, month: string, day: string): DateParts {
	return { year: Number(year), month: Number(month), day: Number(day) };
}

function findDateProblem({ year, month, day }: DateParts, now: number): string | null {
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
		return 'impossible date';
	if (year < EARLIEST_YEAR) return `year before ${EARLIEST_YEAR}`;
	if (Date.UTC(year, month - 1, day) > now) return 'date in the future';
	return null;
}

function daysInMonth(year: number, month: number): number {
	return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function pad2(value: number): string {
	return String(value).padStart(2, '0');
}

export function normalizeDateOfBirth(raw: unknown, opts: DateOfBirthContext = {}): string | null {
	return firstFieldValue('date_of_birth', raw, (text) => normalizeDateOfBirthText(text, opts));
}
