/**
 * The node picker finds a node by its name and its codex aliases (n8n reads
 * `<Node>.node.json` beside the node file: `alias`). The Lead Capture Trigger must be found by
 * every source its Source option offers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodePropertyOptions } from 'n8n-workflow';
import { describeNode } from './editorView';

const codex = JSON.parse(
	readFileSync(
		join(__dirname, '../../../nodes/LeadCaptureTrigger/LeadCaptureTrigger.node.json'),
		'utf8',
	),
) as { alias: string[] };

/** What a newcomer types for each source. */
const SEARCHED_AS: Record<string, string[]> = {
	calcom: ['cal.com'],
	calendly: ['calendly'],
	script: ['capture script', 'form'],
	generic: ['webhook', 'crm'],
	hubspot: ['hubspot', 'deal'],
	metaLeadAds: ['meta lead ads', 'facebook lead ads'],
	tally: ['tally'],
	typeform: ['typeform'],
};

describe('the Lead Capture Trigger in the node picker', () => {
	const sources = (
		describeNode('leadCaptureTrigger').properties.find((p) => p.name === 'source')!
			.options as INodePropertyOptions[]
	).map((o) => String(o.value));
	const aliases = codex.alias.map((a) => a.toLowerCase());

	it('knows what every offered source is searched as', () => {
		expect(sources.sort()).toEqual(Object.keys(SEARCHED_AS).sort());
	});

	it.each(Object.entries(SEARCHED_AS))('is found for the %s source', (_source, words) => {
		for (const word of words) expect(aliases).toContain(word);
	});
});
