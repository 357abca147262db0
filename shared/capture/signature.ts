import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

import type { CaptureRequest, CaptureSource, SignatureConfig, SignatureResult } from './types';
import { readHeader } from './values';

/**
 * Webhook signature schemes, verified over the raw body bytes before anything is parsed.
 *
 * Presets, as the providers document them:
 * - Typeform: `Typeform-Signature: sha256=<base64 HMAC-SHA256(secret, raw body)>`
 *   (typeform.com/developers/webhooks/secure-your-webhooks).
 * - Tally: `Tally-Signature: <base64 HMAC-SHA256(signing secret, raw body)>`
 *   (tally.so/help/webhooks; Tally's own example signs `JSON.stringify(payload)`, i.e. the
 *   compact JSON it sends).
 * - Calendly: `Calendly-Webhook-Signature: t=<unix s>,v1=<hex HMAC-SHA256(key, "<t>.<raw body>")>`,
 *   stale after 3 minutes (developer.calendly.com/api-docs/overview/webhooks/webhook-signatures).
 * - Cal.com: `X-Cal-Signature-256: <hex HMAC-SHA256(secret, raw body)>`, or the literal
 *   `no-secret-provided` when the webhook has no secret (cal.com/docs/core-features/webhooks and
 *   packages/features/webhooks/lib/sendPayload.ts).
 * - Meta Lead Ads (Graph API Webhooks): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret,
 *   raw body)>` (developers.facebook.com/docs/graph-api/webhooks/getting-started, "Event
 *   Notifications": validate the payload with the app secret).
 * - HubSpot: `X-HubSpot-Signature: <hex SHA-256(client secret + raw body)>` with
 *   `X-HubSpot-Signature-Version: v1` — the version HubSpot documents for webhooks API events
 *   (developers.hubspot.com/docs/api/webhooks/validating-requests, "v1 request signature"). Its
 *   v3 signature (X-HubSpot-Signature-v3) signs method + full request URI + body + timestamp;
 *   the trigger does not know the public URI HubSpot called (proxies rewrite it), so v3 is not
 *   verified (UNCONFIRMED whether every webhook delivery still carries v1).
 */

interface BodyScheme {
	type: 'body';
	/** As the provider spells it, for reasons. */
	header: string;
	encoding: 'hex' | 'base64';
	prefix: string;
}

interface CalendlyScheme {
	type: 'calendly';
	header: string;
	defaultToleranceSeconds: number;
}

/** A plain SHA-256 of secret + body (HubSpot v1), hex: not an HMAC. */
interface SecretHashScheme {
	type: 'secretHash';
	header: string;
}

type PresetScheme = BodyScheme | CalendlyScheme | SecretHashScheme;

export const PRESET_SCHEMES: Readonly<
	Record<'typeform' | 'tally' | 'calendly' | 'calcom' | 'metaLeadAds' | 'hubspot', PresetScheme>
> = {
	typeform: { type: 'body', header: 'Typeform-Signature', encoding: 'base64', prefix: 'sha256=' },
	tally: { type: 'body', header: 'Tally-Signature', encoding: 'base64', prefix: '' },
	calendly: {
		type: 'calendly',
		header: 'Calendly-Webhook-Signature',
		// Calendly's own verification example uses a 3-minute tolerance.
		defaultToleranceSeconds: 180,
	},
	calcom: { type: 'body', header: 'X-Cal-Signature-256', encoding: 'hex', prefix: '' },
	metaLeadAds: { type: 'body', header: 'X-Hub-Signature-256', encoding: 'hex', prefix: 'sha256=' },
	hubspot: { type: 'secretHash', header: 'X-HubSpot-Signature' },
};

/** What Cal.com sends in X-Cal-Signature-256 when its webhook has no secret. */
const CALCOM_UNSIGNED = 'no-secret-provided';

/**
 * Verifies the request's signature. Comparisons are constant-time over equal-length digests; a
 * length difference is decided before comparing (digest lengths are public, content is not).
 * Reasons never contain the secret or the expected digest.
 */
export function verifySignature(
	request: CaptureRequest,
	config: SignatureConfig,
	source: CaptureSource,
	now: number = Date.now(),
): SignatureResult {
	if (config.kind === 'none') return { ok: true };
	// Fail closed: a configured check without a secret must not let requests through.
	if (!config.secret) return fail('signature secret is not configured');
	if (config.kind === 'hmac') return verifyHmac(request, config, config.secret);
	if (!isPresetSource(source)) {
		return fail(`no signature preset for the ${source} source; use HMAC or none`);
	}
	const scheme = PRESET_SCHEMES[source];
	if (scheme.type === 'calendly') {
		return verifyCalendly(request, scheme, config.secret, toleranceOf(config, scheme), now);
	}
	if (scheme.type === 'secretHash') return verifySecretHash(request, scheme, config.secret);
	const received = readHeader(request.headers, scheme.header);
	if (received === undefined) return missingHeader(scheme.header);
	if (source === 'calcom' && received === CALCOM_UNSIGNED) {
		return fail(`${scheme.header} carries no signature (the Cal.com webhook has no secret set)`);
	}
	const expected = hmac('sha256', config.secret, request.rawBody);
	return matches(received, scheme.prefix, scheme.encoding, expected)
		? { ok: true }
		: fail('signature does not match');
}

