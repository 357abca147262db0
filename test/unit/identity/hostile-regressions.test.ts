import { IDENTITY_PROFILES } from '../../../shared/platforms';
import {
	HASHABLE_FIELDS,
	normalizeIdentity,
	renderIdentity,
} from '../../../shared/identity';
import { PLATFORMS } from '../../../shared/types';

/**
 * Inputs the property tests (test/property/identity.test.ts) found, kept as plain examples so
 * that each fix has a test of its own.
 */
const SHA256_OF_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('hostile-input regressions', () => {
	it.each([...HASHABLE_FIELDS])(
		'%s: the SHA-256 of "" (an upstream hash of an empty field) is dropped with a warning, never sent',
		(field) => {
			for (const digest of [
				SHA256_OF_EMPTY,
				SHA256_OF_EMPTY.toUpperCase(),
				`${SHA256_OF_EMPTY}.AQYBAQIA`,
			]) {
				const identity = normalizeIdentity({ contact: { [field]: digest } });
				expect(identity.values).toEqual({});
				expect(identity.warnings).toEqual([`${field}: the SHA-256 of an empty value`]);
				for (const platform of PLATFORMS) {
					expect(renderIdentity(identity, IDENTITY_PROFILES[platform]).values).toEqual({});
				}
			}
			// Any other digest still passes through as it is.
			const other = 'a'.repeat(64);
			const kept = normalizeIdentity({ contact: { [field]: other } });
			expect(kept.values).toEqual({ [field]: [other] });
			const hashedBy = PLATFORMS.filter((p) => IDENTITY_PROFILES[p].fields[field]?.hashed);
			for (const platform of hashedBy) {
				expect(renderIdentity(kept, IDENTITY_PROFILES[platform]).values).toEqual({ [field]: [other] });
			}
		},
	);
});

describe('phone numbers longer than E.164 allows', () => {
	// libphonenumber's metadata takes 15-digit German national numbers as valid: +49 and 15
	// digits are 17, and E.164 ends at 15.
	it.each<[unknown, string | undefined]>([
		[[201000000000000], 'de'],
		['201000000000000', 'DE'],
		['+49 201000000000000', undefined],
		['49201000000000000', undefined],
	])('%j (country %s) is dropped with a warning', (phone, country) => {
		const identity = normalizeIdentity({ contact: { phone, ...(country ? { country } : {}) } });
		expect(identity.values.phone).toBeUndefined();
		expect(identity.warnings).toEqual([
			expect.stringMatching(/^phone: not a valid (number|international number)/),
		]);
	});

	it('a 15-digit E.164 number is still read', () => {
		expect(
			normalizeIdentity({ contact: { phone: '+49 30 1234567890', country: 'de' } }).values.phone,
		).toEqual(['+49301234567890']);
	});
});

describe('fbc built from a click time outside the 13-digit millisecond range', () => {
	const NOW = Date.parse('2026-03-02T10:00:00Z');
	it.each<[string, Record<string, unknown>]>([
		['clicked_at 1970-01-01', { click: { fbclid: 'IwAR_x', clicked_at: '1970-01-01' } }],
		['clicked_at before 1970', { click: { fbclid: 'IwAR_x', clicked_at: '1960-01-01' } }],
		['clicked_at 0.0001 s', { click: { fbclid: 'IwAR_x', clicked_at: '0.0001' } }],
		[
			'clicked_at in the year 275760',
			{ click: { fbclid: 'IwAR_x', clicked_at: '+275760-09-13T00:00:00Z' } },
		],
		[
			'occurred_at 16505551212 (seconds: the year 2493)',
			{ occurred_at: 16505551212, click: { fbclid: 'IwAR_x' } },
		],
		['occurred_at 5', { occurred_at: 5, click: { fbclid: 'IwAR_x' } }],
	])('%s: a well-formed fbc at the clock time', (_case, record) => {
		const identity = normalizeIdentity(record, { clock: () => NOW });
		expect(identity.values.fbc).toEqual([`fb.1.${NOW}.IwAR_x`]);
	});

	it('says so when it was clicked_at that could not be used', () => {
		const identity = normalizeIdentity(
			{ click: { fbclid: 'IwAR_x', clicked_at: '1960-01-01' } },
			{ clock: () => NOW },
		);
		expect(identity.warnings).toEqual(['fbc: clicked_at is not a valid time; used the event time']);
	});
});

describe('fbc and fbclid values that are not text', () => {
	it.each<[string, Record<string, unknown>, string[]]>([
		['an object as fbc', { fbc: {} }, ['fbc: ignored a value that is not text (object)']],
		[
			'a boolean as fbclid',
			{ fbclid: true },
			['fbc: fbclid: ignored a value that is not text (boolean)'],
		],
		[
			'both',
			{ fbc: { a: 1 }, fbclid: [{}] },
			// buildFbc reports its warnings as one line
			[
				'fbc: ignored a value that is not text (object); fbc: fbclid: ignored a value that is not text (object)',
			],
		],
	])('%s: omitted with a warning', (_case, click, warnings) => {
		const identity = normalizeIdentity({ click });
		expect(identity.values.fbc).toBeUndefined();
		expect(identity.warnings).toEqual(warnings);
	});
});

describe('warnings of country and gender name the field and the problem, never the value', () => {
	it.each([
		'447911123456',
		'+1 (650) 555-1212',
		'jane@example.com',
		'Jane <jane@example.com>',
		'Jane Doe',
		'Atlantis',
	])('never show %j (a name, email or phone mapped into the wrong field)', (value) => {
		const { warnings } = normalizeIdentity({ contact: { gender: value, country: value } });
		expect(warnings).toEqual([
			'country: not a recognised country name or code',
			'gender: not a recognised gender (f, m or n; female, male, non-binary…)',
		]);
		expect(JSON.stringify(warnings)).not.toContain(value);
	});

	it('a short value (initials) is described by its shape, not quoted', () => {
		const { warnings } = normalizeIdentity({ contact: { country: 'JD', gender: 'JD' } });
		expect(warnings).toEqual([
			'country: two letters that are not an ISO 3166-1 country code',
			'gender: not a recognised gender (f, m or n; female, male, non-binary…)',
		]);
	});
});
