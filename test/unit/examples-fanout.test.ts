/**
 * Every template in examples/ keeps going when one platform fails: in a workflow with more than
 * one sender, each sender routes its failed items to its own error output (n8n's On Error →
 * Continue (using error output)), so the others still run; and every sender queues what a
 * platform cannot take now, with the Outbox Key credential `npm run dev` creates.
 */
import fs from 'node:fs';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DEMO } = require('../../scripts/n8n/demo.js');

interface TemplateNode {
	name: string;
	type: string;
	onError?: string;
	parameters: { dedupStore?: string; retryLater?: string };
	credentials?: Record<string, { id: string; name: string }>;
}

const SENDER_TYPES = [
	'metaConversions',
	'pinterestConversions',
	'tiktokEvents',
	'googleAdsConversions',
	'microsoftConversions',
].map((t) => `n8n-nodes-lead-capi.${t}`);

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
const TEMPLATES = fs
	.readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.map((file) => {
		const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as {
			nodes: TemplateNode[];
		};
		return [file, workflow.nodes.filter((n) => SENDER_TYPES.includes(n.type))] as const;
	});

describe('templates: fan-outs that keep going, with the outbox on', () => {
	it('covers the five-platform fan-outs', () => {
		const multi = TEMPLATES.filter(([, senders]) => senders.length > 1).map(([file]) => file);
		expect(multi).toEqual(
			expect.arrayContaining([
				'crm-deal-won-purchase-five-platforms.json',
				'fanout-one-lead-five-platforms.json',
			]),
		);
	});

	it.each(TEMPLATES.filter(([, senders]) => senders.length > 1))(
		'%s: every sender sends its failures to its own error output',
		(_file, senders) => {
			for (const sender of senders) {
				expect([sender.name, sender.onError]).toEqual([sender.name, 'continueErrorOutput']);
			}
		},
	);

	it.each(TEMPLATES.filter(([, senders]) => senders.length > 0))(
		'%s: every sender queues retryable failures with the Outbox Key of npm run dev',
		(_file, senders) => {
			for (const sender of senders) {
				expect([sender.name, sender.parameters.dedupStore]).toEqual([sender.name, 'redis']);
				expect([sender.name, sender.parameters.retryLater ?? 'outbox']).toEqual([sender.name, 'outbox']);
				expect([sender.name, sender.credentials?.leadCapiOutboxApi]).toEqual([
					sender.name,
					{ id: DEMO.outboxKey.id, name: DEMO.outboxKey.name },
				]);
			}
		},
	);
});
