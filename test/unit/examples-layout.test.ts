/**
 * Every template in examples/ opens on a readable canvas: no two nodes (about 100 × 100 px with
 * their name and subtitle below) close enough for their labels to overlap, no overlapping
 * sticky notes, and n8n's current name for a manual trigger.
 */
import fs from 'node:fs';
import path from 'node:path';

interface TemplateNode {
	name: string;
	type: string;
	position: [number, number];
	parameters: { width?: number; height?: number };
}

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
const TEMPLATES = fs
	.readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.map((file) => {
		const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as {
			nodes: TemplateNode[];
			connections: Record<string, unknown>;
		};
		return [file, workflow] as const;
	});

/** Labels sit below a node: side by side needs this much room, stacked this much. */
const MIN_DX = 200;
const MIN_DY = 160;
const STICKY = 'n8n-nodes-base.stickyNote';
/** n8n's default name for a Manual Trigger (nodes-base ManualTrigger defaults.name, 1.123 and 2.x). */
const MANUAL_TRIGGER_NAME = 'When clicking ‘Execute workflow’';

function pairs<T>(items: T[]): Array<[T, T]> {
	return items.flatMap((a, i) => items.slice(i + 1).map((b) => [a, b] as [T, T]));
}

describe('template layout', () => {
	it('finds the templates', () => {
		expect(TEMPLATES.map(([file]) => file)).toEqual(
			expect.arrayContaining([
				'crm-deal-won-purchase-five-platforms.json',
				'fanout-one-lead-five-platforms.json',
				'typeform-lead-with-preview.json',
			]),
		);
	});

	it.each(TEMPLATES)('%s: no two nodes close enough for their labels to overlap', (_, workflow) => {
		const nodes = workflow.nodes.filter((n) => n.type !== STICKY);
		const tooClose = pairs(nodes)
			.filter(
				([a, b]) =>
					Math.abs(a.position[0] - b.position[0]) < MIN_DX &&
					Math.abs(a.position[1] - b.position[1]) < MIN_DY,
			)
			.map(
				([a, b]) =>
					`${a.name} ${JSON.stringify(a.position)} / ${b.name} ${JSON.stringify(b.position)}`,
			);
		expect(tooClose).toEqual([]);
	});

	it.each(TEMPLATES)('%s: no overlapping sticky notes', (_, workflow) => {
		const box = (n: TemplateNode) => ({
			left: n.position[0],
			top: n.position[1],
			right: n.position[0] + (n.parameters.width ?? 240),
			bottom: n.position[1] + (n.parameters.height ?? 160),
		});
		const stickies = workflow.nodes
			.filter((n) => n.type === STICKY)
			.map((n) => [n.name, box(n)] as const);
		const overlapping = pairs(stickies)
			.filter(
				([[, a], [, b]]) =>
					a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom,
			)
			.map(([[a], [b]]) => `${a} / ${b}`);
		expect(overlapping).toEqual([]);
	});

	it.each(TEMPLATES)(
		"%s: a manual trigger has a name of its own or n8n's current default",
		(_, workflow) => {
			const defaultNamed = workflow.nodes
				.filter((n) => n.type === 'n8n-nodes-base.manualTrigger' && /^When clicking/.test(n.name))
				.map((n) => n.name);
			expect(defaultNamed.filter((name) => name !== MANUAL_TRIGGER_NAME)).toEqual([]);
			expect(
				Object.keys(workflow.connections).filter(
					(name) => /^When clicking/.test(name) && name !== MANUAL_TRIGGER_NAME,
				),
			).toEqual([]);
		},
	);

	it('the sample-record templates start from the manual trigger by its current default name', () => {
		const starts = TEMPLATES.filter(([, w]) =>
			w.nodes.some((n) => n.name === MANUAL_TRIGGER_NAME),
		).map(([file]) => file);
		expect(starts).toEqual(
			expect.arrayContaining([
				'fanout-one-lead-five-platforms.json',
				'meta-leads-from-records.json',
				'pinterest-leads-from-state.json',
			]),
		);
	});
});
