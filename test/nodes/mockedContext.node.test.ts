import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type IN8nHttpFullResponse,
} from 'n8n-workflow';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { executeContext } from './support/context';
/* eslint-disable @typescript-eslint/no-require-imports */
const { startMetaStandIn } = require('../standins/meta.js');
const { startMicrosoftStandIn } = require('../standins/microsoft.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The mocked n8n context behaves as n8n does where the node tests rely on it, so a node that
 * passes here does not pass only because the mock is lenient.
 */
describe('the mocked n8n context (test/nodes/support)', () => {
	const TOKEN = 'EAAG-context-token-0123456789';
	let meta: { url: string; close(): Promise<void> };
	let microsoft: { url: string; received: unknown[]; close(): Promise<void> };
	beforeAll(async () => {
		meta = await startMetaStandIn({ accessToken: TOKEN, appSecret: 'shh' });
		microsoft = await startMicrosoftStandIn({ apiToken: 'ms-token', uetTagId: '343001234' });
	});
	afterAll(() => Promise.all([meta.close(), microsoft.close()]));

	const context = (credentials = {}): IExecuteFunctions =>
		executeContext(new MetaConversions(), [{ a: 1 }], {
			params: { options: { dryRun: true } },
			credentials: {
				leadCapiMetaApi: { pixelId: '42', accessToken: TOKEN, appSecret: 'shh', baseUrl: meta.url },
				leadCapiMicrosoftApi: {
					uetTagId: '343001234',
					apiToken: 'ms-token',
					baseUrl: microsoft.url,
				},
				...credentials,
			},
		}).ctx;

	it("getNodeParameter: the description's defaults, dotted paths, n8n's error for a hidden parameter without fallback", () => {
		const ctx = context();
		expect(ctx.getNodeParameter('event', 0)).toBe('fromState');
		expect(ctx.getNodeParameter('dedupStore', 0)).toBe('redis');
		expect(ctx.getNodeParameter('options.dryRun', 0)).toBe(true);
		// Custom Event Name is shown only for a custom event: n8n holds no value for it.
		expect(() => ctx.getNodeParameter('customEventName', 0)).toThrow(/Could not get parameter/);
		expect(ctx.getNodeParameter('customEventName', 0, 'fallback')).toBe('fallback');
	});

	it('getCredentials: by type name, with the type defaults filled in; unset is an n8n error', async () => {
		const ctx = context();
		expect(await ctx.getCredentials('leadCapiMetaApi')).toMatchObject({ pixelId: '42', apiVersion: 'v26.0' });
		await expect(ctx.getCredentials('leadCapiPinterestApi')).rejects.toThrow(NodeOperationError);
	});

	it("httpRequestWithAuthentication signs with the credential's authenticate() and makes the real call", async () => {
		const ctx = context();
		const dataset = await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'leadCapiMetaApi', {
			method: 'GET',
			url: `${meta.url}/v26.0/42`,
			json: true,
		});
		expect(dataset).toMatchObject({ id: '42' });
	});

	it('a refused request throws NodeApiError with the status; ignoreHttpStatusErrors + returnFullResponse return it', async () => {
		const ctx = context({
			leadCapiMetaApi: { pixelId: '42', accessToken: 'wrong', appSecret: 'shh', baseUrl: meta.url },
		});
		const request = { method: 'GET' as const, url: `${meta.url}/v26.0/42`, json: true };
		const thrown = await ctx.helpers.httpRequestWithAuthentication
			.call(ctx, 'leadCapiMetaApi', request)
			.catch((e: unknown) => e);
		expect(thrown).toBeInstanceOf(NodeApiError);
		expect((thrown as NodeApiError).httpCode).toBe('400');
		const full = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'leadCapiMetaApi', {
			...request,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
		})) as IN8nHttpFullResponse;
		expect(full.statusCode).toBe(400);
		expect(full.body).toMatchObject({ error: { code: 190 } });
	});

	it('generic credential authentication (a Bearer header) and an object body sent as JSON', async () => {
		const ctx = context();
		const full = (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			'leadCapiMicrosoftApi',
			{
				method: 'POST',
				url: `${microsoft.url}/v1/343001234/events`,
				body: { data: [] },
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			},
		)) as IN8nHttpFullResponse;
		// Past authentication (401/403 would name the token): the empty batch is what is refused.
		expect([400, 200]).toContain(full.statusCode);
		expect(microsoft.received).toHaveLength(0);
	});

	it("returnJsonArray and constructExecutionMetaData shape items as n8n's do", () => {
		const { helpers } = context();
		const items = helpers.returnJsonArray([{ a: 1 }, { json: { b: 2 } }]);
		expect(items).toEqual([{ json: { a: 1 } }, { json: { b: 2 } }]);
		expect(helpers.constructExecutionMetaData(items, { itemData: { item: 3 } })).toEqual([
			{ json: { a: 1 }, pairedItem: { item: 3 } },
			{ json: { b: 2 }, pairedItem: { item: 3 } },
		]);
	});

	it('anything the mock does not build fails loudly, naming it', () => {
		const ctx = context() as unknown as Record<string, unknown>;
		expect(() => ctx.getWorkflowStaticData).toThrow(/getWorkflowStaticData is not implemented/);
	});
});
