import * as vm from 'node:vm';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generateLeads } = require('../../../bench/lib/leads.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeLeadsNode } = require('../../../bench/n8n/workflows.js');

/**
 * The n8n bench pastes `generateLeads`' source into a Code node, which runs it in a sandbox of its
 * own: anything it reads from its module (a helper beside it) is undefined there, and the bench
 * ends at its warm-up with "… is not defined". Run the pasted source the same way.
 */
describe('bench leads: one generator inside n8n and outside it', () => {
	const options = { idPrefix: 'bench-a', nowMs: Date.UTC(2026, 11, 1) };

	it("the Make Leads Code node runs in an empty context and makes the module's leads", () => {
		const { jsCode } = makeLeadsNode(200, options.nowMs, options.idPrefix).parameters as { jsCode: string };
		const items = vm.runInContext(`(() => {\n${jsCode}\n})()`, vm.createContext({})) as Array<{ json: unknown }>;
		expect(items).toHaveLength(200);
		expect(JSON.parse(JSON.stringify(items.map((i) => i.json)))).toEqual(JSON.parse(JSON.stringify(generateLeads(200, options))));
	});

	it('gives each run its own phone digits and the same mix', () => {
		const phones = (prefix: string) =>
			(generateLeads(500, { ...options, idPrefix: prefix }) as Array<{ contact?: { phone?: string } }>).map((l) => l.contact?.phone ?? '');
		const a = phones('run-a');
		const b = phones('run-b');
		expect(a.filter(Boolean).length).toBe(b.filter(Boolean).length);
		const shared = a.filter((p, i) => p !== '' && p === b[i]).length;
		expect(shared).toBeLessThan(a.filter(Boolean).length / 4);
	});
});
