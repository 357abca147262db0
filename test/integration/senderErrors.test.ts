import { createServer } from 'node:net';
import type { IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { getRedisClient, redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { n8nHttpRequest } from '../nodes/support/n8nHttp';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

/**
 * The errors a sender node raises, as n8n shows them: run through the node's own execute() with
 * the n8n context reduced to what the node reads (parameters, credentials, On Error, n8n's
 * request helper as test/nodes/support models it), a real Redis or a closed port, and the Meta
 * stand-in.
 */
const TOKEN = 'sender-errors-token-0123456789';
const PIXEL = '555000111222333';
const NODE: INode = {
	id: 'n1',
	name: 'Meta Conversions',
	type: 'n8n-nodes-lead-capi.metaConversions',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** The Redis credentials the runs used: their pooled connections are closed after the tests. */
const used: Array<Record<string, unknown>> = [];

function context(opts: {
	items: INodeExecutionData[];
	redis: { host: string; port: number; keyPrefix: string };
	baseUrl: string;
	continueOnFail: boolean;
}): IExecuteFunctions {
	const parameters: Record<string, unknown> = {
		event: 'Lead',
		actionSource: 'auto',
		leadInput: 'record',
		dedupStore: 'redis',
		options: {},
	};
	const credentials: Record<string, Record<string, unknown>> = {
		leadCapiMetaApi: { pixelId: PIXEL, accessToken: TOKEN, baseUrl: opts.baseUrl },
		leadCapiRedisApi: { connection: 'fields', ...opts.redis },
	};
	used.push(credentials.leadCapiRedisApi);
	return {
		getInputData: () => opts.items,
		getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback,
		getCredentials: async (name: string) => credentials[name],
		getNode: () => NODE,
		continueOnFail: () => opts.continueOnFail,
		helpers: { httpRequest: n8nHttpRequest },
		logger: {
			debug: () => undefined,
			warn: () => undefined,
			info: () => undefined,
			error: () => undefined,
		},
	} as unknown as IExecuteFunctions;
}

async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

const lead = (id: string | undefined, email: string) => ({
	json: {
		...(id ? { record_id: id } : {}),
		occurred_at: new Date(Date.now() - 3_600_000).toISOString(),
		contact: { email },
	},
});

describe('what a sender node says when items fail', () => {
	let standIn: Awaited<ReturnType<typeof startMetaStandIn>>;
	const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
	const keyPrefix = `test:senderErrors:${process.pid}:${Date.now()}`;
	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
	});
	afterAll(async () => {
		for (const credential of used) {
			getRedisClient(redisConfigFromCredentials(credential as never)).client.disconnect();
		}
		await standIn.close();
	});

	it('headlines a dedup-store outage as the dedup store, with its address, never as the platform', async () => {
		const port = await closedPort();
		const run = (continueOnFail: boolean) =>
			new MetaConversions().execute.call(
				context({
					items: [lead('e-1', 'a@example.com'), lead('e-2', 'b@example.com')],
					redis: { host: '127.0.0.1', port, keyPrefix },
					baseUrl: standIn.url,
					continueOnFail,
				}),
			);
		const error = (await run(false).catch((e) => e)) as NodeOperationError;
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			`The dedup store (Redis at 127.0.0.1:${port}) refused the connection: is Redis running at that address and port?`,
		);
		expect(error.description).toBe(
			'This run: 2 failed. Nothing was sent (dedup fails closed). Retry the execution once the store answers; or, to send without dedup while it is down, set Options → If Dedup Store Is Unavailable → Send Anyway. To get one result per item instead of this error, set Settings → On Error → Continue (using error output).',
		);
		expect(error.context.itemIndex).toBe(0);

		const [items] = await run(true);
		expect(items.map((i) => [i.json.status, i.json.dedup, i.pairedItem])).toEqual([
			['failed', 'unavailable', { item: 0 }],
			['failed', 'unavailable', { item: 1 }],
		]);
		expect(String(items[0].json.error)).toMatch(
			/^The dedup store \(Redis at 127\.0\.0\.1:\d+\) refused the connection/,
		);
		expect(standIn.received).toHaveLength(0);
	});

	it('tells a lead without record_id what to change, not to run again, and names On Error as n8n does', async () => {
		const error = (await new MetaConversions().execute
			.call(
				context({
					items: [lead('e-3', 'c@example.com'), lead(undefined, 'd@example.com')],
					redis: { host: redisUrl.hostname, port: Number(redisUrl.port || 6379), keyPrefix },
					baseUrl: standIn.url,
					continueOnFail: false,
				}),
			)
			.catch((e) => e)) as NodeOperationError;
		expect(error.message).toMatch(
			/^meta: item 1 failed: record_id is missing: give this lead the stable ID/,
		);
		expect(error.description).toMatch(
			/This run: 1 sent, 1 failed\. Events that were sent are recorded and are not sent twice; correct what the message names for this item\. To get one result per item instead of this error, set Settings → On Error → Continue \(using error output\)\.$/,
		);
		expect(error.description).not.toMatch(/Continue On Fail|run again|running again|\.\./);
	});
});
