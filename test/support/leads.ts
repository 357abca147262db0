import type { LeadRecord } from '../../shared/types';

/** A realistic completed web lead; `i` makes it unique. */
export function webLead(i: number, overrides: Partial<LeadRecord> = {}): LeadRecord {
	return {
		record_id: `sub_${i}`,
		state: 'lead',
		occurred_at: new Date(Date.now() - 3_600_000).toISOString(),
		source: { kind: 'form', form_id: 'contact-us', page_url: 'https://example.com/pricing?utm_source=fb' },
		contact: {
			email: ` Lead.${i}@Example.com `,
			phone: '(650) 555-1212',
			first_name: 'Mary',
			last_name: "O'Neil",
			city: 'San Francisco',
			region: 'California',
			postal_code: '94105-1234',
			country: 'US',
		},
		click: { fbclid: `IwAR${i}AbCdEf`, fbp: 'fb.1.1596403881668.1116446470' },
		client: {
			ip: '203.0.113.7',
			user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15',
		},
		...overrides,
	};
}

/** A CRM lead: no browser context, phone in national format, another country. */
export function crmLead(i: number, overrides: Partial<LeadRecord> = {}): LeadRecord {
	return {
		record_id: `deal-${i}`,
		state: 'lead',
		occurred_at: new Date(Date.now() - 7_200_000).toISOString(),
		contact: { email: `buyer${i}@example.de`, phone: '030 1234567', country: 'Germany' },
		...overrides,
	};
}
