import { processCapture, type CaptureConfig, type CaptureOutcome } from '../../../shared/capture';
import type { LeadRecord } from '../../../shared/types';
import { config, NOW, request } from './helpers';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function capture(
	body: object | string,
	overrides: Partial<CaptureConfig> = {},
	headers = {},
): CaptureOutcome {
	return processCapture(request(body, headers), config('generic', overrides), NOW);
}

function record(
	body: object | string,
	overrides: Partial<CaptureConfig> = {},
	headers = {},
): LeadRecord {
	const outcome = capture(body, overrides, headers);
	if (outcome.kind !== 'accepted')
		throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
	return outcome.record;
}

describe('generic detection', () => {
	it.each<[string, object, Partial<LeadRecord>]>([
		[
			'common keys at the root, any case and separators',
			{
				id: 'L-1',
				'E-Mail': 'a@example.com',
				Phone_Number: '+14155550100',
				FirstName: 'Ann',
				surname: 'Lee',
				City: 'Oakland',
				province: 'CA',
				'postal-code': '94607',
				Country: 'US',
			},
			{
				contact: {
					email: 'a@example.com',
					phone: '+14155550100',
					first_name: 'Ann',
					last_name: 'Lee',
					city: 'Oakland',
					region: 'CA',
					postal_code: '94607',
					country: 'US',
				},
			},
		],
		[
			'aliases: mail, tel, fname, lname, zip, region',
			{
				uuid: 'u-1',
				mail: 'b@example.com',
				tel: '+14155550101',
				fname: 'Bo',
				lname: 'Ng',
				zip: '10001',
				region: 'NY',
			},
			{
				contact: {
					email: 'b@example.com',
					phone: '+14155550101',
					first_name: 'Bo',
					last_name: 'Ng',
					postal_code: '10001',
					region: 'NY',
				},
			},
		],
		[
			'email_address, mobile, given_name, family_name, postcode',
			{
				submission_id: 's-1',
				email_address: 'c@example.com',
				mobile: '+447911123456',
				given_name: 'Cy',
				family_name: 'Oh',
				postcode: 'SW1A 1AA',
			},
			{
				contact: {
					email: 'c@example.com',
					phone: '+447911123456',
					first_name: 'Cy',
					last_name: 'Oh',
					postal_code: 'SW1A 1AA',
				},
			},
		],
		[
			'one level deep, the root winning a clash',
			{
				id: 'L-2',
				email: 'root@example.com',
				contact: { email: 'nested@example.com', telephone: '+14155550102' },
			},
			{ contact: { email: 'root@example.com', phone: '+14155550102' } },
		],
		[
			'a full name split on the first whitespace',
			{ id: 'L-3', email: 'd@example.com', full_name: '  Mary  Ann Evans ' },
			{ contact: { email: 'd@example.com', first_name: 'Mary', last_name: 'Ann Evans' } },
		],
		[
			'a one-word name is a first name',
			{ id: 'L-4', email: 'e@example.com', name: 'Cher' },
			{ contact: { email: 'e@example.com', first_name: 'Cher' } },
		],
		[
			'no split when a first or last name is given',
			{ id: 'L-5', email: 'f@example.com', name: 'Frances Hodgson Burnett', last_name: 'Burnett' },
			{ contact: { email: 'f@example.com', last_name: 'Burnett' } },
		],
		[
			'company goes to attributes; state holding a lead state is not a region',
			{ id: 'L-6', email: 'g@example.com', company: 'Acme', state: 'lead' },
			{ contact: { email: 'g@example.com' }, attributes: { company: 'Acme', state: 'lead' } },
		],
		[
			'click ids, cookies and utm_* from the body',
			{
				id: 'L-7',
				email: 'h@example.com',
				fbclid: 'IwAR-body',
				_fbp: 'fb.1.1700000000000.42',
				_fbc: 'fb.1.1700000000000.IwAR-body',
				gclid: 'Cj0-body',
				_uetmsclkid: '_uet0a1b2c',
				utm_source: 'meta',
				utmCampaign: 'spring',
				utm: { medium: 'paid' },
			},
			{
				contact: { email: 'h@example.com' },
				click: {
					fbclid: 'IwAR-body',
					fbp: 'fb.1.1700000000000.42',
					fbc: 'fb.1.1700000000000.IwAR-body',
					gclid: 'Cj0-body',
					msclkid: '_uet0a1b2c',
				},
				attributes: { utm_source: 'meta', utm_campaign: 'spring', utm_medium: 'paid' },
			},
		],
		[
			'consent fields, in a consent object too',
			{
				id: 'L-8',
				email: 'i@example.com',
				consent: { ad_user_data: 'granted', ad_personalization: false },
			},
			{
				contact: { email: 'i@example.com' },
				consent: { ad_user_data: 'granted', ad_personalization: false },
			},
		],
		[
			'unmapped scalars to attributes, flat; sensitive keys and objects left out',
			{
				id: 'L-9',
				email: 'j@example.com',
				plan: 'pro',
				seats: 12,
				newsletter: true,
				tags: ['a', '', 'b'],
				password: 'hunter2',
				card_number: '4111111111111111',
				cvv: '123',
				ssn: '078-05-1120',
				'g-recaptcha-response': 'x',
				_token: 'csrf',
				meta: { source: 'landing', nested: { deep: 1 } },
				empty: '   ',
			},
			{
				contact: { email: 'j@example.com' },
				attributes: {
					plan: 'pro',
					seats: 12,
					newsletter: true,
					tags: ['a', 'b'],
					source: 'landing',
				},
			},
		],
	])('%s', (_case, body, expected) => {
		const { contact, click, consent, value, attributes } = record(body);
		// Through JSON so absent sections drop out of the comparison.
		expect(JSON.parse(JSON.stringify({ contact, click, consent, value, attributes }))).toEqual(
			expected,
		);
	});

	it.each<[string, object, string]>([
		['record_id beats id', { id: 'x', record_id: 'r', email: 'a@example.com' }, 'r'],
		['submission_id beats uuid', { uuid: 'u', submissionId: 's', email: 'a@example.com' }, 's'],
		[
			'a root id beats a nested one',
			{ data: { id: 'nested' }, id: 'root', email: 'a@example.com' },
			'root',
		],
		[
			'a nested response_id beats a root id',
			{ id: 'root', data: { response_id: 'resp' }, email: 'a@example.com' },
			'resp',
		],
		['numbers are stringified', { lead_id: 4711, email: 'a@example.com' }, '4711'],
	])('record id detection: %s', (_case, body, expected) => {
		expect(record(body).record_id).toBe(expected);
	});

	it('keeps the detected record id out of attributes, but other ids in', () => {
		expect(
			record({ submission_id: 's-1', id: 'webhook-9', email: 'a@example.com' }).attributes,
		).toEqual({ id: 'webhook-9' });
	});

	it('emits source.kind generic, the time of receipt and state lead by default', () => {
		const result = record({ id: 'L', email: 'a@example.com' });
		expect(result).toMatchObject({
			state: 'lead',
			occurred_at: '2026-03-02T10:00:00.000Z',
			source: { kind: 'generic' },
		});
	});

	it('reads occurred_at / submitted_at when the body has them', () => {
		expect(record({ id: 'L', email: 'a@example.com', submitted_at: 1772438400 }).occurred_at).toBe(
			'2026-03-02T08:00:00.000Z',
		);
	});

	it('warns and uses the receipt time for an unreadable time', () => {
		expect(
			capture({ id: 'L', email: 'a@example.com', occurred_at: 'yesterday-ish' }),
		).toMatchObject({
			kind: 'accepted',
			record: { occurred_at: '2026-03-02T10:00:00.000Z' },
			warnings: ['occurred_at: not a readable time; used the time of receipt'],
		});
	});
});

