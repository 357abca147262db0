import { processCapture } from '../../../shared/capture';
import { config, NOW, request } from './helpers';

/**
 * JSON bodies may carry `__proto__`, `constructor` and `prototype` as their own keys (JSON.parse
 * makes them own properties). Found by the property tests (test/property/capture.test.ts): such
 * keys reached the record's attributes, where `record.attributes.constructor` was a list.
 */
const lead = { id: 'sub_1', email: 'robin@example.com' };

describe('prototype keys in a generic JSON body', () => {
	it.each([
		[
			'nested under a root object',
			'{"id":"sub_1","email":"robin@example.com","meta":{"constructor":["x"],"prototype":"y","__proto__":["z"],"kept":"k"}}',
		],
		[
			'at the root',
			'{"id":"sub_1","email":"robin@example.com","constructor":"x","prototype":"y","__proto__":["z"],"kept":"k"}',
		],
	])('%s: never become record keys, and the record stays a plain object', (_case, body) => {
		const outcome = processCapture(request(body), config('generic'), NOW);
		expect(outcome.kind).toBe('accepted');
		if (outcome.kind !== 'accepted') return;
		const attributes = outcome.record.attributes as Record<string, unknown>;
		expect(Object.keys(attributes)).toEqual(['kept']);
		expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
		expect(attributes.constructor).toBe(Object);
	});

	it('a mapping onto attributes.__proto__ or attributes.constructor is ignored', () => {
		const outcome = processCapture(
			request({ ...lead, list: ['a', 'b'], note: 'n' }),
			config('generic', {
				mapping: { 'attributes.__proto__': 'list', 'attributes.constructor': 'list' },
			}),
			NOW,
		);
		expect(outcome.kind).toBe('accepted');
		if (outcome.kind !== 'accepted') return;
		const attributes = outcome.record.attributes as Record<string, unknown>;
		expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
		expect(Object.keys(attributes)).toEqual(['note']);
	});
});
