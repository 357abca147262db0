import { parseNumber } from '../numbers';

/** Consent flags as they arrive (booleans, "granted"/"denied", yes/no, 1/0) → one reading. */
export type ConsentSignal = 'granted' | 'denied';

const GRANTED = new Set(['true', 'granted', 'yes', 'y', '1', 'allow', 'allowed', 'opt_in', 'optin']);
const DENIED = new Set(['false', 'denied', 'no', 'n', '0', 'deny', 'revoked', 'opt_out', 'optout']);

export function readConsent(raw: unknown): ConsentSignal | undefined {
	if (raw === true || raw === 1) return 'granted';
	if (raw === false || raw === 0) return 'denied';
	if (typeof raw !== 'string') return undefined;
	const text = raw.trim().toLowerCase();
	if (GRANTED.has(text)) return 'granted';
	if (DENIED.has(text)) return 'denied';
	return undefined;
}

/** Reads a value's amount and ISO 4217 currency; never guesses either. */
export function readValue(raw: { amount?: unknown; currency?: unknown } | undefined): {
	amount?: number;
	currency?: string;
	warnings: string[];
} {
	const warnings: string[] = [];
	if (!raw || typeof raw !== 'object') return { warnings };
	let amount: number | undefined;
	if (raw.amount !== undefined && raw.amount !== null && raw.amount !== '') {
		const n = parseNumber(raw.amount);
		if (n !== null && n >= 0) amount = n;
		else warnings.push('value.amount: not a non-negative number, omitted');
	}
	let currency: string | undefined;
	if (typeof raw.currency === 'string' && raw.currency.trim() !== '') {
		const c = raw.currency.trim().toUpperCase();
		if (/^[A-Z]{3}$/.test(c)) currency = c;
		else warnings.push('value.currency: not an ISO 4217 code, omitted');
	}
	if (amount !== undefined && currency === undefined) {
		warnings.push('value.amount given without value.currency: value not sent (currency is never guessed)');
		amount = undefined;
	}
	if (currency !== undefined && amount === undefined) currency = undefined;
	return { amount, currency, warnings };
}
