import type { MatchType } from '../../../shared/rules';
import { checkCondition } from './helpers';

const lead = {
	record_id: 'r1',
	state: 'lead',
	source: { kind: 'form', page_url: 'https://www.example.com/Pricing/Enterprise?utm_source=fb' },
	contact: { email: 'Jane.Doe@Sales.Acme.com', city: 'Zürich', country: 'CH' },
	value: { amount: '1,200.50', currency: 'EUR' },
	attributes: {
		utm_source: 'Facebook',
		utm_medium: 'paid',
		employees: 250,
		newsletter: true,
		tags: ['webinar', 'Pricing-Page'],
		booked_for: '2026-03-15T10:00:00Z',
		empty: '',
		blank: '   ',
		nothing: null,
	},
};

type Row = [field: string, matchType: MatchType, pattern: string | undefined, passed: boolean];

describe('every match type passes and fails as a user expects', () => {
	test.each<Row>([
		['attributes.utm_source', 'equals', 'facebook', true],
		['attributes.utm_source', 'equals', 'face', false],
		['attributes.utm_source', 'not_equals', 'google', true],
		['attributes.utm_source', 'not_equals', 'FACEBOOK', false],
		['source.page_url', 'contains', '/pricing', true],
		['source.page_url', 'contains', '/blog', false],
		['source.page_url', 'not_contains', '/blog', true],
		['source.page_url', 'not_contains', 'pricing', false],
		['source.page_url', 'starts_with', 'https://www.example.com', true],
		['source.page_url', 'starts_with', 'http://', false],
		['source.page_url', 'ends_with', 'utm_source=fb', true],
		['source.page_url', 'ends_with', '/enterprise', false],
		['source.page_url', 'regex', '/pricing/(enterprise|team)', true],
		['source.page_url', 'regex', '^https://blog\\.', false],
		['attributes.utm_source', 'exists', undefined, true],
		['attributes.utm_campaign', 'exists', undefined, false],
		['attributes.utm_campaign', 'not_exists', undefined, true],
		['attributes.utm_source', 'not_exists', undefined, false],
		['attributes.utm_medium', 'in_list', 'cpc, paid,ppc', true],
		['attributes.utm_medium', 'in_list', 'organic, referral', false],
		['attributes.utm_medium', 'not_in_list', 'organic, referral', true],
		['attributes.utm_medium', 'not_in_list', 'cpc\npaid', false],
		['contact.email', 'email_domain_in', 'acme.com', true],
		['contact.email', 'email_domain_in', 'globex.io, initech.com', false],
		['contact.email', 'is_work_email', undefined, true],
		['value.amount', 'greater_than', '1000', true],
		['value.amount', 'greater_than', '1,200.50', false],
		['value.amount', 'less_than', '1200.51', true],
		['value.amount', 'less_than', '99', false],
	])('%s %s %j → %s', (field, matchType, pattern, passed) => {
		const result = checkCondition(lead, field, matchType, pattern);
		expect(result.passed).toBe(passed);
		expect(result.evaluable).toBe(true);
	});
});

