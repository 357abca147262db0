import { processCapture, type CaptureOutcome } from '../../../shared/capture';
import type { LeadRecord } from '../../../shared/types';
import { config, fixtureBytes, fixtureJson, NOW, request, SECRET, sign } from './helpers';

const preset = { kind: 'preset', secret: SECRET } as const;

/** Form tools call from their own servers: their address and User-Agent are not the visitor's. */
const PROVIDER_REQUEST = { 'user-agent': 'Typeform Webhooks' };

function accepted(outcome: CaptureOutcome): LeadRecord {
	if (outcome.kind !== 'accepted')
		throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
	return outcome.record;
}

describe('presets map a signed delivery to the canonical record', () => {
	it('Typeform form_response', () => {
		const body = fixtureBytes('typeform-form-response.json');
		const outcome = processCapture(
			request(body, { ...sign.typeform(body), ...PROVIDER_REQUEST }),
			config('typeform', { signature: preset }),
			NOW,
		);
		expect(outcome).toEqual({
			kind: 'accepted',
			warnings: [],
			record: {
				record_id: 'a3a12ec67a1365927098a606107fac15',
				state: 'lead',
				occurred_at: '2026-03-02T09:54:43.000Z',
				source: { kind: 'typeform', form_id: 'lT4Z3j' },
				contact: {
					email: 'Ada.Lovelace@Example.com',
					phone: '+14155550132',
					first_name: 'Ada',
					last_name: 'Lovelace',
				},
				click: { fbclid: 'IwAR2F4-Zq8kExampleFbclid' },
				attributes: {
					company: 'Analytical Engines Ltd',
					plan: 'Business',
					utm_source: 'facebook',
					utm_campaign: 'spring-webinar',
					score: 7,
					tier: 'gold',
				},
			},
		});
	});

	it('Tally FORM_RESPONSE', () => {
		const body = fixtureBytes('tally-form-response.json');
		const outcome = processCapture(
			request(body, sign.tally(body)),
			config('tally', { signature: preset }),
			NOW,
		);
		expect(outcome).toEqual({
			kind: 'accepted',
			warnings: [],
			record: {
				record_id: '2wgx4n',
				state: 'lead',
				occurred_at: '2026-03-02T09:58:11.000Z',
				source: { kind: 'tally', form_id: 'VwbNEw' },
				contact: {
					email: 'greta@example.de',
					phone: '+49 1511 1112233',
					first_name: 'Greta',
					last_name: 'Hoffmann',
				},
				click: { gclid: 'Cj0KCQiA-example-gclid' },
				attributes: {
					form_name: 'Lead Generation Form',
					'Company size': '11-50',
					utm_source: 'google',
					utm_medium: 'cpc',
				},
			},
		});
	});

	it('Calendly invitee.created → schedule', () => {
		const body = fixtureBytes('calendly-invitee-created.json');
		const outcome = processCapture(
			request(body, sign.calendly(body)),
			config('calendly', { signature: preset }),
			NOW,
		);
		expect(outcome).toEqual({
			kind: 'accepted',
			warnings: [],
			record: {
				record_id:
					'https://api.calendly.com/scheduled_events/CCCCCCCCCCCCCCCC/invitees/EEEEEEEEEEEEEEEE',
				state: 'schedule',
				occurred_at: '2026-03-02T09:59:29.000Z',
				source: {
					kind: 'calendly',
					form_id: 'https://api.calendly.com/event_types/DDDDDDDDDDDDDDDD',
				},
				contact: {
					email: 'jordan.rivera@example.com',
					phone: '+1 415-555-0173',
					first_name: 'Jordan',
					last_name: 'Rivera',
				},
				attributes: {
					company: 'Rivera Roofing',
					'How many employees?': '50-200',
					utm_campaign: 'roofers-q1',
					utm_source: 'facebook',
					utm_medium: 'paid_social',
					scheduled_start: '2026-03-05T16:00:00.000000Z',
					event_name: '30 Minute Discovery Call',
					timezone: 'America/Los_Angeles',
				},
			},
		});
	});

	it('Cal.com BOOKING_CREATED → schedule', () => {
		const body = fixtureBytes('calcom-booking-created.json');
		const outcome = processCapture(
			request(body, sign.calcom(body)),
			config('calcom', { signature: preset }),
			NOW,
		);
		expect(outcome).toEqual({
			kind: 'accepted',
			warnings: [],
			record: {
				record_id: 'bFJeNb2uX8ANpT3JL5EfXw',
				state: 'schedule',
				occurred_at: '2026-03-02T10:01:05.123Z',
				source: { kind: 'calcom', form_id: '1127' },
				contact: {
					email: 'priya.shah@example.co.uk',
					phone: '+447911123456',
					first_name: 'Priya',
					last_name: 'Shah',
				},
				attributes: {
					'company-size': '11-50',
					utm_source: 'linkedin',
					utm_campaign: 'founders',
					scheduled_start: '2026-03-06T14:00:00Z',
					timezone: 'Europe/London',
				},
			},
		});
	});
});

