import { isIP } from 'node:net';

import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';

/**
 * IP address: a valid IPv4 or IPv6 address, sent in clear. Reads the client (first) entry of
 * an X-Forwarded-For list, drops a port or brackets, and unwraps IPv4-mapped IPv6
 * (`::ffff:1.2.3.4`, what Node servers report for IPv4 clients).
 */
export function normalizeIpText(text: string): FieldOutcome {
	const comma = text.indexOf(',');
	let address = (comma === -1 ? text : text.slice(0, comma)).trim();
	const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
	if (bracketed) address = bracketed[1];
	const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
	if (withPort) address = withPort[1];
	const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
	if (mapped) address = mapped[1];
	const version = isIP(address);
	if (version === 4) return { value: address };
	if (version === 6) return { value: address.toLowerCase() };
	return { omitted: 'not a valid IP address' };
}

export function normalizeIp(raw: unknown): string | null {
	return firstFieldValue('ip', raw, normalizeIpText);
}