describe('reasons are one readable line', () => {
	test.each<[string, MatchType, string | undefined, string]>([
		['source.page_url', 'contains', '/pricing', 'source.page_url contains "/pricing": yes'],
		[
			'attributes.utm_source',
			'equals',
			'google',
			'attributes.utm_source equals "google": no (value is "Facebook")',
		],
		[
			'attributes.employees',
			'greater_than',
			'500',
			'attributes.employees is greater than 500: no (value is 250)',
		],
		[
			'attributes.utm_campaign',
			'equals',
			'spring',
			'attributes.utm_campaign equals "spring": no (field is missing)',
		],
		[
			'attributes.utm_campaign',
			'not_equals',
			'spring',
			'attributes.utm_campaign does not equal "spring": yes (field is missing)',
		],
		[
			'attributes.utm_medium',
			'in_list',
			'a, b, c, d, e, f, g',
			'attributes.utm_medium is in list "a", "b", "c", "d", "e" (+2 more): no (value is "paid")',
		],
		[
			'attributes.tags',
			'not_contains',
			'webinar',
			'attributes.tags does not contain "webinar": no (value is "webinar")',
		],
		['attributes.utm_source', 'equals', 'Facebook', 'attributes.utm_source equals "Facebook": yes'],
	])('%s %s %j', (field, matchType, pattern, reason) => {
		expect(checkCondition(lead, field, matchType, pattern).reason).toBe(reason);
	});

	it('says when a comparison was case-sensitive', () => {
		expect(checkCondition(lead, 'attributes.utm_source', 'equals', 'facebook', true).reason).toBe(
			'attributes.utm_source equals "facebook" (case-sensitive): no (value is "Facebook")',
		);
	});

	it('never quotes the value of an email, phone or name field', () => {
		const reason = checkCondition(lead, 'contact.email', 'contains', 'globex').reason;
		expect(reason).toBe('contact.email contains "globex": no');
		expect(reason).not.toMatch(/jane/i);
	});
});

describe('case sensitivity: off by default, on when asked', () => {
	test.each<[MatchType, string, boolean | undefined, boolean]>([
		['equals', 'FACEBOOK', undefined, true],
		['equals', 'FACEBOOK', false, true],
		['equals', 'FACEBOOK', true, false],
		['equals', 'Facebook', true, true],
		['contains', 'BOOK', true, false],
		['contains', 'book', true, true],
		['starts_with', 'face', true, false],
		['ends_with', 'BOOK', undefined, true],
		['in_list', 'google, FACEBOOK', undefined, true],
		['in_list', 'google, FACEBOOK', true, false],
		['not_in_list', 'google, FACEBOOK', true, true],
		['regex', '^face', undefined, true],
		['regex', '^face', true, false],
	])('%s %j case_sensitive=%j → %s', (matchType, pattern, caseSensitive, passed) => {
		expect(
			checkCondition(lead, 'attributes.utm_source', matchType, pattern, caseSensitive).passed,
		).toBe(passed);
	});

	it('ignores case for email domains whatever the setting', () => {
		expect(checkCondition(lead, 'contact.email', 'email_domain_in', 'ACME.COM', true).passed).toBe(
			true,
		);
	});
});

describe('missing fields (undefined, null, empty, whitespace, empty list) fail all but the negations', () => {
	const fields = [
		'attributes.absent',
		'attributes.nothing',
		'attributes.empty',
		'attributes.blank',
		'nowhere.deep.path',
	];
	const passWhenMissing: MatchType[] = ['not_exists', 'not_equals', 'not_contains', 'not_in_list'];
	const table: Array<[MatchType, string | undefined]> = [
		['equals', 'x'],
		['not_equals', 'x'],
		['contains', 'x'],
		['not_contains', 'x'],
		['starts_with', 'x'],
		['ends_with', 'x'],
		['regex', '.*'],
		['exists', undefined],
		['not_exists', undefined],
		['in_list', 'x, y'],
		['not_in_list', 'x, y'],
		['email_domain_in', 'acme.com'],
		['is_work_email', undefined],
		['greater_than', '-1'],
		['less_than', '1'],
	];
	test.each(table)('%s', (matchType, pattern) => {
		for (const field of fields) {
			const result = checkCondition(lead, field, matchType, pattern);
			expect({ field, passed: result.passed }).toEqual({
				field,
				passed: passWhenMissing.includes(matchType),
			});
			expect(result.reason).toMatch(/\(field is missing\)$/);
		}
		expect(
			checkCondition({ attributes: { list: [] } }, 'attributes.list', matchType, pattern).passed,
		).toBe(passWhenMissing.includes(matchType));
	});

	it('covers every match type', () => {
		expect(table).toHaveLength(15);
	});

	it('does not read inherited properties', () => {
		expect(checkCondition({ attributes: {} }, 'attributes.constructor', 'exists').passed).toBe(
			false,
		);
		expect(checkCondition({}, '__proto__', 'exists').passed).toBe(false);
	});
});

