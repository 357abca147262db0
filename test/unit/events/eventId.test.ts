import { deriveEventId, readClientKey, readRecordId, recordIdProblem } from '../../../shared/events';

describe('deriveEventId', () => {
	// Expected values computed independently with Python's hashlib.
	it.each([
		['1234567890', 'Lead', 'crm-deal-42', 'f59b5c3e5f42a46735afa2a4e5becf6d10fcbfd7b53e5e666c99acaf5e713d82'],
		['1234567890', 'Schedule', 'crm-deal-42', 'f93f8e457f790bd12213ede4cfaf8b9fa524972e284fa93a1eaf78ef7b4e58fd'],
		['act_99', 'Lead', 'crm-deal-42', '54083b5f0129a5936926f6b9acb10bbc3d9a6d9e6acce0359a66944780c91b3d'],
	])('sha256(%s|%s|%s)', (destination, eventName, recordId, expected) => {
		expect(deriveEventId(destination, eventName, recordId)).toBe(expected);
	});

	it('gives separate moments of one lead separate ids, and is stable across calls', () => {
		const lead = deriveEventId('px', 'Lead', 'r1');
		expect(deriveEventId('px', 'Lead', 'r1')).toBe(lead);
		expect(deriveEventId('px', 'Schedule', 'r1')).not.toBe(lead);
		expect(deriveEventId('px2', 'Lead', 'r1')).not.toBe(lead);
		expect(lead).toMatch(/^[0-9a-f]{64}$/);
	});

	it.each([
		['', 'Lead', 'r1'],
		['px', '', 'r1'],
		['px', 'Lead', ''],
	])('refuses an empty part (%j, %j, %j)', (d, e, r) => {
		expect(() => deriveEventId(d, e, r)).toThrow(/empty/);
	});
});

describe('deriveEventId with a Client Key', () => {
	// Expected values computed independently with Python's hashlib over `client:<key>|…`.
	it.each([
		['acme', 'c68eef90e849344cf81fccc4631d8dadcf31c52d3d885a6c93a6a30452262da1'],
		['globex', 'c12e267e7464adc6de2142d3cfb5e362aff08ae8efad245a4e61a5fbd6361bd7'],
		['  acme  ', 'c68eef90e849344cf81fccc4631d8dadcf31c52d3d885a6c93a6a30452262da1'],
	])('sha256(client:%s|1234567890|Lead|crm-deal-42)', (clientKey, expected) => {
		expect(deriveEventId('1234567890', 'Lead', 'crm-deal-42', clientKey)).toBe(expected);
	});

	it('two clients sharing a pixel get different ids for the same record; no key keeps the old id', () => {
		const a = deriveEventId('px', 'Lead', 'r1', 'acme');
		expect(deriveEventId('px', 'Lead', 'r1', 'globex')).not.toBe(a);
		expect(deriveEventId('px', 'Lead', 'r1', '')).toBe(deriveEventId('px', 'Lead', 'r1'));
		expect(deriveEventId('px', 'Lead', 'r1', undefined)).not.toBe(a);
	});

	it('refuses an invalid key instead of hashing it', () => {
		expect(() => deriveEventId('px', 'Lead', 'r1', 'acme corp')).toThrow(/client key "acme corp" must be 1-64 letters/);
	});
});

describe('readClientKey', () => {
	it.each([
		['acme', 'acme'],
		[' acme.eu_2-b ', 'acme.eu_2-b'],
		['', undefined],
		['   ', undefined],
		[undefined, undefined],
	])('%j → %j', (raw, expected) => {
		expect(readClientKey(raw)).toBe(expected);
	});

	it.each([['acme corp'], ['a:b'], ['x'.repeat(65)], ['é']])('%j is a configuration error', (raw) => {
		expect(() => readClientKey(raw)).toThrow(/must be 1-64 letters, digits, dots, dashes or underscores/);
	});
});

describe('readRecordId', () => {
	it.each([
		['sub_123', 'sub_123'],
		['  deal-9  ', 'deal-9'],
		[42, '42'],
		['', null],
		['   ', null],
		[undefined, null],
		[null, null],
		[{ id: 1 }, null],
		[Number.NaN, null],
		[1.5, '1.5'],
		[Number.MAX_SAFE_INTEGER, '9007199254740991'],
		// Beyond 2^53 the digits are already lost: 1234567890123456789 arrives as …800.
		[1234567890123456789, null],
		[-(2 ** 60), null],
		['1234567890123456789', '1234567890123456789'],
	])('%j → %j', (raw, expected) => {
		expect(readRecordId(raw)).toBe(expected);
	});
});

describe('recordIdProblem', () => {
	it('names an id that lost digits and tells how to send it', () => {
		expect(recordIdProblem(1234567890123456789)).toBe(
			'record id 1234567890123456800 is larger than JavaScript numbers hold exactly; send it as a string',
		);
		expect(recordIdProblem(1e300)).toMatch(/^record id 1e\+300 is larger than/);
	});

	it.each([[undefined], [''], [{ id: 1 }], [Number.NaN]])('%j is missing', (raw) => {
		expect(recordIdProblem(raw)).toBe('record id is missing, empty or not text');
	});

	it.each([['sub_1'], [42], ['1234567890123456789']])('%j is fine', (raw) => {
		expect(recordIdProblem(raw)).toBeNull();
	});
});
