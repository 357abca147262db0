import fc from 'fast-check';
import {
	CAPTURE_SOURCES,
	parseFormBody,
	processCapture,
	verifySignature,
	type CaptureConfig,
	type CaptureOutcome,
	type CaptureSource,
	type SignatureConfig,
} from '../../shared/capture';
import { redactForLog } from '../../shared/captureLog';
import { LEAD_STATES } from '../../shared/types';
import {
	checkProperty,
	hostileString,
	must,
	mustNotEchoEmailOrPhone,
	rawTexts,
} from '../support/hostile';
import { bodyFor, formBody } from '../support/hostileBodies';
import { config, hmac, NOW, NOW_SECONDS, request, SECRET, sign } from '../unit/capture/helpers';

/**
 * The Lead Capture Trigger's core (shared/capture) on hostile deliveries: bodies that are not
 * UTF-8, not JSON, not objects, huge, form-encoded with hostile keys, or shaped like each
 * source's real deliveries with hostile values anywhere; every content type; signatures right,
 * wrong, tampered and replayed. Nothing throws; every answer is accepted, ignored (200) or a
 * 4xx with a one-line reason that never holds the secret; an accepted record has a record id, a
 * known state, no "" anywhere and no prototype keys; its capture-log form has no raw email,
 * phone or name; and nothing reaches Object.prototype.
 */

const CONTENT_TYPES = fc.oneof(
	{ weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
	fc.constantFrom(
		'application/json',
		'application/json; charset=utf-8',
		'APPLICATION/JSON',
		'text/plain',
		'text/plain;charset=UTF-8',
		'application/x-www-form-urlencoded',
		'application/vnd.api+json',
		'multipart/form-data; boundary=x',
		'application/xml',
		'',
		undefined,
	),
	hostileString,
);

const SIGNATURE_HEADERS = [
	'typeform-signature',
	'tally-signature',
	'calendly-webhook-signature',
	'x-cal-signature-256',
	'x-signature',
];
const HMAC: SignatureConfig = {
	kind: 'hmac',
	secret: SECRET,
	header: 'X-Signature',
	algorithm: 'sha256',
	encoding: 'hex',
	prefix: 'sha256=',
};

/** What signs a body for a config: the provider's own header, a wrong one, or none. */
function headersFor(
	source: CaptureSource,
	signature: SignatureConfig,
	body: Buffer,
	how: 'right' | 'wrong' | 'none' | 'stale',
): Record<string, string> {
	if (how === 'none' || signature.kind === 'none') return {};
	if (signature.kind === 'hmac') {
		return { 'x-signature': how === 'wrong' ? 'sha256=00' : `sha256=${hmac(body)}` };
	}
	if (source === 'script' || source === 'generic') return {};
	const secret = how === 'wrong' ? 'whsec_someone_else' : SECRET;
	if (source === 'calendly')
		return sign.calendly(body, secret, how === 'stale' ? NOW_SECONDS - 181 : NOW_SECONDS - 5);
	return sign[source](body, secret);
}

function signatureOf(source: CaptureSource): SignatureConfig {
	if (source === 'generic') return HMAC;
	return source === 'script' ? { kind: 'none' } : { kind: 'preset', secret: SECRET };
}

const captureCase = fc.constantFrom(...CAPTURE_SOURCES).chain((source) =>
	fc.record({
		source: fc.constant(source),
		body: bodyFor(source),
		contentType: CONTENT_TYPES,
		// As the node configures each source (preset schemes for the form tools, HMAC for the
		// generic webhook), and now and then misconfigured (no secret, a scheme the source lacks).
		signature: fc.oneof(
			{ weight: 6, arbitrary: fc.constant(signatureOf(source)) },
			{ weight: 3, arbitrary: fc.constant<SignatureConfig>({ kind: 'none' }) },
			{
				weight: 1,
				arbitrary: fc.constantFrom<SignatureConfig>({ kind: 'preset', secret: SECRET }, HMAC, {
					kind: 'preset',
				}),
			},
		),
		signing: fc.constantFrom<'right' | 'wrong' | 'none' | 'stale'>(
			'right',
			'right',
			'right',
			'wrong',
			'none',
			'stale',
		),
		extraHeaders: fc.dictionary(
			fc.oneof(
				fc.constantFrom(
					...SIGNATURE_HEADERS,
					'x-forwarded-for',
					'x-real-ip',
					'user-agent',
					'origin',
					'content-length',
				),
				fc.string({ maxLength: 10 }).map((s) => s.toLowerCase()),
			),
			fc.oneof(hostileString, fc.array(hostileString, { maxLength: 3 })),
			{ maxKeys: 4 },
		),
		state: fc.oneof(
			fc.constant<CaptureConfig['state']>({ from: 'preset' }),
			fc
				.constantFrom(...LEAD_STATES)
				.map((value): CaptureConfig['state'] => ({ from: 'fixed', value })),
			hostileString.map((field): CaptureConfig['state'] => ({ from: 'field', field })),
		),
		mapping: fc.option(
			fc.dictionary(
				fc.constantFrom(
					'contact.email',
					'contact.phone',
					'record_id',
					'click.gclid',
					'attributes.x',
					'__proto__',
					'contact.__proto__',
				),
				hostileString,
				{ maxKeys: 3 },
			),
			{ nil: undefined },
		),
		recordIdField: fc.option(
			fc.oneof(hostileString, fc.constantFrom('id', 'data.0.id', '__proto__')),
			{ nil: undefined },
		),
		deriveRecordId: fc.boolean(),
		formId: fc.option(hostileString, { nil: undefined }),
		trustProxy: fc.boolean(),
		// Mostly the default limit; sometimes one of the node's own (any number, also nonsense).
		maxBodyBytes: fc.oneof(
			{ weight: 12, arbitrary: fc.constant(undefined) },
			{ weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constant(1024)) },
		),
		defaultCountry: fc.option(fc.constantFrom('US', 'de', 'XX', ''), { nil: undefined }),
		remoteAddress: fc.option(
			fc.oneof(hostileString, fc.constantFrom('203.0.113.9', '::ffff:10.0.0.1', '::1')),
			{ nil: undefined },
		),
	}),
);