describe('numbers and booleans compare as their text', () => {
	test.each<[string, MatchType, string, boolean]>([
		['attributes.employees', 'equals', '250', true],
		['attributes.employees', 'starts_with', '25', true],
		['attributes.employees', 'in_list', '100, 250, 500', true],
		['attributes.newsletter', 'equals', 'TRUE', true],
		['attributes.newsletter', 'equals', 'yes', false],
	])('%s %s %j → %s', (field, matchType, pattern, passed) => {
		expect(checkCondition(lead, field, matchType, pattern).passed).toBe(passed);
	});
});

describe('arrays: any element passes; a negation passes when no element matches', () => {
	const record = {
		contact: { email: ['me@gmail.com', 'me@acme.com'] },
		attributes: { tags: ['webinar', 'pricing'] },
		items: [{ sku: 'A-1' }, { sku: 'B-2' }],
	};
	test.each<[string, MatchType, string | undefined, boolean]>([
		['attributes.tags', 'equals', 'pricing', true],
		['attributes.tags', 'equals', 'demo', false],
		['attributes.tags', 'not_equals', 'demo', true],
		['attributes.tags', 'not_equals', 'pricing', false],
		['attributes.tags', 'not_in_list', 'demo, trial', true],
		['attributes.tags', 'not_in_list', 'demo, webinar', false],
		['attributes.tags', 'regex', '^pri', true],
		['contact.email', 'is_work_email', undefined, true],
		['contact.email', 'email_domain_in', 'acme.com', true],
		['items.sku', 'starts_with', 'b-', true],
		['items.sku', 'in_list', 'C-3', false],
	])('%s %s %j → %s', (field, matchType, pattern, passed) => {
		expect(checkCondition(record, field, matchType, pattern).passed).toBe(passed);
	});

	it('lists several values when none matches', () => {
		expect(checkCondition(record, 'attributes.tags', 'equals', 'demo').reason).toBe(
			'attributes.tags equals "demo": no (values are "webinar", "pricing")',
		);
	});
});

describe('unicode: NFC on both sides, accents and non-Latin scripts', () => {
	const decomposed = 'Zu\u0308rich';
	test.each<[unknown, MatchType, string, boolean]>([
		[decomposed, 'equals', 'zürich', true],
		['Zürich', 'equals', 'ZU\u0308RICH', true],
		[decomposed, 'contains', 'ürich', true],
		[decomposed, 'in_list', 'Genève, Zürich', true],
		[decomposed, 'regex', '^zürich$', true],
		['Zurich', 'equals', 'zürich', false],
		['Genève', 'ends_with', 'ÈVE', true],
		['Москва', 'equals', 'МОСКВА', true],
		['Москва', 'starts_with', 'мос', true],
		['東京都渋谷区', 'contains', '渋谷', true],
		['서울특별시', 'starts_with', '서울', true],
		['São Paulo', 'equals', 'sao paulo', false],
		['ΑΘΗΝΑ', 'equals', 'αθηνα', true],
		['  padded  ', 'equals', 'PADDED', true],
	])('%j %s %j → %s', (city, matchType, pattern, passed) => {
		expect(checkCondition({ contact: { city } }, 'contact.city', matchType, pattern).passed).toBe(
			passed,
		);
	});
});

