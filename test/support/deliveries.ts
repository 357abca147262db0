import { createHmac } from 'node:crypto';

/**
 * Webhook deliveries shaped like the real senders', signed like them: for the end-to-end
 * tests that post to a running n8n.
 */

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** A Typeform `form_response` with an email, a first name and a phone answer. */
export function typeformDelivery(options: {
	token: string;
	email: string;
	firstName?: string;
	phone?: string;
	hidden?: Record<string, string>;
}): string {
	const answers: unknown[] = [
		{ type: 'email', email: options.email, field: { id: 'e1', type: 'email', ref: 'email' } },
	];
	if (options.firstName) {
		answers.push({ type: 'text', text: options.firstName, field: { id: 't1', type: 'short_text', ref: 'first_name' } });
	}
	if (options.phone) {
		answers.push({ type: 'phone_number', phone_number: options.phone, field: { id: 'p1', type: 'phone_number', ref: 'phone' } });
	}
	return JSON.stringify({
		event_id: `01E2E${options.token}`,
		event_type: 'form_response',
		form_response: {
			form_id: 'DemoForm',
			token: options.token,
			submitted_at: minutesAgo(1),
			hidden: options.hidden ?? {},
			definition: { id: 'DemoForm', fields: [] },
			answers,
		},
	});
}

/** `Typeform-Signature: sha256=<base64 HMAC-SHA256(secret, body)>`. */
export const typeformSignature = (body: string, secret: string) =>
	`sha256=${createHmac('sha256', secret).update(body).digest('base64')}`;

/** A Cal.com `BOOKING_CREATED` delivery. */
export function calcomBooking(options: { uid: string; email: string; name: string; inHours?: number }): string {
	const start = new Date(Date.now() + (options.inHours ?? 48) * 3_600_000).toISOString();
	return JSON.stringify({
		triggerEvent: 'BOOKING_CREATED',
		createdAt: minutesAgo(1),
		payload: {
			type: '30min',
			title: `Demo call with ${options.name}`,
			startTime: start,
			endTime: start,
			uid: options.uid,
			responses: {
				name: { label: 'your_name', value: options.name },
				email: { label: 'email_address', value: options.email },
			},
			attendees: [{ email: options.email, name: options.name, timeZone: 'Europe/London' }],
			metadata: {},
		},
	});
}

/** `X-Cal-Signature-256: <hex HMAC-SHA256(secret, body)>`. */
export const calcomSignature = (body: string, secret: string) =>
	createHmac('sha256', secret).update(body).digest('hex');

/** A deal-won delivery shaped like a HubSpot workflow webhook with the contact's properties. */
export function hubspotDealWon(options: {
	objectId: number;
	amount: string;
	currency: string;
	email: string;
	phone?: string;
	gclid?: string;
}): string {
	return JSON.stringify({
		objectId: options.objectId,
		properties: {
			dealname: { value: `Deal ${options.objectId}` },
			dealstage: { value: 'closedwon' },
			amount: { value: options.amount },
			deal_currency_code: { value: options.currency },
			closedate: { value: minutesAgo(30) },
		},
		contact: {
			email: options.email,
			phone: options.phone,
			firstname: 'Robin',
			lastname: 'Diaz',
			country: 'US',
			hs_object_id: `contact-${options.objectId}`,
			hs_google_click_id: options.gclid,
		},
	});
}
