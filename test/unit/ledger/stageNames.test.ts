import fc from 'fast-check';

import { assessStage, ledgerWriteFor, parseLedger } from '../../../shared/ledger';
import { withLedgerFacts } from '../../../shared/rules/stage';

/** Names that are special on a JavaScript object: a stage may be called any of them. */
export const ODD_STAGE_NAMES = [
	'__proto__',
	'constructor',
	'toString',
	'hasOwnProperty',
	'valueOf',
	'isPrototypeOf',
	'propertyIsEnumerable',
	'toLocaleString',
	'__defineGetter__',
	'__lookupSetter__',
	'prototype',
	'length',
	'then',
];

/** The ledger hash after one sent stage, as Redis keeps it (HSET + HSETNX of the write's fields). */
function storedAfter(stage: string, at = 2_000): Record<string, string> {
	const write = ledgerWriteFor({
		key: 'k',
		gateKey: 'g',
		ttlMs: 1,
		record: { record_id: 'deal-1', stage },
		eventName: stage,
		eventId: 'e1',
		eventTime: at,
	});
	return Object.fromEntries([
		...Object.entries(write.setIfAbsent),
		...Object.entries(write.set),
	]);
}

describe('any string is a stage name the ledger records', () => {
	it.each(ODD_STAGE_NAMES)('a stage named %s is recorded, read back and not sent again', (name) => {
		const entry = parseLedger(storedAfter(name));
		expect(Object.keys(entry!.stages)).toEqual([name]);
		expect(Object.prototype.hasOwnProperty.call(entry!.stages, name)).toBe(true);
		expect(entry!.stages[name]).toBe(2_000);
		expect(assessStage(entry, name, 3_000)).toEqual({ alreadySent: true, warnings: [] });
	});

	it.each(ODD_STAGE_NAMES)('a lead with no stage %s yet is not told it was sent', (name) => {
		const entry = parseLedger(storedAfter('Lead'));
		expect(assessStage(entry, name, 3_000).alreadySent).toBe(false);
		expect(entry!.stages[name]).toBeUndefined();
	});

	it('an odd stage sent before is the next stage’s previous stage', () => {
		const entry = parseLedger(storedAfter('__proto__'));
		expect(withLedgerFacts({ record_id: 'deal-1', stage: 'won' }, entry)).toMatchObject({
			previous_stage: '__proto__',
		});
	});

	it('property: every stage name sent is recorded and assessed as sent; others are not', () => {
		const name = fc.oneof(
			fc.constantFrom(...ODD_STAGE_NAMES),
			fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
		);
		fc.assert(
			fc.property(name, name, (sent, other) => {
				const entry = parseLedger(storedAfter(sent));
				expect(Object.keys(entry!.stages)).toEqual([sent]);
				expect(assessStage(entry, sent, 3_000).alreadySent).toBe(true);
				const same = other.trim().toLowerCase() === sent.trim().toLowerCase();
				expect(assessStage(entry, other, 3_000).alreadySent).toBe(same);
			}),
			{ numRuns: 500 },
		);
	});
});