describe('greater_than / less_than: numbers with separators, dates', () => {
	test.each<[unknown, MatchType, string, boolean]>([
		['1,200.50', 'greater_than', '1200', true],
		['1,200.50', 'less_than', '1,200.51', true],
		[1200.5, 'greater_than', '1,200.49', true],
		['1 200', 'greater_than', '1199', true],
		['$99', 'less_than', '100', true],
		['99 €', 'less_than', '100', true],
		['-5', 'less_than', '0', true],
		['0.5', 'greater_than', '.4', true],
		['100', 'greater_than', '100', false],
		['100', 'less_than', '100', false],
		['1.200,50', 'greater_than', '1', false],
		['abc', 'greater_than', '1', false],
		[true, 'greater_than', '0', false],
		['2026-03-15T10:00:00Z', 'greater_than', '2026-03-15', true],
		['2026-03-15T10:00:00Z', 'less_than', '2026-03-15T10:00:01Z', true],
		['2026-03-15T12:00:00+02:00', 'less_than', '2026-03-15T10:00:01', true],
		['2026-03-15', 'less_than', '2026-03-14', false],
		['2026-02-30', 'greater_than', '2026-01-01', false],
		['2026-03-15', 'greater_than', '100', false],
	])('%j %s %j → %s', (amount, matchType, pattern, passed) => {
		expect(checkCondition({ value: { amount } }, 'value.amount', matchType, pattern).passed).toBe(
			passed,
		);
	});

	test.each<[unknown, string, string]>([
		['abc', '100', 'value.amount is greater than 100: no ("abc" is not a number)'],
		[
			'soon',
			'2026-01-01',
			'value.amount is greater than 2026-01-01: no ("soon" is not an ISO date)',
		],
	])('explains a value that is not comparable: %j', (amount, pattern, reason) => {
		expect(
			checkCondition({ value: { amount } }, 'value.amount', 'greater_than', pattern).reason,
		).toBe(reason);
	});
});

describe('list patterns: commas or new lines, trimmed, empty items ignored', () => {
	test.each<[string, string, boolean]>([
		['paid', 'cpc,paid', true],
		['paid', ' cpc ,\n paid \n', true],
		['paid', 'cpc\r\npaid', true],
		['paid', ',,cpc,,', false],
		['pai', 'cpc, paid', false],
		['paid search', 'paid search, cpc', true],
	])('%j in %j → %s', (medium, pattern, passed) => {
		expect(
			checkCondition({ attributes: { medium } }, 'attributes.medium', 'in_list', pattern).passed,
		).toBe(passed);
	});
});

describe('email_domain_in: exact domain or a subdomain', () => {
	test.each<[string, string, boolean]>([
		['jane@acme.com', 'acme.com', true],
		['jane@sales.acme.com', 'acme.com', true],
		['jane@eu.sales.acme.com', 'acme.com', true],
		['jane@notacme.com', 'acme.com', false],
		['jane@acme.com.evil.io', 'acme.com', false],
		['jane@acme.co', 'acme.com', false],
		['jane@ACME.COM', 'globex.io, acme.com', true],
		['jane@acme.com', '@acme.com', true],
		['jane@sales.acme.com', '*.acme.com', true],
		['jane@acme.com', 'someone@acme.com', true],
		['jane@acme.de', 'de, at, ch', true],
		['Jane Doe <jane@acme.com>', 'acme.com', true],
		['not an email', 'acme.com', false],
	])('%j in %j → %s', (email, pattern, passed) => {
		expect(
			checkCondition({ contact: { email } }, 'contact.email', 'email_domain_in', pattern).passed,
		).toBe(passed);
	});

	it('names the domain when it is not in the list', () => {
		expect(
			checkCondition(
				{ contact: { email: 'jane@gmail.com' } },
				'contact.email',
				'email_domain_in',
				'acme.com',
			).reason,
		).toBe('contact.email has an email domain in "acme.com": no (domain is gmail.com)');
	});

	it('reads a bare domain field too', () => {
		expect(
			checkCondition(
				{ company: { domain: 'sales.acme.com' } },
				'company.domain',
				'email_domain_in',
				'acme.com',
			).passed,
		).toBe(true);
	});
});