function verifySecretHash(
	request: CaptureRequest,
	scheme: SecretHashScheme,
	secret: string,
): SignatureResult {
	const received = readHeader(request.headers, scheme.header);
	if (received === undefined) return missingHeader(scheme.header);
	const version = readHeader(request.headers, 'X-HubSpot-Signature-Version');
	if (version !== undefined && version.trim().toLowerCase() !== 'v1') {
		return fail(`unsupported X-HubSpot-Signature-Version ${JSON.stringify(version.slice(0, 8))} (v1 expected)`);
	}
	const expected = createHash('sha256')
		.update(Buffer.concat([Buffer.from(secret, 'utf8'), request.rawBody]))
		.digest();
	return matches(received, '', 'hex', expected) ? { ok: true } : fail('signature does not match');
}

function verifyHmac(
	request: CaptureRequest,
	config: SignatureConfig,
	secret: string,
): SignatureResult {
	const header = config.header?.trim();
	if (!header) return fail('HMAC signature header name is not configured');
	const received = readHeader(request.headers, header);
	if (received === undefined) return missingHeader(header);
	const expected = hmac(config.algorithm ?? 'sha256', secret, request.rawBody);
	return matches(received, config.prefix ?? '', config.encoding ?? 'hex', expected)
		? { ok: true }
		: fail('signature does not match');
}

function verifyCalendly(
	request: CaptureRequest,
	scheme: CalendlyScheme,
	secret: string,
	toleranceSeconds: number,
	now: number,
): SignatureResult {
	const received = readHeader(request.headers, scheme.header);
	if (received === undefined) return missingHeader(scheme.header);
	const parsed = parseTimestampedHeader(received);
	if (parsed === null) {
		return fail(`malformed ${scheme.header} header (expected t=<unix time>,v1=<hex>)`);
	}
	const signedContent = Buffer.concat([
		Buffer.from(`${parsed.timestamp}.`, 'utf8'),
		request.rawBody,
	]);
	const expected = hmac('sha256', secret, signedContent);
	// Every v1 is tried (and each compared in constant time), so a header carrying a signature
	// of a rotated key still verifies.
	const anyMatch = parsed.signatures
		.map((signature) => matches(signature, '', 'hex', expected))
		.includes(true);
	if (!anyMatch) return fail('signature does not match');
	// Checked after the signature, so a forged request reads "does not match" and only a genuine
	// but replayed delivery reads as stale.
	const age = Math.floor(now / 1000) - parsed.timestamp;
	if (age > toleranceSeconds) {
		return fail(`signature timestamp is ${age} s old (tolerance ${toleranceSeconds} s)`);
	}
	// Calendly's example checks only the past; a timestamp far in the future would let a captured
	// delivery be replayed for that long, so it is refused with the same tolerance.
	if (-age > toleranceSeconds) {
		return fail(`signature timestamp is ${-age} s in the future (tolerance ${toleranceSeconds} s)`);
	}
	return { ok: true };
}

/** `t=<digits>,v1=<sig>[,v1=<sig>…]`; unknown keys are ignored. */
function parseTimestampedHeader(
	header: string,
): { timestamp: number; signatures: string[] } | null {
	let timestamp: number | null = null;
	const signatures: string[] = [];
	for (const part of header.split(',')) {
		const separator = part.indexOf('=');
		if (separator === -1) continue;
		const key = part.slice(0, separator).trim();
		const value = part.slice(separator + 1).trim();
		if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
		if (key === 'v1' && value !== '') signatures.push(value);
	}
	return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

function toleranceOf(config: SignatureConfig, scheme: CalendlyScheme): number {
	const configured = config.toleranceSeconds;
	if (typeof configured === 'number' && Number.isFinite(configured) && configured >= 0) {
		return configured;
	}
	return scheme.defaultToleranceSeconds;
}

function hmac(algorithm: 'sha256' | 'sha1' | 'sha512', secret: string, content: Buffer): Buffer {
	return createHmac(algorithm, secret).update(content).digest();
}

/**
 * Whether `received` (prefix + encoded digest) carries `expected`. The digest is decoded and the
 * bytes compared, so hex case does not matter; anything that does not decode cleanly fails.
 */
function matches(
	received: string,
	prefix: string,
	encoding: 'hex' | 'base64',
	expected: Buffer,
): boolean {
	const trimmed = received.trim();
	if (prefix !== '' && trimmed.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) {
		return false;
	}
	const decoded = decodeDigest(trimmed.slice(prefix.length).trim(), encoding);
	if (decoded === null || decoded.length !== expected.length) return false;
	return timingSafeEqual(decoded, expected);
}

function decodeDigest(text: string, encoding: 'hex' | 'base64'): Buffer | null {
	if (encoding === 'hex') {
		return /^(?:[0-9a-fA-F]{2})+$/.test(text) ? Buffer.from(text, 'hex') : null;
	}
	// Standard and URL-safe alphabets, padding optional.
	return /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : null;
}

function isPresetSource(source: CaptureSource): source is keyof typeof PRESET_SCHEMES {
	return Object.prototype.hasOwnProperty.call(PRESET_SCHEMES, source);
}

function fail(reason: string): SignatureResult {
	return { ok: false, reason };
}

/** The one wording of a delivery without its signature header ("missing Typeform-Signature header"). */
function missingHeader(header: string): SignatureResult {
	return fail(`missing ${header} header`);
}
