import { redactForLog } from '../../../shared/captureLog';

/**
 * A name under a key detection does not know — a Typeform answer keyed by its opaque ref when
 * the field cannot be identified, a CRM's `Nachname` — became an attribute and reached the
 * capture log in Redis whole. Found by the Redis scan after the hostile-delivery end-to-end run
 * (`attributes: { "01HV8Q7A1B2C3D4E5F6G7H8J9K": "Lovelace" }`).
 */
describe('capture-log redaction of names among the attributes', () => {
	it("drops an attribute holding a word of the lead's name or email local part, keeps the others", () => {
		const attributes = {
			'01HV8Q7A1B2C3D4E5F6G7H8J9K': 'Lovelace',
			Nachname: 'LOVELACE',
			full: 'Ada Lovelace',
			slug: 'ada-lovelace',
			company: 'Analytical Engines Ltd',
			plan: 'Business',
			lead_type: 'demo',
		};
		const redacted = redactForLog(
			{ contact: { email: ' Ada.Lovelace@Example.com ', first_name: 'Ada' }, attributes },
			{ attributes: Object.keys(attributes) },
		);
		// company is free text (spaces): not a token, not kept either.
		expect(redacted.attributes).toEqual({ plan: 'Business', lead_type: 'demo' });
	});

	it('reads every value of a multi-valued name or email', () => {
		const redacted = redactForLog(
			{
				contact: { email: ['x@example.com', 'grace.hopper@example.com'], last_name: ['Hopper'] },
				attributes: { a: 'Grace', b: 'hopper', c: 'navy' },
			},
			{ attributes: ['a', 'b', 'c'] },
		);
		expect(redacted.attributes).toEqual({ c: 'navy' });
	});
});
