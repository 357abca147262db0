import { processCapture } from '../../../shared/capture';
import { config, fixtureBytes, NOW, request, SECRET, sign } from './helpers';

const event = (overrides: Record<string, unknown> = {}) => ({
	eventId: 1,
	subscriptionId: 2,
	portalId: 62515,
	appId: 54321,
	occurredAt: NOW - 60_000,
	subscriptionType: 'deal.propertyChange',
	attemptNumber: 0,
	objectId: 123,
	propertyName: 'dealstage',
	propertyValue: 'qualifiedtobuy',
	changeSource: 'CRM_UI',
	...overrides,
});
const capture = (body: unknown, headers = {}, overrides = {}) =>
	processCapture(request(JSON.stringify(body), headers), config('hubspot', overrides), NOW);

describe('HubSpot preset: deal stage and lifecycle stage changes', () => {
	it('a deal stage change is a stage of the lead: record_id = objectId, stage, stage_at, no identity needed', () => {
		const outcome = processCapture(request(fixtureBytes('hubspot-deal-stage.json')), config('hubspot'), NOW);
		expect(outcome).toMatchObject({
			kind: 'accepted',
			record: {
				record_id: '6355821024',
				state: 'lead',
				stage: 'closedwon',
				stage_at: 1780000000000,
				source: { kind: 'hubspot' },
				attributes: {
					hubspot_object: 'deal',
					hubspot_property: 'dealstage',
					hubspot_portal_id: '27356661',
					hubspot_change_source: 'CRM_UI',
				},
			},
		});
	});

	it('a contact lifecycle stage change (legacy and generic object.* subscription types)', () => {
		for (const subscriptionType of ['contact.propertyChange', 'object.propertyChange']) {
			const outcome = capture([
				event({ subscriptionType, propertyName: 'lifecyclestage', propertyValue: 'salesqualifiedlead', objectId: 901 }),
			]);
			expect(outcome).toMatchObject({
				kind: 'accepted',
				record: { record_id: '901', stage: 'salesqualifiedlead', attributes: { hubspot_object: 'contact' } },
			});
		}
	});

	it('other events are ignored (200, no record); a property that is not a stage too', () => {
		expect(capture([event({ subscriptionType: 'contact.creation', propertyName: undefined })])).toMatchObject({
			kind: 'ignored',
			status: 200,
		});
		expect(capture([event({ propertyName: 'amount', propertyValue: '100' })]).kind).toBe('ignored');
		// A deal property on a contact subscription is not a stage change.
		expect(capture([event({ subscriptionType: 'contact.propertyChange' })]).kind).toBe('ignored');
	});

	it('a batch of several stage changes: the latest is captured and the others are named in a warning', () => {
		const outcome = capture([
			event({ objectId: 1, occurredAt: NOW - 5_000, propertyValue: 'appointmentscheduled' }),
			event({ objectId: 2, occurredAt: NOW - 1_000, propertyValue: 'closedlost' }),
		]);
		expect(outcome).toMatchObject({ kind: 'accepted', record: { record_id: '2', stage: 'closedlost' } });
		expect(outcome.kind === 'accepted' && outcome.warnings).toContain(
			'this HubSpot batch carried 2 stage changes: the latest (object 2) was captured, 1 not',
		);
	});

	it('a body that is not HubSpot’s array of events is refused with the reason', () => {
		expect(capture({ hello: 'world' })).toMatchObject({
			kind: 'rejected',
			status: 400,
			reason: 'malformed HubSpot body: no events array',
		});
	});

	it('verifies the v1 signature (SHA-256 of client secret + body); a wrong or missing one is 401', () => {
		const body = Buffer.from(JSON.stringify([event()]));
		const signed = { signature: { kind: 'preset' as const, secret: SECRET } };
		const run = (headers: Record<string, string>) =>
			processCapture(request(body, headers), config('hubspot', signed), NOW);
		expect(run(sign.hubspot(body)).kind).toBe('accepted');
		expect(run(sign.hubspot(body, 'someone-else'))).toMatchObject({
			kind: 'rejected',
			status: 401,
			reason: 'signature does not match',
		});
		expect(run({})).toMatchObject({ status: 401, reason: 'missing X-HubSpot-Signature signature' });
		expect(run({ ...sign.hubspot(body), 'x-hubspot-signature-version': 'v3' })).toMatchObject({
			status: 401,
			reason: 'unsupported X-HubSpot-Signature-Version "v3" (v1 expected)',
		});
	});
});
