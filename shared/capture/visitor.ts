import { isIP } from 'node:net';

import { normalizeIp } from '../identity';
import { putFirst, type CaptureDraft } from './draft';
import { utmAttributeKey } from './detect';
import type { CaptureRequest } from './types';
import { readHeader, readHeaderList, readText } from './values';

/** Click ids read from a landing or page URL's query. */
export const URL_CLICK_PARAMS = [
	'fbclid',
	'gclid',
	'gbraid',
	'wbraid',
	'ttclid',
	'msclkid',
	'epik',
] as const;

/**
 * Adds the click ids and utm_* of every URL to the draft, after what the body said explicitly:
 * a value the body (or the script) already carries is never replaced by one from a URL.
 */
export function addUrlParameters(draft: CaptureDraft, urls: readonly unknown[]): void {
	for (const url of urls) {
		const params = readQuery(url);
		if (params === null) continue;
		for (const name of URL_CLICK_PARAMS) putFirst(draft, 'click', name, readText(params.get(name)));
		for (const [name, value] of params) {
			const key = utmAttributeKey(name);
			if (key !== null) putFirst(draft, 'attributes', key, readText(value));
		}
	}
}

function readQuery(url: unknown): URLSearchParams | null {
	const text = readText(url);
	if (text === undefined || !text.includes('?')) return null;
	try {
		// The base lets a scheme-less or relative URL ("example.com/?fbclid=…") parse too.
		return new URL(text, 'https://landing.invalid/').searchParams;
	} catch {
		return null;
	}
}

export interface ClientAddress {
	ip?: string;
	warning?: string;
}

/**
 * The visitor's address from the request. Proxy headers are client-controlled, so they are read
 * only when the node is told a trusted proxy sets them: the left-most public address of
 * X-Forwarded-For (the client end of the chain), else X-Real-IP, else the TCP peer. Private,
 * loopback and link-local addresses identify no visitor (a Docker bridge, a local proxy) and are
 * omitted with a warning.
 */
export function readClientAddress(request: CaptureRequest, trustProxy: boolean): ClientAddress {
	const candidates: string[] = [];
	if (trustProxy) {
		const forwarded = readHeaderList(request.headers, 'x-forwarded-for')
			.map((entry) => normalizeIp(entry))
			.filter((ip): ip is string => ip !== null);
		const firstPublic = forwarded.find(isPublicIp);
		if (firstPublic !== undefined) return { ip: firstPublic };
		const realIp = normalizeIp(readHeader(request.headers, 'x-real-ip'));
		if (realIp !== null) candidates.push(realIp);
	}
	const peer = normalizeIp(request.remoteAddress);
	if (peer !== null) candidates.push(peer);
	const usable = candidates.find(isPublicIp);
	if (usable !== undefined) return { ip: usable };
	return candidates.length > 0
		? { warning: 'client.ip: private, loopback or link-local address omitted' }
		: {};
}

/** The request's User-Agent header, trimmed. */
export function readUserAgent(request: CaptureRequest): string | undefined {
	return readHeader(request.headers, 'user-agent');
}

/**
 * Whether an address can identify a visitor on the internet. Documentation ranges (192.0.2.0/24,
 * 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) count as public: examples and tests use them
 * as stand-ins for visitors.
 */
export function isPublicIp(ip: string): boolean {
	const version = isIP(ip);
	if (version === 4) return isPublicIpv4(ip);
	if (version === 6) return isPublicIpv6(ip.toLowerCase());
	return false;
}

function isPublicIpv4(ip: string): boolean {
	const [a, b] = ip.split('.').map(Number);
	if (a === 0 || a === 10 || a === 127) return false;
	if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
	if (a === 169 && b === 254) return false; // link-local
	if (a === 172 && b >= 16 && b <= 31) return false;
	if (a === 192 && b === 168) return false;
	if (a >= 224) return false; // multicast and reserved
	return true;
}

function isPublicIpv6(ip: string): boolean {
	if (ip === '::' || ip === '::1') return false;
	const firstGroup = parseInt(ip.split(':')[0] || '0', 16);
	if ((firstGroup & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
	if ((firstGroup & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
	if ((firstGroup & 0xff00) === 0xff00) return false; // multicast
	return true;
}
