import { processCapture, verifySignature, type SignatureConfig } from '../../../shared/capture';
import { config, fixtureBytes, hmac, NOW, NOW_SECONDS, request, SECRET, sign } from './helpers';

type Preset = keyof typeof sign;

const PRESETS: ReadonlyArray<[Preset, string, string]> = [
	['typeform', 'typeform-form-response.json', 'Typeform-Signature'],
	['tally', 'tally-form-response.json', 'Tally-Signature'],
	['calendly', 'calendly-invitee-created.json', 'Calendly-Webhook-Signature'],
	['calcom', 'calcom-booking-created.json', 'X-Cal-Signature-256'],
];

const preset: SignatureConfig = { kind: 'preset', secret: SECRET };

/** The fixture with one character of a value changed, same length (a tampered delivery). */
function tampered(body: Buffer): Buffer {
	return Buffer.from(body.toString('utf8').replace('a', 'b'), 'utf8');
}

describe.each(PRESETS)('%s preset signature', (source, fixture, header) => {
	const body = fixtureBytes(fixture);
	const signed = sign[source](body);

	it('accepts a delivery signed with the secret over the raw body', () => {
		expect(verifySignature(request(body, signed), preset, source, NOW)).toEqual({ ok: true });
		expect(
			processCapture(request(body, signed), config(source, { signature: preset }), NOW).kind,
		).toBe('accepted');
	});

	it.each<[string, () => Record<string, string>, Buffer, string]>([
		['a tampered body', () => signed, tampered(body), 'signature does not match'],
		[
			'a wrong secret',
			() => sign[source](body, 'whsec_someone_else'),
			body,
			'signature does not match',
		],
		['no signature header', () => ({}), body, `missing ${header} header`],
	])('refuses %s with 401', (_case, headers, sentBody, reason) => {
		const outcome = processCapture(
			request(sentBody, headers()),
			config(source, { signature: preset }),
			NOW,
		);
		expect(outcome).toEqual({ kind: 'rejected', status: 401, reason });
	});

	it('fails closed when no secret is configured', () => {
		const outcome = verifySignature(request(body, signed), { kind: 'preset' }, source, NOW);
		expect(outcome).toEqual({ ok: false, reason: 'signature secret is not configured' });
	});

	it('never puts the secret or the expected digest in a reason', () => {
		const outcome = verifySignature(request(tampered(body), signed), preset, source, NOW);
		const reason = outcome.ok ? '' : outcome.reason;
		expect(reason).not.toContain(SECRET);
		expect(reason).not.toContain(hmac(body).slice(0, 16));
	});
});

describe('Calendly timestamp', () => {
	const body = fixtureBytes('calendly-invitee-created.json');
	const signedAt = (t: number) => request(body, sign.calendly(body, SECRET, t));

	it.each<[string, number, SignatureConfig, { ok: true } | { ok: false; reason: string }]>([
		['5 s old', NOW_SECONDS - 5, preset, { ok: true }],
		['exactly at the 180 s default tolerance', NOW_SECONDS - 180, preset, { ok: true }],
		[
			'181 s old (stale)',
			NOW_SECONDS - 181,
			preset,
			{ ok: false, reason: 'signature timestamp is 181 s old (tolerance 180 s)' },
		],
		[
			'an hour old (replayed)',
			NOW_SECONDS - 3600,
			preset,
			{ ok: false, reason: 'signature timestamp is 3600 s old (tolerance 180 s)' },
		],
		[
			'10 minutes in the future (skewed)',
			NOW_SECONDS + 600,
			preset,
			{ ok: false, reason: 'signature timestamp is 600 s in the future (tolerance 180 s)' },
		],
		['60 s in the future (clock drift)', NOW_SECONDS + 60, preset, { ok: true }],
		[
			'250 s old with a configured 300 s tolerance',
			NOW_SECONDS - 250,
			{ ...preset, toleranceSeconds: 300 },
			{ ok: true },
		],
	])('%s', (_case, t, signature, expected) => {
		expect(verifySignature(signedAt(t), signature, 'calendly', NOW)).toEqual(expected);
	});

	it('answers a stale delivery with 401 and the age', () => {
		const outcome = processCapture(
			signedAt(NOW_SECONDS - 600),
			config('calendly', { signature: preset }),
			NOW,
		);
		expect(outcome).toEqual({
			kind: 'rejected',
			status: 401,
			reason: 'signature timestamp is 600 s old (tolerance 180 s)',
		});
	});

	it('checks the signature before the age: a forged old delivery does not match', () => {
		const forged = request(body, sign.calendly(body, 'whsec_forger', NOW_SECONDS - 3600));
		expect(verifySignature(forged, preset, 'calendly', NOW)).toEqual({
			ok: false,
			reason: 'signature does not match',
		});
	});

	it('signs the timestamp too: moving t invalidates the signature', () => {
		const original = sign.calendly(body, SECRET, NOW_SECONDS - 3600)['calendly-webhook-signature'];
		const moved = original.replace(/^t=\d+/, `t=${NOW_SECONDS}`);
		const outcome = verifySignature(
			request(body, { 'calendly-webhook-signature': moved }),
			preset,
			'calendly',
			NOW,
		);
		expect(outcome).toEqual({ ok: false, reason: 'signature does not match' });
	});

	it('accepts any of several v1 signatures (key rotation)', () => {
		const good = sign.calendly(body)['calendly-webhook-signature'];
		const header = good.replace(',v1=', `,v1=${'0'.repeat(64)},v1=`);
		expect(
			verifySignature(
				request(body, { 'calendly-webhook-signature': header }),
				preset,
				'calendly',
				NOW,
			),
		).toEqual({
			ok: true,
		});
	});

	it.each(['v1=abc', 't=abc,v1=abcd', `t=${NOW_SECONDS}`, 'garbage'])(
		'refuses the malformed header %j',
		(header) => {
			expect(
				verifySignature(
					request(body, { 'calendly-webhook-signature': header }),
					preset,
					'calendly',
					NOW,
				),
			).toEqual({
				ok: false,
				reason: 'malformed Calendly-Webhook-Signature header (expected t=<unix time>,v1=<hex>)',
			});
		},
	);
});

