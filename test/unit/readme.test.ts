import fs from 'node:fs';
import path from 'node:path';
import { PLATFORM_ADAPTERS } from '../../shared/platforms';
import { LEAD_STATES } from '../../shared/types';

/** The README's event-name table is the one users read: it must say what the code does. */
describe('README event-name table', () => {
	const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
	const order = ['meta', 'pinterest', 'tiktok', 'google', 'microsoft'] as const;

	it.each(LEAD_STATES.map((state) => [state]))('row %s matches every adapter', (state) => {
		const row = `| \`${state}\` | ${order.map((p) => `\`${PLATFORM_ADAPTERS[p].eventNameByState[state]}\``).join(' | ')} |`;
		expect(readme).toContain(row);
	});

	it('never gives a partial lead the name of a completed lead', () => {
		for (const platform of order) {
			const names = PLATFORM_ADAPTERS[platform].eventNameByState;
			expect([platform, names.partial === names.lead]).toEqual([platform, false]);
		}
	});
});
