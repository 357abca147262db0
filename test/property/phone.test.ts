import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
	normalizePhoneText,
	normalizePhoneTextUncached,
	type PhoneContext,
} from '../../shared/identity/phone';
import { PHONE_RESULTS_MAX_TEXT } from '../../shared/identity/phone-results';
import { checkProperty, hostileString, must } from '../support/hostile';

/**
 * The phone results kept in this process (shared/identity/phone-results.ts) change no answer:
 * for phone-like texts (valid, invalid, national, international, with prefixes, extensions and
 * labels), hostile strings and texts too long to be kept, under supported, lower-case,
 * unsupported and absent countries, normalizePhoneText answers what the uncached rule answers —
 * on the first reading (worked out), on the next (remembered), and after a batch of others (by
 * then the oldest results have been dropped).
 */

const digits = (min: number, max: number) =>
	fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

const phoneLike = fc
	.tuple(
		fc.constantFrom(
			'',
			'',
			'+',
			'+1 ',
			'+44 ',
			'+49 (0) ',
			'+33 ',
			'00',
			'0044 ',
			'011 ',
			'0',
			'1',
			'tel:+',
			'(mobile) ',
		),
		fc.array(digits(1, 5), { minLength: 1, maxLength: 5 }),
		fc.constantFrom(' ', '-', '.', '', ') ', ' / '),
		fc.constantFrom('', '', ' ext. 12', ' x9', ' (mobile)', '#5', ' extension 3', ' call after 5'),
	)
	.map(([prefix, groups, separator, suffix]) => `${prefix}${groups.join(separator)}${suffix}`);

/** Numbers drawn from real plans, so that many of them are valid. */
const realistic = fc.oneof(
	digits(3, 3).chain((a) => digits(4, 4).map((b) => `(415) ${(Number(a) % 800) + 200}-${b}`)),
	digits(4, 4).map((a) => `020 7946 ${a}`),
	digits(6, 6).map((a) => `07911 ${a}`),
	digits(8, 8).map((a) => `030 ${a}`),
	digits(10, 10).map((a) => `1${a}`),
	digits(8, 8).map((a) => `+33 1 ${a}`),
);

const tooLong = fc
	.tuple(
		realistic,
		fc.string({ minLength: PHONE_RESULTS_MAX_TEXT, maxLength: PHONE_RESULTS_MAX_TEXT + 40 }),
	)
	.map(([number, tail]) => `${number} ${tail}`);

const text = fc.oneof(
	{ arbitrary: phoneLike, weight: 4 },
	{ arbitrary: realistic, weight: 3 },
	{ arbitrary: hostileString, weight: 2 },
	{ arbitrary: tooLong, weight: 1 },
);

const country = fc.option(
	fc.constantFrom(
		'US',
		'us',
		'GB',
		'gb',
		'DE',
		'FR',
		'BR',
		'IN',
		'JP',
		'AU',
		'XX',
		'',
		'ZZ',
		'United States',
	),
	{ nil: undefined },
);

const reading = fc.tuple(text, fc.oneof(country, fc.constant(null)));

function mustAnswerAsUncached(input: string, context: PhoneContext, label: string): void {
	const expected = normalizePhoneTextUncached(input, context);
	const got = normalizePhoneText(input, context);
	must(
		isDeepStrictEqual(got, expected),
		() =>
			`${label} ${JSON.stringify(input)} (${String(context.country)}): ${JSON.stringify(got)} ≠ uncached ${JSON.stringify(expected)}`,
	);
}

describe('phone results kept in the process answer as the uncached rule', () => {
	it('a text read once and again', () => {
		checkProperty(
			fc.property(reading, ([input, c]) => {
				mustAnswerAsUncached(input, { country: c }, 'first');
				mustAnswerAsUncached(input, { country: c }, 'again');
			}),
		);
	});

	it('a batch of texts, read a second time in another order', () => {
		checkProperty(
			fc.property(
				fc.array(reading, { minLength: 1, maxLength: 40 }),
				fc.integer(),
				(batch, seed) => {
					for (const [input, c] of batch) mustAnswerAsUncached(input, { country: c }, 'batch');
					const shuffled = [...batch].sort(
						(a, b) => ((a[0].length * 31 + seed) % 7) - ((b[0].length * 31 + seed) % 7),
					);
					for (const [input, c] of shuffled)
						mustAnswerAsUncached(input, { country: c }, 'batch again');
				},
			),
			1000,
		);
	});
});