describe('events that are not captured answer 200 without a record', () => {
	const withField = (name: string, field: string, value: unknown) => ({
		...fixtureJson(name),
		[field]: value,
	});

	it.each<[string, 'typeform' | 'tally' | 'calendly' | 'calcom', object, string]>([
		[
			'Calendly invitee.canceled',
			'calendly',
			fixtureJson('calendly-invitee-canceled.json'),
			'calendly event "invitee.canceled" is not captured (only invitee.created)',
		],
		[
			'a Calendly no-show',
			'calendly',
			withField('calendly-invitee-created.json', 'event', 'invitee_no_show.created'),
			'calendly event "invitee_no_show.created" is not captured (only invitee.created)',
		],
		[
			'Cal.com BOOKING_CANCELLED',
			'calcom',
			withField('calcom-booking-created.json', 'triggerEvent', 'BOOKING_CANCELLED'),
			'cal.com triggerEvent "BOOKING_CANCELLED" is not captured (only BOOKING_CREATED)',
		],
		[
			'Cal.com MEETING_ENDED',
			'calcom',
			withField('calcom-booking-created.json', 'triggerEvent', 'MEETING_ENDED'),
			'cal.com triggerEvent "MEETING_ENDED" is not captured (only BOOKING_CREATED)',
		],
		[
			'a Typeform event that is not a response',
			'typeform',
			withField('typeform-form-response.json', 'event_type', 'form_response_partial'),
			'typeform event_type "form_response_partial" is not captured',
		],
		[
			'a Typeform body without an event type',
			'typeform',
			withField('typeform-form-response.json', 'event_type', undefined),
			'typeform event_type none is not captured',
		],
		[
			'a Tally event that is not a response',
			'tally',
			withField('tally-form-response.json', 'eventType', 'FORM_UPDATED'),
			'tally eventType "FORM_UPDATED" is not captured',
		],
	])('%s', (_case, source, body, reason) => {
		const raw = Buffer.from(JSON.stringify(body));
		const outcome = processCapture(
			request(raw, sign[source](raw)),
			config(source, { signature: preset }),
			NOW,
		);
		expect(outcome).toEqual({ kind: 'ignored', status: 200, reason });
	});

	it('verifies the signature before ignoring: an unsigned cancel is still a 401', () => {
		const raw = fixtureBytes('calendly-invitee-canceled.json');
		expect(processCapture(request(raw), config('calendly', { signature: preset }), NOW)).toEqual({
			kind: 'rejected',
			status: 401,
			reason: 'missing Calendly-Webhook-Signature header',
		});
	});
});