describe('Cal.com without a secret on its side', () => {
	it('explains the no-secret-provided placeholder', () => {
		const body = fixtureBytes('calcom-booking-created.json');
		const outcome = verifySignature(
			request(body, { 'x-cal-signature-256': 'no-secret-provided' }),
			preset,
			'calcom',
			NOW,
		);
		expect(outcome).toEqual({
			ok: false,
			reason: 'X-Cal-Signature-256 carries no signature (the Cal.com webhook has no secret set)',
		});
	});

	it('compares hex case-insensitively (the digest bytes are compared)', () => {
		const body = fixtureBytes('calcom-booking-created.json');
		const upper = { 'x-cal-signature-256': hmac(body).toUpperCase() };
		expect(verifySignature(request(body, upper), preset, 'calcom', NOW)).toEqual({ ok: true });
	});
});

describe('Typeform prefix', () => {
	it('requires the sha256= prefix', () => {
		const body = fixtureBytes('typeform-form-response.json');
		const bare = { 'typeform-signature': hmac(body, SECRET, 'sha256', 'base64') };
		expect(verifySignature(request(body, bare), preset, 'typeform', NOW)).toEqual({
			ok: false,
			reason: 'signature does not match',
		});
	});
});

describe('generic HMAC', () => {
	const body = Buffer.from(JSON.stringify({ id: 'sub_1', email: 'lead@example.com' }), 'utf8');
	const algorithms = ['sha1', 'sha256', 'sha512'] as const;
	const encodings = ['hex', 'base64'] as const;
	const cases = algorithms.flatMap((algorithm) =>
		encodings.flatMap((encoding) => [
			[algorithm, encoding, ''] as const,
			[algorithm, encoding, `${algorithm}=`] as const,
		]),
	);

	it.each(cases)(
		'%s / %s / prefix %j: valid, tampered, wrong secret, missing',
		(algorithm, encoding, prefix) => {
			const signature: SignatureConfig = {
				kind: 'hmac',
				secret: SECRET,
				header: 'X-Hub-Signature',
				algorithm,
				encoding,
				prefix: prefix || undefined,
			};
			const valid = { 'x-hub-signature': `${prefix}${hmac(body, SECRET, algorithm, encoding)}` };
			const wrongSecret = {
				'x-hub-signature': `${prefix}${hmac(body, 'nope', algorithm, encoding)}`,
			};
			expect(verifySignature(request(body, valid), signature, 'generic', NOW)).toEqual({
				ok: true,
			});
			expect(
				verifySignature(
					request(Buffer.concat([body, Buffer.from(' ')]), valid),
					signature,
					'generic',
					NOW,
				),
			).toEqual({
				ok: false,
				reason: 'signature does not match',
			});
			expect(verifySignature(request(body, wrongSecret), signature, 'generic', NOW)).toEqual({
				ok: false,
				reason: 'signature does not match',
			});
			expect(verifySignature(request(body), signature, 'generic', NOW)).toEqual({
				ok: false,
				reason: 'missing X-Hub-Signature header',
			});
		},
	);

	it.each<[string, string]>([
		['a digest of another length', 'abcd'],
		['text that is not hex', 'z'.repeat(64)],
		['the prefix missing', hmac(body)],
		['an empty digest after the prefix', 'sha256='],
	])('refuses %s without throwing', (_case, header) => {
		const signature: SignatureConfig = {
			kind: 'hmac',
			secret: SECRET,
			header: 'x-sig',
			prefix: 'sha256=',
		};
		expect(verifySignature(request(body, { 'x-sig': header }), signature, 'generic', NOW)).toEqual({
			ok: false,
			reason: 'signature does not match',
		});
	});

	it('defaults to sha256 / hex and takes the prefix case-insensitively', () => {
		const signature: SignatureConfig = {
			kind: 'hmac',
			secret: SECRET,
			header: 'x-sig',
			prefix: 'sha256=',
		};
		const headers = { 'x-sig': `SHA256=${hmac(body)}` };
		expect(verifySignature(request(body, headers), signature, 'generic', NOW)).toEqual({
			ok: true,
		});
	});

	it.each<[string, SignatureConfig, string]>([
		[
			'no header name',
			{ kind: 'hmac', secret: SECRET },
			'HMAC signature header name is not configured',
		],
		['no secret', { kind: 'hmac', header: 'x-sig' }, 'signature secret is not configured'],
		[
			'a preset for the generic source',
			{ kind: 'preset', secret: SECRET },
			'no signature preset for the generic source; use HMAC or none',
		],
	])('refuses a configuration with %s', (_case, signature, reason) => {
		expect(verifySignature(request(body), signature, 'generic', NOW)).toEqual({
			ok: false,
			reason,
		});
	});

	it('lets everything through with kind none', () => {
		expect(verifySignature(request(body), { kind: 'none' }, 'generic', NOW)).toEqual({ ok: true });
	});
});