const STATUSES = new Set([400, 401, 413, 415, 422]);
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const objectPrototypeNames = Object.getOwnPropertyNames(Object.prototype).sort().join();

/** Every string and every key in a value, with its path. */
function walk(
	value: unknown,
	visit: (path: string, key: string | null, leaf: unknown) => void,
	path = '',
	depth = 0,
): void {
	if (depth > 12) return;
	if (value !== null && typeof value === 'object') {
		for (const key of Object.keys(value)) {
			visit(`${path}.${key}`, key, undefined);
			walk((value as Record<string, unknown>)[key], visit, `${path}.${key}`, depth + 1);
		}
		return;
	}
	visit(path, null, value);
}

function mustBeWellFormed(outcome: CaptureOutcome, body: Buffer): void {
	if (outcome.kind === 'rejected') {
		must(STATUSES.has(outcome.status), () => `status ${outcome.status}`);
		must(
			typeof outcome.reason === 'string' && outcome.reason !== '' && !/[\r\n]/.test(outcome.reason),
			() => `reason ${JSON.stringify(outcome.reason)}`,
		);
		must(!outcome.reason.includes(SECRET), () => 'the secret in a reason');
		return;
	}
	if (outcome.kind === 'ignored') {
		must(
			outcome.status === 200 && !/[\r\n]/.test(outcome.reason),
			() => `ignored: ${outcome.reason}`,
		);
		return;
	}
	must(outcome.kind === 'accepted', () => `kind ${(outcome as { kind: string }).kind}`);
	const { record, warnings } = outcome;
	must(
		typeof record.record_id === 'string' && record.record_id.trim() !== '',
		() => `record_id ${String(record.record_id)}`,
	);
	must(
		(LEAD_STATES as readonly unknown[]).includes(record.state),
		() => `state ${String(record.state)}`,
	);
	must(
		typeof record.occurred_at === 'string' && !Number.isNaN(Date.parse(record.occurred_at)),
		() => `occurred_at ${String(record.occurred_at)}`,
	);
	walk(record, (path, key, leaf) => {
		must(key === null || !PROTOTYPE_KEYS.has(key), () => `prototype key at ${path}`);
		must(leaf !== '', () => `"" at ${path}`);
		must(typeof leaf !== 'string' || leaf === leaf.trim(), () => `untrimmed ${path}`);
	});
	JSON.stringify(record);
	const bodyTexts = rawTexts(safeJson(body));
	mustNotEchoEmailOrPhone(warnings, bodyTexts);

	// What the capture log keeps (the Redis stream behind the rule preview): no raw email or
	// phone anywhere in it, no name as a value (unless the same text is also a city, a form id…).
	const contact = (record.contact ?? {}) as Record<string, unknown>;
	const elsewhere = new Set(
		rawTexts({
			...record,
			contact: { ...contact, email: 0, phone: 0, first_name: 0, last_name: 0 },
		}),
	);
	const leaves: string[] = [];
	walk(redactForLog(record), (_path, key, leaf) => {
		if (typeof leaf === 'string') leaves.push(leaf);
		if (key !== null) leaves.push(key);
	});
	for (const key of ['email', 'phone', 'first_name', 'last_name']) {
		for (const text of rawTexts(contact[key])) {
			const value = text.trim();
			if (value === '' || elsewhere.has(value)) continue;
			const identifying = value.includes('@') || (value.match(/\d/g)?.length ?? 0) >= 7;
			const leak = identifying
				? leaves.some((leaf) => leaf.includes(value))
				: leaves.includes(value);
			must(!leak, () => `the capture log keeps contact.${key} ${JSON.stringify(value)}`);
		}
	}
}

