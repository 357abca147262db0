import fc from 'fast-check';
import type { CaptureSource } from '../../shared/capture';
import { fixtureJson } from '../unit/capture/helpers';
import { hostileString } from './hostile';

/**
 * Hostile webhook bodies for the capture core's property tests (test/property/capture.test.ts)
 * and the trigger's fuzzing in real n8n (test/e2e/hostile.e2e.test.ts): each source's real
 * deliveries with hostile values put in, bad JSON, JSON that is not an object, bad UTF-8, form
 * bodies with hostile keys, 256 KiB+ bodies and 100,000-deep nesting.
 */

/** The real deliveries of each source (test/fixtures/capture). */
export const CAPTURE_FIXTURES: Record<CaptureSource, string[]> = {
	generic: [],
	typeform: ['typeform-form-response.json'],
	tally: ['tally-form-response.json'],
	calendly: ['calendly-invitee-created.json', 'calendly-invitee-canceled.json'],
	calcom: ['calcom-booking-created.json'],
	metaLeadAds: ['meta-leadgen.json'],
	hubspot: ['hubspot-deal-stage.json'],
	script: ['script-submit.json', 'script-partial.json'],
};

/** Keys that detection, prototype handling and attributes must all cope with. */
const KEYS = fc.oneof(
	{ weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
	{
		weight: 4,
		arbitrary: fc.constantFrom(
			'email',
			'E-Mail',
			'phone',
			'tel',
			'first_name',
			'last_name',
			'name',
			'full name',
			'city',
			'state',
			'region',
			'zip',
			'country',
			'gender',
			'dob',
			'id',
			'record_id',
			'submission_id',
			'fbclid',
			'gclid',
			'fbc',
			'ip',
			'user_agent',
			'utm_source',
			'utm',
			'page_url',
			'created_at',
			'amount',
			'currency',
			'consent',
			'ad_user_data',
			'password',
			'card_number',
			'__proto__',
			'constructor',
			'prototype',
			'hasOwnProperty',
			'toString',
			'valueOf',
			'',
			' ',
			'a.b',
			'0',
		),
	},
);
const leaf: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 8, arbitrary: hostileString },
	{ weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
	{ weight: 1, arbitrary: fc.constantFrom(16505551212, 1772441400000, 0, -1, 1e21, 2 ** 53 + 1) },
	{ weight: 1, arbitrary: fc.boolean() },
	{ weight: 1, arbitrary: fc.constant(null) },
);
const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small', maxDepth: 4 },
		leaf,
		fc.array(tie('value'), { maxLength: 4 }),
		fc.dictionary(KEYS, tie('value'), { maxKeys: 5 }),
	),
})).value;

/** A fixture with hostile values put at random paths (and keys added), as JSON text. */
function mutated(fixture: unknown): fc.Arbitrary<string> {
	return fc
		.array(fc.tuple(fc.array(fc.nat(20), { minLength: 1, maxLength: 4 }), KEYS, jsonValue), {
			maxLength: 6,
		})
		.map((edits) => {
			const body = structuredClone(fixture) as Record<string, unknown>;
			for (const [steps, key, value] of edits) {
				let node: unknown = body;
				for (const step of steps.slice(0, -1)) {
					const children = node !== null && typeof node === 'object' ? Object.values(node) : [];
					const next = children.filter((child) => child !== null && typeof child === 'object');
					if (next.length === 0) break;
					node = next[step % next.length];
				}
				if (node === null || typeof node !== 'object') continue;
				const keys = Object.keys(node);
				const target =
					keys.length > 0 && steps[steps.length - 1] % 2 === 0 ? keys[steps[0] % keys.length] : key;
				if (Array.isArray(node)) node[steps[0] % (node.length + 1)] = value;
				else
					Object.defineProperty(node, target, {
						value,
						enumerable: true,
						writable: true,
						configurable: true,
					});
			}
			return JSON.stringify(body);
		});
}

export const formBody = fc
	.array(
		fc.tuple(
			fc.oneof(
				KEYS,
				fc.constantFrom(
					'contact[email]',
					'a[b][c][d][e][f][g]',
					'__proto__[polluted]',
					'constructor[prototype][polluted]',
					'tags[]',
					'tags[]',
					'[]',
					'x[',
					'x]',
					'a[][b]',
					'utm[source]',
				),
			),
			hostileString,
			fc.boolean(),
		),
		{ maxLength: 8 },
	)
	.map((pairs) =>
		pairs
			.map(([key, value, encoded]) =>
				encoded ? `${encode(key)}=${encode(value)}` : `${key}=${value}`,
			)
			.join('&'),
	);

/** encodeURIComponent, which throws on a lone surrogate: those go in raw, as a sloppy client sends them. */
function encode(text: string): string {
	try {
		return encodeURIComponent(text);
	} catch {
		return text;
	}
}

/** A lead as a site's own form or a CRM webhook posts it to the generic source. */
export const GENERIC_LEAD = {
	id: 'sub_8842',
	email: 'Robin.Diaz@Example.com',
	phone: '+1 650 555 1212',
	first_name: 'Robin',
	last_name: 'Diaz',
	country: 'US',
	page_url: 'https://example.com/pricing?utm_source=fb&fbclid=IwAR_generic',
	created_at: '2026-03-02T09:58:00Z',
	utm: { source: 'facebook', campaign: 'spring' },
	company: 'Diaz & Co',
};

/** Bodies per source, made once (chain() asks for them at every run). */
const BODIES = new Map<CaptureSource, fc.Arbitrary<Buffer>>();
export function bodyFor(source: CaptureSource): fc.Arbitrary<Buffer> {
	let bodies = BODIES.get(source);
	if (bodies === undefined) BODIES.set(source, (bodies = makeBodies(source)));
	return bodies;
}

function makeBodies(source: CaptureSource): fc.Arbitrary<Buffer> {
	// Shaped like the source's real deliveries (a generic lead for the generic source), hostile
	// values put in: these get past parsing into detection and assembly.
	const shaped = (
		CAPTURE_FIXTURES[source].length > 0 ? CAPTURE_FIXTURES[source].map(fixtureJson) : [GENERIC_LEAD]
	).map(mutated);
	const texts: Array<fc.Arbitrary<string>> = [
		fc.json(),
		jsonValue.map((value) => JSON.stringify(value) ?? 'null'),
		formBody,
		hostileString,
		...CAPTURE_FIXTURES[source].map((name) =>
			fc
				.tuple(fc.nat(), fc.constantFrom('', '"', '}', ',', '\u0000', '{"a":'))
				.map(([cut, tail]) => {
					const text = JSON.stringify(fixtureJson(name));
					return text.slice(0, cut % text.length) + tail;
				}),
		),
	];
	return fc.oneof(
		{ weight: 48, arbitrary: fc.oneof(...shaped).map((text) => Buffer.from(text, 'utf8')) },
		{ weight: 24, arbitrary: fc.oneof(...texts).map((text) => Buffer.from(text, 'utf8')) },
		{ weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
		{
			weight: 1,
			arbitrary: fc.integer({ min: 1, max: 4 }).map((n) => Buffer.alloc(256 * 1024 + n, 0x61)),
		},
		{
			weight: 1,
			arbitrary: fc.constant(Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)),
		},
	);
}