describe('preset details', () => {
	const run = (source: 'typeform' | 'tally' | 'calendly' | 'calcom', body: object, extra = {}) =>
		processCapture(request(body, PROVIDER_REQUEST, '203.0.113.9'), config(source, extra), NOW);

	it('never takes a form tool server’s address or User-Agent as the visitor’s', () => {
		const record = accepted(run('typeform', fixtureJson('typeform-form-response.json')));
		expect(record.client).toBeUndefined();
	});

	it('Tally: falls back to submissionId when responseId is blank', () => {
		const body = fixtureJson('tally-form-response.json') as { data: Record<string, unknown> };
		body.data = { ...body.data, responseId: '' };
		expect(accepted(run('tally', body)).record_id).toBe('2wgx4n');
	});

	it('Calendly: a reschedule is a new booking marked rescheduled', () => {
		const body = fixtureJson('calendly-invitee-created.json') as {
			payload: Record<string, unknown>;
		};
		body.payload = {
			...body.payload,
			old_invitee: 'https://api.calendly.com/scheduled_events/OLD/invitees/OLD',
		};
		expect(accepted(run('calendly', body)).attributes).toMatchObject({ rescheduled: true });
	});

	it('Cal.com: a split name response and a phone only in the responses', () => {
		const body = fixtureJson('calcom-booking-created.json') as { payload: Record<string, unknown> };
		body.payload = {
			...body.payload,
			attendees: [{ email: 'lee@example.com', name: '', timeZone: 'UTC' }],
			responses: {
				name: { value: { firstName: 'Lee', lastName: 'Van Cleef' } },
				attendeePhoneNumber: { value: '+14155550199' },
			},
		};
		expect(accepted(run('calcom', body)).contact).toEqual({
			email: 'lee@example.com',
			phone: '+14155550199',
			first_name: 'Lee',
			last_name: 'Van Cleef',
		});
	});

	it('Typeform: a typed email answer beats a hidden email; a hidden landing page gives click ids', () => {
		const body = fixtureJson('typeform-form-response.json') as {
			form_response: Record<string, unknown>;
		};
		body.form_response = {
			...body.form_response,
			hidden: {
				email: 'prefilled@example.com',
				landing_page: 'https://example.com/lp?ttclid=TT-9&utm_term=roof',
			},
		};
		expect(accepted(run('typeform', body))).toMatchObject({
			contact: { email: 'Ada.Lovelace@Example.com' },
			click: { ttclid: 'TT-9' },
			source: { page_url: 'https://example.com/lp?ttclid=TT-9&utm_term=roof' },
			attributes: { utm_term: 'roof' },
		});
	});

	it('Tally: a typed email input counts whatever its label says', () => {
		const body = fixtureJson('tally-form-response.json') as { data: { fields: object[] } };
		body.data.fields = [
			{ key: 'q1', label: 'Email (kept secret)', type: 'INPUT_EMAIL', value: 'x@example.com' },
		];
		expect(accepted(run('tally', body)).contact).toEqual({ email: 'x@example.com' });
	});

	it('Typeform: no token is no usable record id', () => {
		const body = fixtureJson('typeform-form-response.json') as {
			form_response: Record<string, unknown>;
		};
		body.form_response = { ...body.form_response, token: undefined };
		expect(run('typeform', body)).toEqual({
			kind: 'rejected',
			status: 422,
			reason: 'no usable record id: form_response.token is missing, empty or not text',
		});
	});

	it.each<['typeform' | 'tally' | 'calendly' | 'calcom', string]>([
		['typeform', 'malformed Typeform body: form_response is not an object'],
		['calendly', 'malformed Calendly body: payload is not an object'],
		['calcom', 'malformed Cal.com body: payload is not an object'],
		['tally', 'malformed Tally body: data is not an object'],
	])('%s: a body of the right event without its object is a 400', (source, reason) => {
		const bodies = {
			typeform: { event_type: 'form_response', form_response: 'x' },
			calendly: { event: 'invitee.created', payload: [] },
			calcom: { triggerEvent: 'BOOKING_CREATED' },
			tally: { eventType: 'FORM_RESPONSE', data: null },
		};
		expect(run(source, bodies[source])).toEqual({ kind: 'rejected', status: 400, reason });
	});

	it('uses the node’s form id when the body has none', () => {
		const body = fixtureJson('calendly-invitee-created.json') as {
			payload: Record<string, unknown>;
		};
		body.payload = { ...body.payload, scheduled_event: {} };
		expect(accepted(run('calendly', body, { formId: 'discovery-call' })).source).toEqual({
			kind: 'calendly',
			form_id: 'discovery-call',
		});
	});

	it('honours a fixed state over the preset', () => {
		const record = accepted(
			run('calcom', fixtureJson('calcom-booking-created.json'), {
				state: { from: 'fixed', value: 'contact' },
			}),
		);
		expect(record.state).toBe('contact');
	});
});
