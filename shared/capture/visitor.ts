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

/** How the node reads proxy headers: off, or on behind `trustedProxies` proxies (default 1). */
export interface ProxyTrust {
	trustProxy: boolean;
	trustedProxies?: number;
}

const PRIVATE_OMITTED = 'client.ip: private, loopback or link-local address omitted';

/**
 * The visitor's address from the request. Proxy headers are client-controlled, so they are read
 * only when the node is told trusted proxies set them. Each proxy appends the address it was
 * reached from to X-Forwarded-For, so only the right-most entries were written by proxies: with
 * `trustedProxies` = n, the TCP peer is the n-th proxy and the client is the n-th entry from the
 * right (everything left of it could have been typed by the visitor), as Express's numeric
 * `trust proxy` setting reads it. Without X-Forwarded-For, X-Real-IP (set by the proxy), else the
 * TCP peer. Private, loopback and link-local addresses identify no visitor (a Docker bridge, a
 * local proxy) and are omitted with a warning.
 */
export function readClientAddress(request: CaptureRequest, trust: ProxyTrust): ClientAddress {
	const candidates: string[] = [];
	if (trust.trustProxy) {
		const forwarded = readHeaderList(request.headers, 'x-forwarded-for').filter(Boolean);
		if (forwarded.length > 0) return forwardedClient(forwarded, trustedHops(trust.trustedProxies));
		const realIp = normalizeIp(readHeader(request.headers, 'x-real-ip'));
		if (realIp !== null) candidates.push(realIp);
	}
	const peer = normalizeIp(request.remoteAddress);
	if (peer !== null) candidates.push(peer);
	const usable = candidates.find(isPublicIp);
	if (usable !== undefined) return { ip: usable };
	return candidates.length > 0 ? { warning: PRIVATE_OMITTED } : {};
}

/** A whole number of trusted proxies, at least 1 (the one the TCP connection comes from). */
function trustedHops(value: number | undefined): number {
	const hops = Math.floor(Number(value ?? 1));
	return Number.isFinite(hops) && hops >= 1 ? hops : 1;
}

/**
 * The client in an X-Forwarded-For chain behind `hops` trusted proxies: the entry `hops` places
 * from the right (the peer being the last proxy), or the left-most when the chain is shorter.
 * Never an entry further left: those are what the visitor wrote.
 */
function forwardedClient(forwarded: string[], hops: number): ClientAddress {
	const entry = forwarded[Math.max(0, forwarded.length - hops)];
	const ip = normalizeIp(entry);
	if (ip === null)
		return { warning: 'client.ip: the X-Forwarded-For entry of the client is not an IP address' };
	return isPublicIp(ip) ? { ip } : { warning: PRIVATE_OMITTED };
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
