import fc from 'fast-check';

import {
	BROWSER_RECORD_ID_PREFIX,
	CAPTURE_ID_PATTERN,
	processCapture,
	type CaptureConfig,
	type CaptureOutcome,
	type CaptureSource,
} from '../../../shared/capture';
import { deriveEventId } from '../../../shared/events';
import { config, fixtureJson, NOW, request, SECRET, sign } from './helpers';

/** Record ids by origin (docs/lead-record.md#record-ids-by-origin). */
const BEACON = {
	'content-type': 'text/plain;charset=UTF-8',
	'user-agent': 'Mozilla/5.0 Chrome/126',
};

function scriptCapture(captureId: string): CaptureOutcome {
	const body = { ...fixtureJson('script-submit.json'), capture_id: captureId };
	return processCapture(request(body, BEACON, '203.0.113.44'), config('script'), NOW);
}

function serverCapture(
	source: CaptureSource,
	body: object,
	overrides: Partial<CaptureConfig> = {},
): CaptureOutcome {
	return processCapture(request(body), config(source, overrides), NOW);
}

const recordIdOf = (outcome: CaptureOutcome): string | undefined =>
	outcome.kind === 'accepted' ? String(outcome.record.record_id) : undefined;

describe('record ids by origin', () => {
	it("a stranger's capture with a CRM deal's id gets another record id, so another event id", () => {
		const stranger = recordIdOf(scriptCapture('6355821024'));
		const deal = recordIdOf(
			serverCapture('generic', { record_id: '6355821024', email: 'jo@example.com' }),
		);
		expect(stranger).toBe('browser:6355821024');
		expect(deal).toBe('6355821024');
		expect(deriveEventId('px1', 'Lead', stranger!)).not.toBe(deriveEventId('px1', 'Lead', deal!));
	});

	it('the partial and the submit of one form fill still share their record id', () => {
		const partial = processCapture(
			request(fixtureJson('script-partial.json'), BEACON, '203.0.113.44'),
			config('script'),
			NOW,
		);
		const submit = scriptCapture(String(fixtureJson('script-partial.json').capture_id));
		expect(recordIdOf(partial)).toBe(recordIdOf(submit));
		expect(recordIdOf(partial)?.startsWith(BROWSER_RECORD_ID_PREFIX)).toBe(true);
	});

	it.each<[string, object, Partial<CaptureConfig>]>([
		['a generic record_id', { record_id: 'browser:6355821024', email: 'jo@example.com' }, {}],
		[
			'a Record ID Field',
			{ deal: { id: ' browser:abcdefgh ' }, email: 'jo@example.com' },
			{ recordIdField: 'deal.id' },
		],
	])('%s in the browser namespace is refused with the reason (422)', (_case, body, overrides) => {
		const outcome = serverCapture('generic', body, overrides);
		expect(outcome).toEqual({
			kind: 'rejected',
			status: 422,
			reason: expect.stringMatching(
				/^no usable record id: (record_id|deal\.id) starts with "browser:", which only the capture script's ids carry/,
			),
		});
	});

	it('with Derive Record ID When Missing, a browser-namespace id is replaced by the derived one', () => {
		const outcome = serverCapture(
			'generic',
			{ record_id: 'browser:6355821024', email: 'jo@example.com' },
			{ deriveRecordId: true, formId: 'crm' },
		);
		expect(recordIdOf(outcome)).toMatch(/^derived:[0-9a-f]{64}$/);
	});

	it('a signed preset (Typeform) with such an id is refused too', () => {
		const body = fixtureJson('typeform-form-response.json') as {
			form_response: { token: string };
		};
		body.form_response.token = 'browser:c_7Hq2xLm9PzK4';
		const bytes = Buffer.from(JSON.stringify(body));
		const outcome = processCapture(
			request(bytes, sign.typeform(bytes)),
			config('typeform', { signature: { kind: 'preset', secret: SECRET } }),
			NOW,
		);
		expect(outcome).toMatchObject({
			kind: 'rejected',
			status: 422,
			reason: expect.stringContaining('starts with "browser:"'),
		});
	});

	it('property: no capture id a browser can post is a record id a server-side source accepts', () => {
		const captureId = fc.stringMatching(CAPTURE_ID_PATTERN);
		const serverId = fc.oneof(
			captureId,
			captureId.map((id) => `${BROWSER_RECORD_ID_PREFIX}${id}`),
			fc.string({ minLength: 1, maxLength: 120 }),
		);
		fc.assert(
			fc.property(captureId, serverId, (browserId, id) => {
				const browser = recordIdOf(scriptCapture(browserId));
				const server = recordIdOf(
					serverCapture('generic', { record_id: id, email: 'jo@example.com' }),
				);
				expect(browser).toBe(`${BROWSER_RECORD_ID_PREFIX}${browserId}`);
				expect(server === undefined || server !== browser).toBe(true);
				if (id === browserId) expect(server).toBe(browserId);
			}),
			{ numRuns: 300 },
		);
	});
});
