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

	it('a batch of several stage changes: each is its own record with its own stage and time, oldest first', () => {
		// HubSpot does not promise time order inside a batch: the records come out by occurredAt.
		const outcome = capture([
			event({ eventId: 11, objectId: 7, occurredAt: NOW - 1_000, propertyValue: 'closedwon' }),
			event({ eventId: 12, objectId: 8, occurredAt: NOW - 9_000, propertyValue: 'appointmentscheduled' }),
			event({ eventId: 13, objectId: 7, occurredAt: NOW - 5_000, propertyValue: 'qualifiedtobuy' }),
			event({ eventId: 14, subscriptionType: 'contact.creation', propertyName: undefined, objectId: 99 }),
		]);
		expect(outcome.kind).toBe('accepted');
		if (outcome.kind !== 'accepted') return;
		expect(outcome.records?.map((r) => [r.record_id, r.stage, r.stage_at, r.attributes?.hubspot_event_id])).toEqual([
			['8', 'appointmentscheduled', NOW - 9_000, '12'],
			['7', 'qualifiedtobuy', NOW - 5_000, '13'],
			['7', 'closedwon', NOW - 1_000, '11'],
		]);
		expect(outcome.record).toBe(outcome.records?.[0]);
		expect(outcome.refused).toBeUndefined();
		expect(outcome.warnings).toEqual([]);
	});

	it('changes at the same time keep the order of the batch; one change is one record (no records list)', () => {
		const same = capture([
			event({ objectId: 1, propertyValue: 'a' }),
			event({ objectId: 2, propertyValue: 'b' }),
			event({ objectId: 3, propertyValue: 'c' }),
		]);
		expect(same.kind === 'accepted' && same.records?.map((r) => r.record_id)).toEqual(['1', '2', '3']);
		const one = capture([event()]);
		expect(one).toMatchObject({ kind: 'accepted', record: { record_id: '123', stage: 'qualifiedtobuy' } });
		expect(one.kind === 'accepted' && one.records).toBeUndefined();
	});

	it('a full batch of 100 events is 100 records', () => {
		const outcome = capture(
			Array.from({ length: 100 }, (_, i) => event({ eventId: i, objectId: 1000 + i, occurredAt: NOW - 100_000 + i })),
		);
		expect(outcome.kind === 'accepted' && outcome.records?.map((r) => r.record_id)).toEqual(
			Array.from({ length: 100 }, (_, i) => String(1000 + i)),
		);
	});

	it('a bad element is refused on its own, named by its position; the other changes are captured', () => {
		const outcome = capture([
			event({ objectId: 1, propertyValue: 'qualifiedtobuy', occurredAt: NOW - 3_000 }),
			'garbage',
			event({ objectId: 2, propertyValue: '   ', occurredAt: NOW - 2_000 }),
			event({ objectId: { nested: true }, propertyValue: 'closedwon', occurredAt: NOW - 1_500 }),
			event({ objectId: 3, propertyValue: 'closedlost', occurredAt: NOW - 1_000 }),
		]);
		expect(outcome.kind).toBe('accepted');
		if (outcome.kind !== 'accepted') return;
		expect(outcome.records?.map((r) => [r.record_id, r.stage])).toEqual([
			['1', 'qualifiedtobuy'],
			['3', 'closedlost'],
		]);
		expect(outcome.refused?.map((r) => [r.index, r.status])).toEqual([
			[1, 400],
			[2, 422],
			[3, 422],
		]);
		expect(outcome.refused?.[0].reason).toBe('not an event object (a string)');
		expect(outcome.refused?.[1].reason).toBe('propertyValue (the stage) is missing or empty');
		expect(outcome.refused?.[2].reason).toMatch(/^no usable record id/);
		expect(outcome.warnings).toEqual([
			'hubspot event 1 left out: not an event object (a string)',
			'hubspot event 2 left out: propertyValue (the stage) is missing or empty',
			expect.stringMatching(/^hubspot event 3 left out: no usable record id/),
		]);
	});

	it('a batch whose every stage change is bad is refused with the first reason; no event objects at all is 400', () => {
		expect(capture([event({ propertyValue: '' }), event({ objectId: null })])).toMatchObject({
			kind: 'rejected',
			status: 422,
			reason: 'hubspot event 0: propertyValue (the stage) is missing or empty',
		});
		expect(capture([1, 'two'])).toMatchObject({
			kind: 'rejected',
			status: 400,
			reason: 'malformed HubSpot body: no event objects in the array',
		});
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
		expect(run({})).toMatchObject({ status: 401, reason: 'missing X-HubSpot-Signature header' });
		expect(run({ ...sign.hubspot(body), 'x-hubspot-signature-version': 'v3' })).toMatchObject({
			status: 401,
			reason: 'unsupported X-HubSpot-Signature-Version "v3" (v1 expected)',
		});
	});
});
