import { createHash } from 'node:crypto';
import { createContext, Script } from 'node:vm';
import fc from 'fast-check';

/**
 * Hostile inputs for the property tests (test/property): what a webhook, a CRM export or a
 * careless expression can put into a lead field, and the checks that what comes out of the core
 * is either a valid value or nothing.
 *
 * Runs are reproducible: every property uses one fixed seed (LEAD_CAPI_FC_SEED overrides it, to
 * replay another), and fast-check prints the seed and the failing path when a property fails.
 */
export const PROPERTY_SEED = Number(process.env.LEAD_CAPI_FC_SEED ?? 20_261_201);

/** Generated inputs per property unless a test asks for fewer. */
export const RUNS = 10_000;

/** fc.assert with the fixed seed; the failure message names the seed and the shrunk input. */
export function checkProperty<Ts>(property: fc.IProperty<Ts>, numRuns?: number): void;
export function checkProperty<Ts>(property: fc.IAsyncProperty<Ts>, numRuns?: number): Promise<void>;
export function checkProperty<Ts>(
	property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
	numRuns = RUNS,
): void | Promise<void> {
	const parameters = { seed: PROPERTY_SEED, numRuns };
	return property.isAsync()
		? fc.assert(property as fc.IAsyncProperty<Ts>, parameters)
		: fc.assert(property as fc.IProperty<Ts>, parameters);
}

/**
 * Fails the current run with `message` unless `condition` holds. Property predicates call this
 * instead of expect(): jest's matchers cost tens of microseconds each, and a property makes
 * hundreds of thousands of checks.
 */
export function must(condition: boolean, message: () => string): asserts condition {
	if (!condition) throw new Error(message());
}

/**
 * Calls `fn` and returns its result, or fails once it has run for `ms` (default 20 s, far beyond
 * anything a bounded call needs). Synchronous code cannot be stopped by jest's timeout: without
 * this, a guard that lets a catastrophic regex run bare would hang the whole test run instead of
 * failing one test. (A vm watchdog interrupts everything running, the code it calls included.)
 */
export function returnsWithin<T>(fn: () => T, ms = 20_000): T {
	const context = createContext({ fn, result: undefined });
	try {
		new Script('result = fn()').runInContext(context, { timeout: ms });
	} catch (error) {
		if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
			throw new Error(`did not return within ${ms} ms: it would have stalled the n8n process`);
		}
		throw error;
	}
	return (context as { result: T }).result;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const SHA256_OF_EMPTY = sha256Hex('');

const HEX64 = sha256Hex('someone@example.com');

/**
 * Values that look right and are not, or are right in a way that trips careless code: addresses
 * without a domain, phones too short, existing hashes in every case, dates that do not exist,
 * cookies of the wrong shape, blank-looking Unicode, numbers in strings.
 */
