/**
 * Every template in examples/ imports into `npm run dev` (and a user's n8n) without a dangling
 * reference: each credential it names is one `npm run dev` creates (scripts/n8n/demo.js), each
 * of our node types exists at the version the template names, and every webhook trigger has a
 * webhook id of its own. The end-to-end suite then runs them live.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { INodeType } from 'n8n-workflow';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DEMO } = require('../../scripts/n8n/demo.js') as { DEMO: Record<string, { id: string; name: string }> };

interface TemplateNode {
	name: string;
	type: string;
	typeVersion: number;
	webhookId?: string;
	credentials?: Record<string, { id: string; name: string }>;
}

const ROOT = path.join(__dirname, '..', '..');
const EXAMPLES = path.join(ROOT, 'examples');
const TEMPLATES = fs
	.readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.map((file) => [file, JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as { nodes: TemplateNode[] }] as const);

/** Our node types by name, with the versions each one accepts. */
const OUR_NODES = new Map<string, number[]>(
	fs.readdirSync(path.join(ROOT, 'nodes')).flatMap((dir) => {
		const file = path.join(ROOT, 'nodes', dir, `${dir}.node.ts`);
		if (!fs.existsSync(file)) return [];
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(file) as Record<string, new () => INodeType>;
		const node = new (Object.values(exported)[0])();
		const version = node.description.version;
		return [[node.description.name, Array.isArray(version) ? version : [version]] as const];
	}),
);

describe('templates import cleanly', () => {
	it('finds the stage templates', () => {
		expect(TEMPLATES.map(([file]) => file)).toEqual(
			expect.arrayContaining(['hubspot-deal-stages-meta-crm-google-adjust.json', 'meta-lead-ads-stage-events.json']),
		);
	});

	it.each(TEMPLATES)('%s: every credential is one npm run dev creates', (_, workflow) => {
		const known = new Set(Object.values(DEMO).map((c) => `${c.id}|${c.name}`));
		const missing = workflow.nodes.flatMap((n) =>
			Object.values(n.credentials ?? {})
				.map((c) => `${c.id}|${c.name}`)
				.filter((ref) => !known.has(ref))
				.map((ref) => `${n.name}: ${ref}`),
		);
		expect(missing).toEqual([]);
	});

	it.each(TEMPLATES)('%s: each of our nodes exists at the version named; webhook triggers have a webhook id', (_, workflow) => {
		const problems = workflow.nodes.flatMap((n) => {
			if (!n.type.startsWith('n8n-nodes-lead-capi.')) return [];
			const versions = OUR_NODES.get(n.type.slice('n8n-nodes-lead-capi.'.length));
			if (!versions) return [`${n.name}: no node type ${n.type}`];
			if (!versions.includes(n.typeVersion)) return [`${n.name}: ${n.type} has no version ${n.typeVersion}`];
			if (n.type.endsWith('.leadCaptureTrigger') && !n.webhookId) return [`${n.name}: no webhookId`];
			return [];
		});
		expect(problems).toEqual([]);
	});
});