function safeJson(body: Buffer): unknown {
	try {
		return JSON.parse(body.toString('utf8'));
	} catch {
		return body.toString('utf8');
	}
}

describe('capture: 10,000 hostile deliveries', () => {
	it('every source: nothing throws, answers are accepted, ignored or 4xx with a one-line reason, records are clean', () => {
		const counts: Record<string, number> = {};
		checkProperty(
			fc.property(captureCase, (c) => {
				const headers = {
					...c.extraHeaders,
					...(c.contentType === undefined ? {} : { 'content-type': c.contentType }),
					...headersFor(c.source, c.signature, c.body, c.signing),
				};
				const req = { ...request(c.body, {}, c.remoteAddress), headers };
				const outcome = processCapture(
					req,
					config(c.source, {
						signature: c.signature,
						state: c.state,
						mapping: c.mapping,
						recordIdField: c.recordIdField,
						deriveRecordId: c.deriveRecordId,
						formId: c.formId,
						trustProxy: c.trustProxy,
						maxBodyBytes: c.maxBodyBytes,
						defaultCountry: c.defaultCountry,
					}),
					NOW,
				);
				const key = outcome.kind === 'rejected' ? String(outcome.status) : outcome.kind;
				counts[key] = (counts[key] ?? 0) + 1;
				mustBeWellFormed(outcome, c.body);
				must(
					Object.getOwnPropertyNames(Object.prototype).sort().join() === objectPrototypeNames,
					() => 'Object.prototype changed',
				);
				must(
					({} as Record<string, unknown>).polluted === undefined,
					() => 'Object.prototype polluted',
				);
			}),
		);
		// The generators reach every kind of answer (a generator that only made 400s would prove little).
		expect(Object.keys(counts).sort()).toEqual([
			'400',
			'401',
			'413',
			'415',
			'422',
			'accepted',
			'ignored',
		]);
		expect(counts.accepted).toBeGreaterThan(500);
	});

	it('form bodies: any keys and values parse to plain objects, strings and lists, never touching a prototype', () => {
		checkProperty(
			fc.property(formBody, (text) => {
				const parsed = parseFormBody(text);
				walk(parsed, (path, key, leaf) => {
					must(key === null || !PROTOTYPE_KEYS.has(key), () => `prototype key at ${path}`);
					must(leaf === undefined || typeof leaf === 'string', () => `${typeof leaf} at ${path}`);
				});
				must(
					Object.getPrototypeOf(parsed) === Object.prototype,
					() => 'the result is not a plain object',
				);
				must(
					({} as Record<string, unknown>).polluted === undefined,
					() => 'Object.prototype polluted',
				);
			}),
		);
	});
});

