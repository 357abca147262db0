import { captureLogKey } from '../../../shared/captureLog';
import { statsBucket, workflowDestinationMarks, workflowScope } from '../../../shared/stats';

const NOW = Date.parse('2026-03-02T10:20:00Z');

describe('per-workflow scopes', () => {
	it('a workflow scope sits beside, not under, the destinations counters and client prefixes', () => {
		expect(workflowScope('leadcapi', 'Ab3xYz09')).toBe('leadcapi:workflow:Ab3xYz09');
		// Anything that could break the key layout (or glob a SCAN) is replaced.
		expect(workflowScope('leadcapi', 'a:b*{c}')).toBe('leadcapi:workflow:a_b__c_');
		expect(workflowScope('leadcapi', '')).toBe('leadcapi:workflow:_');
	});

	it('one mark per destination a run dispatched to, counting its items, in the hour bucket', () => {
		const results = [
			{ platform: 'meta' as const, destination: 'PX1' },
			{ platform: 'meta' as const, destination: 'PX1' },
			{ platform: 'tiktok' as const, destination: 'PX1' },
			{ platform: 'meta' as const, destination: '' },
		];
		expect(workflowDestinationMarks('p:workflow:w1', results, NOW)).toEqual([
			{ key: `p:workflow:w1:stats:meta:PX1:${statsBucket(NOW)}`, platform: 'meta', destination: 'PX1', increments: { items: 2 }, ttlMs: 49 * 3_600_000 },
			{ key: `p:workflow:w1:stats:tiktok:PX1:${statsBucket(NOW)}`, platform: 'tiktok', destination: 'PX1', increments: { items: 1 }, ttlMs: 49 * 3_600_000 },
		]);
		expect(workflowDestinationMarks('p:workflow:w1', results.slice(0, 1), NOW, { hashTag: true })[0].key).toBe(
			`p:workflow:w1:stats:meta:{PX1}:${statsBucket(NOW)}`,
		);
	});

	it('capture log keys: one per workflow and name; the same name in two workflows is two logs', () => {
		expect(captureLogKey('leadcapi', 'lead-capture', 'wfA')).toBe('leadcapi:capturelog:wfA:lead-capture');
		expect(captureLogKey('leadcapi', 'lead-capture', 'wfB')).not.toBe(captureLogKey('leadcapi', 'lead-capture', 'wfA'));
		expect(captureLogKey('leadcapi:acme', 'lead-capture', 'wfA')).toBe('leadcapi:acme:capturelog:wfA:lead-capture');
		expect(captureLogKey('', 'site')).toBe('leadcapi:capturelog:site');
	});
});