export const PLAUSIBLE_BUT_WRONG: readonly string[] = [
	'a@b',
	'a@b.c',
	'a@b.co',
	'@',
	'@example.com',
	'a@',
	'a@@b.co',
	'a..b@c.co',
	'.a@b.co',
	'a@b..co',
	'a@-b.co',
	'a b@c.co',
	'"a"@b.co',
	'John_Smith@GMAIL.com',
	'j.o.h.n+tag@googlemail.com',
	'josé@exämple.de',
	'a@b.xn--p1ai',
	'+1 555',
	'+1 (650) 555-1212',
	'(650) 555-1212 ext. 44',
	'650-555-1212 (mobile)',
	'tel:+16505551212',
	'0016505551212',
	'011 44 20 7946 0958',
	'16505551212',
	'+',
	'+0',
	'00',
	'555',
	'1234567',
	'123456789012345678',
	HEX64,
	HEX64.toUpperCase(),
	` ${HEX64.slice(0, 32).toUpperCase()}${HEX64.slice(32)} `,
	HEX64.slice(0, 63),
	`${HEX64}0`,
	`${HEX64}.AQYBAQIA`,
	`${HEX64}.`,
	`${HEX64}.${'x'.repeat(40)}`,
	SHA256_OF_EMPTY,
	'0'.repeat(64),
	'1'.repeat(64),
	'',
	' ',
	'\t\n\r',
	'\u00a0',
	'\u200b',
	'\ufeff',
	'\ufeffx',
	'\u2028',
	'\u0000',
	'null',
	'undefined',
	'NaN',
	'0',
	'-1',
	'1e400',
	'José',
	'Mu\u0308ller',
	'정',
	'😀',
	'\ud83d',
	"O'Neil-Smith Jr.",
	'--',
	'<script>alert(1)</script>',
	'fb.1.1554763741205.AbCdEf',
	'fb.1.1554763741205.AbCdEf.AQYBAQIA',
	'fb.1.123.abc',
	'fb.2.1596403881668.1116446470',
	'fb.1.1596403881668.x',
	'fb.1.1596403881668.1116446470',
	'IwAR2F4-dbP0l7Mn1IawQQGCINEz7PYXQvwjNwB_qa2ofrHyiLjcbCRxTDMgk',
	'https://shop.example.com/landing?fbclid=IwAR_abc&gclid=Cj0_g&ttclid=tt&msclkid=ms&epik=ep',
	'example.com/?fbclid=abc',
	'?fbclid=a.b',
	'1990-02-30',
	'1990-01-31T12:00:00Z',
	'31/12/1999',
	'02/03/1990',
	'13-02-1990',
	'02-03-1990',
	'1899-12-31',
	'2999-01-01',
	'19900131',
	'90-01-31',
	'Female',
	'MALE',
	'w',
	'unknown',
	'prefer not to say',
	'nonbinary',
	'United States',
	'the Netherlands',
	'Bosnia & Herzegovina',
	'USA',
	'XX',
	'ca',
	'California',
	'New York',
	'Washington D.C.',
	'M1 1AE',
	'94105-1234',
	'941051234',
	'K1A 0B1',
	'1',
	'127.0.0.1',
	'::ffff:203.0.113.7',
	'[2001:db8::1]:443',
	'203.0.113.7:8080',
	'203.0.113.7, 10.0.0.1',
	'999.1.1.1',
	'1.2.3',
	'_uet',
	'_uetabc123',
	'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0',
	'2026-03-02T10:00:00Z',
	'1700000000',
	'1700000000000',
	'1970-01-01',
	'1960-01-01',
	'+275760-09-13T00:00:00Z',
];

const PLAUSIBLE = fc.constantFrom(...PLAUSIBLE_BUT_WRONG);

/** Characters that make up emails, phones, hashes and separators, for dense near-misses. */
const NEAR_MISS_CHARS = fc.constantFrom(
	...'0123456789abcdefABCDEF@.+-_ ()#x/:,\t\u00a0\u200béß😀'.split(/(?:)/u),
);

