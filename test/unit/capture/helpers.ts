import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { CaptureConfig, CaptureRequest, CaptureSource } from '../../../shared/capture';

/** The receipt time every capture test runs at: 2026-03-02T10:00:00Z. */
export const NOW = Date.parse('2026-03-02T10:00:00Z');
export const NOW_SECONDS = NOW / 1000;
export const SECRET = 'whsec_test_5f1c2b7e9a';

/** A fixture's exact bytes: signatures are computed over these, as a provider would. */
export function fixtureBytes(name: string): Buffer {
	return readFileSync(join(__dirname, '../../fixtures/capture', name));
}

export function fixtureJson(name: string): Record<string, unknown> {
	return JSON.parse(fixtureBytes(name).toString('utf8')) as Record<string, unknown>;
}

export function request(
	body: Buffer | string | object,
	headers: Record<string, string | string[] | undefined> = {},
	remoteAddress: string | undefined = '198.51.100.23',
): CaptureRequest {
	const rawBody = Buffer.isBuffer(body)
		? body
		: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
	return {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		rawBody,
		query: {},
		remoteAddress,
	};
}

export function config(
	source: CaptureSource,
	overrides: Partial<CaptureConfig> = {},
): CaptureConfig {
	return { source, signature: { kind: 'none' }, state: { from: 'preset' }, ...overrides };
}

export function hmac(
	content: Buffer | string,
	secret = SECRET,
	algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha256',
	encoding: 'hex' | 'base64' = 'hex',
): string {
	return createHmac(algorithm, secret).update(content).digest(encoding);
}

/** The headers each provider sends, signed over `body` with `secret` (Calendly at time `t`). */
export const sign = {
	typeform: (body: Buffer, secret = SECRET) => ({
		'typeform-signature': `sha256=${hmac(body, secret, 'sha256', 'base64')}`,
	}),
	tally: (body: Buffer, secret = SECRET) => ({
		'tally-signature': hmac(body, secret, 'sha256', 'base64'),
	}),
	calendly: (body: Buffer, secret = SECRET, t = NOW_SECONDS - 5) => ({
		'calendly-webhook-signature': `t=${t},v1=${hmac(Buffer.concat([Buffer.from(`${t}.`), body]), secret)}`,
	}),
	calcom: (body: Buffer, secret = SECRET) => ({ 'x-cal-signature-256': hmac(body, secret) }),
	metaLeadAds: (body: Buffer, secret = SECRET) => ({
		'x-hub-signature-256': `sha256=${hmac(body, secret)}`,
	}),
	hubspot: (body: Buffer, secret = SECRET) => ({
		'x-hubspot-signature': createHash('sha256')
			.update(Buffer.concat([Buffer.from(secret), body]))
			.digest('hex'),
		'x-hubspot-signature-version': 'v1',
	}),
};