describe('form-encoded bodies', () => {
	it('reads nested keys like contact[email] as objects', () => {
		const body =
			'submission_id=f-1&contact%5Bemail%5D=k%40example.com&contact[name]=Kim+Park&contact[phone]=%2B14155550103' +
			'&interests[]=seo&interests[]=ads&utm_source=newsletter&__proto__[polluted]=1&constructor[x]=1';
		const result = record(body, {}, FORM);
		expect(result).toMatchObject({
			record_id: 'f-1',
			contact: {
				email: 'k@example.com',
				phone: '+14155550103',
				first_name: 'Kim',
				last_name: 'Park',
			},
			attributes: { interests: ['seo', 'ads'], utm_source: 'newsletter' },
		});
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it('is accepted for the generic source only', () => {
		const outcome = processCapture(request('a=1', FORM), config('typeform'), NOW);
		expect(outcome).toEqual({
			kind: 'rejected',
			status: 415,
			reason:
				'unsupported content type application/x-www-form-urlencoded for the typeform source (expected application/json)',
		});
	});
});

describe('explicit mapping', () => {
	const body = {
		data: {
			id: 'deal-77',
			attributes: { work_email: 'l@corp.example', mobile: '+14155550104', stage: 'won' },
		},
		email: 'personal@example.com',
		amount: '1200.50',
	};

	it('overrides detection for the mapped fields and leaves the rest to detection', () => {
		const result = record(body, {
			mapping: {
				'contact.email': 'data.attributes.work_email',
				'value.amount': 'amount',
				'value.currency': 'missing.path',
				'attributes.stage': 'data.attributes.stage',
			},
		});
		expect(result).toMatchObject({
			record_id: 'deal-77',
			contact: { email: 'l@corp.example' },
			value: { amount: '1200.50' },
			attributes: { stage: 'won' },
		});
		expect(result.value).toEqual({ amount: '1200.50' });
		expect(result.attributes).not.toHaveProperty('amount');
	});

	it('an entry whose path is absent removes the field rather than falling back', () => {
		const result = capture(body, {
			mapping: {
				'contact.email': 'data.attributes.nothing',
				'contact.phone': 'data.attributes.mobile',
			},
		});
		expect(result).toMatchObject({
			kind: 'accepted',
			record: { contact: { phone: '+14155550104' } },
		});
		expect((result as { record: LeadRecord }).record.contact).not.toHaveProperty('email');
	});

	it('maps record_id and indexes arrays', () => {
		const result = record(
			{ items: [{ ref: 'order-1' }], customer: { email: 'm@example.com' } },
			{ mapping: { record_id: 'items.0.ref' } },
		);
		expect(result.record_id).toBe('order-1');
	});

	it('warns about targets that are not lead record fields', () => {
		expect(
			capture(
				{ id: 'L', email: 'a@example.com', x: 1 },
				{ mapping: { 'contact.shoe_size': 'x', state: 'x' } },
			),
		).toMatchObject({
			kind: 'accepted',
			warnings: [
				'mapping: "contact.shoe_size" is not a lead record field',
				'mapping: state comes from the State setting; the "state" entry was ignored',
			],
		});
	});
});

describe('record id field and state field', () => {
	it('reads the record id from the configured path', () => {
		expect(
			record(
				{ id: 'ignored', data: { lead: { key: 'LK-1' } }, email: 'a@example.com' },
				{ recordIdField: 'data.lead.key' },
			).record_id,
		).toBe('LK-1');
	});

	it('a configured path with nothing there is no usable record id', () => {
		expect(
			capture({ id: 'x', email: 'a@example.com' }, { recordIdField: 'data.lead.key' }),
		).toEqual({
			kind: 'rejected',
			status: 422,
			reason: 'no usable record id: data.lead.key is missing, empty or not text',
		});
	});

	it.each<[unknown, string]>([
		['Schedule', 'schedule'],
		[' purchase ', 'purchase'],
	])('state from a field: %j → %s', (value, expected) => {
		const result = record(
			{ id: 'L', email: 'a@example.com', stage: value },
			{ state: { from: 'field', field: 'stage' } },
		);
		expect(result.state).toBe(expected);
		expect(result.attributes).toBeUndefined();
	});

	it('a state field without a lead state is a 422', () => {
		expect(
			capture(
				{ id: 'L', email: 'a@example.com', stage: 'won' },
				{ state: { from: 'field', field: 'stage' } },
			),
		).toEqual({
			kind: 'rejected',
			status: 422,
			reason:
				'state: the field "stage" holds no lead state (partial, lead, contact, schedule, registration, purchase)',
		});
	});

	it('the state field is not read as a region', () => {
		const result = record(
			{ id: 'L', email: 'a@example.com', state: 'contact' },
			{ state: { from: 'field', field: 'state' } },
		);
		expect(result).toMatchObject({ state: 'contact' });
		expect(result.contact).toEqual({ email: 'a@example.com' });
	});
});

describe('record checks', () => {
	it('no record id anywhere (derivation off) is a 422 naming the keys looked for', () => {
		expect(capture({ email: 'a@example.com' })).toEqual({
			kind: 'rejected',
			status: 422,
			reason:
				'no usable record id: no id field found (looked for record_id, submission_id, response_id, lead_id, entry_id, uuid, id); set the record id field or turn on record id derivation',
		});
	});

	it.each<[string, object]>([
		['nothing at all', { id: 'L' }],
		['an invalid email only', { id: 'L', email: 'not-an-email' }],
		['a phone without country, no default', { id: 'L', phone: '555 0100' }],
		['a click id without IP and user agent', { id: 'L', gclid: 'Cj0' }],
	])('no identity with %s is a 422', (_case, body) => {
		expect(processCapture(request(body, {}, undefined), config('generic'), NOW)).toEqual({
			kind: 'rejected',
			status: 422,
			reason:
				'no identity: a lead needs an email or a phone number (or a click id with IP and user agent)',
		});
	});

	it('a national phone number counts with the default country', () => {
		expect(capture({ id: 'L', phone: '(415) 555-0100' }, { defaultCountry: 'US' }).kind).toBe(
			'accepted',
		);
		expect(capture({ id: 'L', phone: '(415) 555-0100', country: 'United States' }).kind).toBe(
			'accepted',
		);
	});

	it('a click id with the visitor’s IP and user agent is identity enough', () => {
		const outcome = processCapture(
			request({ id: 'L', gclid: 'Cj0KCQ' }, { 'user-agent': 'Mozilla/5.0' }, '203.0.113.50'),
			config('generic'),
			NOW,
		);
		expect(outcome).toMatchObject({
			kind: 'accepted',
			record: {
				click: { gclid: 'Cj0KCQ' },
				client: { ip: '203.0.113.50', user_agent: 'Mozilla/5.0' },
			},
		});
	});

	it('warns about an invalid email without echoing it, and keeps the raw value', () => {
		const outcome = capture({ id: 'L', email: 'jane@@example', phone: '+14155550105' });
		expect(outcome).toMatchObject({
			kind: 'accepted',
			record: { contact: { email: 'jane@@example', phone: '+14155550105' } },
			warnings: ['contact.email: not a valid address (more than one @)'],
		});
		expect(JSON.stringify((outcome as { warnings: string[] }).warnings)).not.toContain('jane');
	});
});