/** Strings of every kind but huge: ASCII, full Unicode (lone surrogates too), near-misses, decorated plausibles. */
const everyString: ReadonlyArray<fc.WeightedArbitrary<string>> = [
	{ arbitrary: PLAUSIBLE, weight: 6 },
	{ arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
	{ arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
	{ arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
	{ arbitrary: fc.string({ unit: NEAR_MISS_CHARS, maxLength: 30 }), weight: 3 },
	{
		arbitrary: fc
			.tuple(PLAUSIBLE, fc.constantFrom('', ' ', '\t', '\u00a0', '\n'), fc.boolean())
			.map(([text, pad, upper]) => `${pad}${upper ? text.toUpperCase() : text}${pad}`),
		weight: 2,
	},
];

/** 1,000 to 65,536 characters: a plausible value or a few characters, repeated. */
const hugeString = fc
	.tuple(
		fc.oneof(PLAUSIBLE, fc.string({ minLength: 1, maxLength: 8 })),
		fc.integer({ min: 1_000, max: 60_000 }),
	)
	.map(([text, times]) => (text === '' ? 'x' : text).repeat(times).slice(0, 65_536));

/**
 * Any raw value a field may be handed, one string in 18 × `rarity` + 1 huge: scalars, lists
 * (also nested past the depth the core reads), objects, anything JSON or an expression can
 * produce.
 */
function hostileValues(rarity: number): {
	string: fc.Arbitrary<string>;
	value: fc.Arbitrary<unknown>;
} {
	const string = fc.oneof(
		...everyString.map(({ arbitrary, weight }) => ({ arbitrary, weight: weight * rarity })),
		{ arbitrary: hugeString, weight: 1 },
	);
	const scalar: fc.Arbitrary<unknown> = fc.oneof(
		{ arbitrary: string, weight: 10 },
		{ arbitrary: fc.double(), weight: 1 },
		{ arbitrary: fc.integer(), weight: 1 },
		{
			arbitrary: fc.constantFrom(16505551212, 447911123456, 94105, 0, -0, NaN, Infinity, 1e21),
			weight: 1,
		},
		{ arbitrary: fc.bigInt(), weight: 1 },
		{ arbitrary: fc.boolean(), weight: 1 },
		{ arbitrary: fc.constantFrom(null, undefined), weight: 1 },
		{ arbitrary: fc.date({ noInvalidDate: false }), weight: 1 },
	);
	const value = fc.oneof(
		{ arbitrary: scalar, weight: 12 },
		{ arbitrary: fc.array(scalar, { maxLength: 6 }), weight: 3 },
		{
			arbitrary: fc.letrec<{ nested: unknown }>((tie) => ({
				nested: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('nested'), { maxLength: 3 })),
			})).nested,
			weight: 1,
		},
		{ arbitrary: fc.anything({ maxDepth: 3 }), weight: 1 },
		{ arbitrary: fc.object({ maxDepth: 2 }), weight: 1 },
	);
	return { string, value };
}

const oneField = hostileValues(1);
/** Strings for one field under test: 1 in 19 is huge. */
export const hostileString = oneField.string;
/** Values for one field under test. */
export const hostileValue = oneField.value;
/**
 * Values for the fields of a whole record (some thirty of them): huge strings 1 in 901, so a
 * record holds one now and then rather than in nearly every run.
 */
export const hostileFieldValue = hostileValues(50).value;

/** Every text a raw value holds (strings and numbers, at any depth), for "is it echoed?" checks. */
export function rawTexts(raw: unknown, depth = 0): string[] {
	if (depth > 6 || raw === null || raw === undefined) return [];
	if (typeof raw === 'string') return [raw];
	if (typeof raw === 'number' || typeof raw === 'bigint') return [String(raw)];
	if (Array.isArray(raw)) return raw.flatMap((item) => rawTexts(item, depth + 1));
	if (typeof raw === 'object')
		return Object.values(raw).flatMap((item) => rawTexts(item, depth + 1));
	return [];
}

/** Whether a raw value holds anything at all: a non-blank text, or a value that is not text. */
export function holdsSomething(raw: unknown): boolean {
	if (raw === null || raw === undefined) return false;
	if (typeof raw === 'string') return raw.normalize('NFC').trim() !== '';
	if (Array.isArray(raw)) return raw.some(holdsSomething);
	return true;
}

const LOWER_HEX_64 = /^[0-9a-f]{64}$/;

/**
 * The raw-value detector for fields a platform hashes, made once per generated input from its
 * raw texts: a hashed value must be 64 lowercase hex (so no "@", no spaces, no letters past f),
 * never the hash of "", and never a raw value itself unless that value arrived as a SHA-256.
 * Hex digests contain digit runs by chance, so runs of 7+ digits are checked against the raw
 * values' own digit runs (a phone's digits) instead. The detector returns what is wrong, or null.
 */
export function hashedValueDetector(raws: readonly string[]): (value: unknown) => string | null {
	const clearTexts = new Set<string>();
	const digitRuns = new Set<string>();
	for (const raw of raws) {
		const text = raw.trim();
		// An existing SHA-256 (appendix allowed) is passed through as it is, by design.
		if (/^[0-9a-fA-F]{64}(?:\.[A-Za-z0-9_-]{1,32})?$/.test(text)) continue;
		if (text.length === 64) clearTexts.add(text.toLowerCase());
		for (const digits of text.match(/\d{7,}/g) ?? [])
			if (digits.length <= 64) digitRuns.add(digits);
	}
	return (value) => {
		if (typeof value !== 'string') return `not a string: ${typeof value}`;
		if (!LOWER_HEX_64.test(value))
			return `not 64 lowercase hex: ${JSON.stringify(value.slice(0, 80))}`;
		if (value === SHA256_OF_EMPTY) return 'the SHA-256 of ""';
		if (clearTexts.has(value)) return 'a raw value passed through';
		for (const digits of digitRuns)
			if (value.includes(digits)) return `carries the raw digits ${digits}`;
		return null;
	};
}

/**
 * No warning or error repeats a raw email or phone number of `raws` (the PII fields' inputs).
 * `strict`: when the input held nothing but PII fields, no warning may hold anything shaped like
 * an email address or a phone number at all.
 */
export function mustNotEchoEmailOrPhone(
	warnings: readonly string[],
	raws: readonly string[],
	options: { strict?: boolean } = {},
): void {
	const joined = warnings.join('\n');
	for (const raw of raws) {
		const text = raw.trim();
		if (text.length >= 6 && (text.includes('@') || (text.match(/\d/g)?.length ?? 0) >= 7)) {
			must(
				!joined.includes(text),
				() => `a warning repeats the raw value ${JSON.stringify(text)}: ${joined}`,
			);
		}
	}
	if (options.strict) {
		must(!/@[^\s"]*\.|\d{7,}/.test(joined), () => `a warning holds an email or phone: ${joined}`);
	}
}
