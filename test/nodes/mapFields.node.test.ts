import { createHash } from 'node:crypto';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { crmLead } from '../support/leads';
import { executeContext, type NodeSetup } from './support/context';

const TOKEN = 'EAAG-map-fields-token-0123456789';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Lead Fields → Map Fields in a dry run (nothing sent, the built events in the output): the
 * fields are evaluated for each item when they are expressions, and read once for the whole
 * execution when they are not — the same values n8n would give each item.
 */
describe('Meta Conversions: Map Fields read per item only when they are expressions', () => {
	const run = async (n: number, setup: NodeSetup) => {
		const items = Array.from({ length: n }, (_, i) => crmLead(i) as unknown as IDataObject);
		const { ctx } = executeContext(new MetaConversions(), items, {
			...setup,
			params: { leadInput: 'map', options: { dryRun: true }, ...setup.params } as INodeParameters,
			credentials: { leadCapiMetaApi: { pixelId: '4440003334', accessToken: TOKEN } },
		});
		const read = ctx.getNodeParameter.bind(ctx);
		let reads = 0;
		ctx.getNodeParameter = ((name: string, ...rest: unknown[]) => {
			if (name === 'fieldOverrides.field') reads++;
			return (read as (...args: unknown[]) => unknown)(name, ...rest);
		}) as typeof ctx.getNodeParameter;
		const [output] = (await new MetaConversions().execute.call(ctx)) as INodeExecutionData[][];
		const emails = output.map((o) => [((o.json.payload as IDataObject).user_data as { em?: string | string[] }).em].flat()[0]);
		return { reads, emails };
	};

	it('fixed values: read once for 5 items, every item gets them', async () => {
		const fixed = { fieldOverrides: { field: [{ path: 'contact.email', value: 'Same@Example.com' }] } };
		const { reads, emails } = await run(5, { params: fixed });
		expect(reads).toBe(1);
		expect(emails).toEqual(Array(5).fill(sha('same@example.com')));
	});

	it('an expression: evaluated for each of 5 items, each item gets its own value', async () => {
		const { reads, emails } = await run(5, {
			params: { fieldOverrides: { field: [{ path: 'contact.email', value: '={{ $json.contact.email }}' }] } },
			expressions: { 'fieldOverrides.field': (i) => [{ path: 'contact.email', value: `Lead${i}@Example.com` }] },
		});
		expect(reads).toBe(5);
		expect(emails).toEqual([0, 1, 2, 3, 4].map((i) => sha(`lead${i}@example.com`)));
	});
});
