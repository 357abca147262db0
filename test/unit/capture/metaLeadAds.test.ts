import { readLeadRecord } from '../../../shared/capture/input';

const base = {
	id: '987654321098765',
	form: { id: '111', name: 'Form' },
	ad: { id: '222', name: 'Ad' },
	adset: { id: '333', name: 'Adset' },
	page: { id: '444' },
	created_time: '2026-11-30T10:00:00+0000',
};

describe("n8n's Facebook Lead Ads Trigger output read as a lead record", () => {
	it.each([
		[
			'simplified',
			{
				...base,
				data: {
					email: 'a@example.com',
					phone_number: '+4915112345678',
					zip_code: '10115',
					q1: 'yes',
				},
			},
		],
		[
			'raw',
			{
				...base,
				field_data: [
					{ name: 'email', values: ['a@example.com'] },
					{ name: 'phone_number', values: ['+4915112345678'] },
					{ name: 'zip_code', values: ['10115'] },
					{ name: 'q1', values: ['yes'] },
				],
				event: { leadgen_id: '987654321098765' },
			},
		],
	])('%s output: contact, lead id, creation time and form', (_label, item) => {
		expect(readLeadRecord(item)).toEqual({
			record_id: '987654321098765',
			state: 'lead',
			occurred_at: '2026-11-30T10:00:00+0000',
			source: { kind: 'metaLeadAds', form_id: '111' },
			contact: { email: 'a@example.com', phone: '+4915112345678', postal_code: '10115' },
			attributes: {
				meta_lead_id: '987654321098765',
				q1: 'yes',
				meta_form_name: 'Form',
				meta_ad_id: '222',
				meta_adset_id: '333',
				meta_page_id: '444',
			},
		});
	});

	it('leaves canonical lead records and other objects as they are', () => {
		const record = { record_id: 'x', contact: { email: 'a@example.com' } };
		expect(readLeadRecord(record)).toBe(record);
		const notALead = { id: 'abc', created_time: 'x', form: {}, data: {} };
		expect(readLeadRecord(notALead)).toBe(notALead);
	});

	it('finds the trigger item under a record field path too', () => {
		const item = { body: { ...base, data: { email: 'b@example.com' } } };
		expect(readLeadRecord(item, 'body')).toMatchObject({ record_id: '987654321098765' });
	});
});