describe('signatures: 10,000 bodies and secrets each', () => {
	const PRESETS = ['typeform', 'tally', 'calcom', 'calendly'] as const;
	const bodies = fc.oneof(
		fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b)),
		hostileString.map((s) => Buffer.from(s || '{}')),
	);
	// At least 8 characters and no spaces, so "the reason holds the secret" cannot happen by chance.
	const secrets = fc.string({
		minLength: 8,
		maxLength: 40,
		unit: fc.constantFrom(...'abcdefXYZ0189_-+/=!é😀'.split(/(?:)/u)),
	});

	it('a delivery signed with the secret verifies; one changed byte, another secret or a forged header does not', () => {
		checkProperty(
			fc.property(
				fc.constantFrom(...PRESETS),
				bodies,
				secrets,
				fc.nat(),
				fc.integer({ min: 1, max: 255 }),
				hostileString,
				(source, body, secret, at, flip, forged) => {
					const preset: SignatureConfig = { kind: 'preset', secret };
					const signed = sign[source](body, secret);
					must(
						verifySignature(request(body, signed), preset, source, NOW).ok,
						() => 'a right signature failed',
					);
					const tampered = Buffer.from(body);
					tampered[at % tampered.length] ^= flip;
					must(
						!verifySignature(request(tampered, signed), preset, source, NOW).ok,
						() => 'a tampered body verified',
					);
					must(
						!verifySignature(request(body, sign[source](body, `${secret}x`)), preset, source, NOW)
							.ok,
						() => 'another secret verified',
					);
					const [header] = Object.keys(signed);
					for (const value of [forged, [forged, signed[header as keyof typeof signed]]]) {
						const result = verifySignature(
							request(body, { [header]: value as string }),
							preset,
							source,
							NOW,
						);
						must(
							!result.ok && !result.reason.includes(secret),
							() => 'a forged header verified or the reason held the secret',
						);
					}
				},
			),
		);
	});

	it('generic HMAC, every algorithm, encoding and prefix: the same', () => {
		const hmacConfig = fc.record({
			algorithm: fc.constantFrom<'sha1' | 'sha256' | 'sha512'>('sha1', 'sha256', 'sha512'),
			encoding: fc.constantFrom<'hex' | 'base64'>('hex', 'base64'),
			prefix: fc.constantFrom('', 'sha256=', 'v1='),
			header: fc.constantFrom('X-Signature', 'X-Hub-Signature-256', 'x-webhook-signature'),
		});
		checkProperty(
			fc.property(
				hmacConfig,
				bodies,
				secrets,
				fc.nat(),
				fc.integer({ min: 1, max: 255 }),
				hostileString,
				(h, body, secret, at, flip, forged) => {
					const signature: SignatureConfig = { kind: 'hmac', secret, ...h };
					const header = h.header.toLowerCase();
					const right = `${h.prefix}${hmac(body, secret, h.algorithm, h.encoding)}`;
					must(
						verifySignature(request(body, { [header]: right }), signature, 'generic', NOW).ok,
						() => 'a right signature failed',
					);
					must(
						verifySignature(
							request(body, { [header]: right.toUpperCase() }),
							signature,
							'generic',
							NOW,
						).ok ===
							(h.encoding === 'hex'),
						() => 'hex case',
					);
					const tampered = Buffer.from(body);
					tampered[at % tampered.length] ^= flip;
					must(
						!verifySignature(request(tampered, { [header]: right }), signature, 'generic', NOW).ok,
						() => 'a tampered body verified',
					);
					const wrong = `${h.prefix}${hmac(body, `${secret}x`, h.algorithm, h.encoding)}`;
					must(
						!verifySignature(request(body, { [header]: wrong }), signature, 'generic', NOW).ok,
						() => 'another secret verified',
					);
					const result = verifySignature(
						request(body, { [header]: forged }),
						signature,
						'generic',
						NOW,
					);
					must(
						!result.ok && !result.reason.includes(secret),
						() => 'a forged header verified or the reason held the secret',
					);
				},
			),
		);
	});

	it('Calendly: a genuine delivery verifies within the tolerance only; replays older or newer are refused', () => {
		checkProperty(
			fc.property(
				bodies,
				fc.integer({ min: -100_000, max: 100_000 }),
				fc.option(fc.nat(600), { nil: undefined }),
				(body, age, tolerance) => {
					const limit = tolerance ?? 180;
					const signed = sign.calendly(body, SECRET, NOW_SECONDS - age);
					const result = verifySignature(
						request(body, signed),
						{ kind: 'preset', secret: SECRET, toleranceSeconds: tolerance },
						'calendly',
						NOW,
					);
					if (Math.abs(age) <= limit)
						must(result.ok, () => `age ${age} s refused with tolerance ${limit}`);
					else
						must(
							!result.ok && /timestamp is \d+ s (old|in the future)/.test(result.reason),
							() => `age ${age} s: ${JSON.stringify(result)}`,
						);
				},
			),
		);
	});
});
