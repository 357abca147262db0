import {
	NodeApiError,
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
} from 'n8n-workflow';
import { GoogleAdsConversions } from '../../nodes/GoogleAdsConversions/GoogleAdsConversions.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { MicrosoftConversions } from '../../nodes/MicrosoftConversions/MicrosoftConversions.node';
import { PinterestConversions } from '../../nodes/PinterestConversions/PinterestConversions.node';
import { TiktokEvents } from '../../nodes/TiktokEvents/TiktokEvents.node';
import type { LeadRecord } from '../../shared/types';
import { crmLead, webLead } from '../support/leads';
import { executeContext, executeError, runExecute, type NodeSetup } from './support/context';
import { nodeRedis } from './support/redis';
/* eslint-disable @typescript-eslint/no-require-imports */
const { startMetaStandIn } = require('../standins/meta.js');
const { startPinterestStandIn } = require('../standins/pinterest.js');
const { startTiktokStandIn } = require('../standins/tiktok.js');
const { startMicrosoftStandIn } = require('../standins/microsoft.js');
const { startGoogleStandIn } = require('../standins/google.js');
/* eslint-enable @typescript-eslint/no-require-imports */

interface StandIn {
	url: string;
	received: unknown[];
	reset(): void;
	close(): Promise<unknown>;
	[more: string]: unknown;
}

/** What differs per sender; everything else each sender does the same way through n8n. */
interface SenderCase {
	label: string;
	node: INodeType;
	/** The platform credential's type name (after the rename of issue 10 item 3). */
	credentialType: string;
	secret: string;
	start(): Promise<StandIn>;
	credential(standIn: StandIn): ICredentialDataDecryptedObject;
	params?: INodeParameters;
	lead(i: number): LeadRecord;
	/** Makes the platform refuse the event with this id (and only it). */
	refuse(standIn: StandIn, eventId: string): void;
	/** A credential field left empty, and what the error must name for the user to fix it. */
	missing: { field: string; names: RegExp };
}

const GOOGLE_CUSTOMER = '123-456-7890';

const cases: SenderCase[] = [
	{
		label: 'Meta Conversions',
		node: new MetaConversions(),
		credentialType: 'leadCapiMetaApi',
		secret: 'EAAG-node-test-token-0123456789',
		start: () =>
			startMetaStandIn({
				accessToken: 'EAAG-node-test-token-0123456789',
				appSecret: 'app-secret-x',
			}),
		credential: (s) => ({
			pixelId: '1234567890',
			accessToken: 'EAAG-node-test-token-0123456789',
			appSecret: 'app-secret-x',
			baseUrl: s.url,
		}),
		lead: (i) => webLead(i),
		refuse: (s, id) => (s.poison as (id: string) => void)(id),
		missing: { field: 'accessToken', names: /access token/i },
	},
	{
		label: 'Pinterest Conversions',
		node: new PinterestConversions(),
		credentialType: 'leadCapiPinterestApi',
		secret: 'pina_node-test-token-0123456789',
		start: () => startPinterestStandIn({ accessToken: 'pina_node-test-token-0123456789' }),
		credential: (s) => ({
			adAccountId: '549755885175',
			accessToken: 'pina_node-test-token-0123456789',
			baseUrl: s.url,
		}),
		lead: (i) => webLead(i),
		refuse: (s, id) => (s.poison as (id: string) => void)(id),
		missing: { field: 'adAccountId', names: /ad account id/i },
	},
	{
		label: 'TikTok Events',
		node: new TiktokEvents(),
		credentialType: 'leadCapiTiktokApi',
		secret: 'tiktok-node-test-token-0123456789',
		start: () =>
			startTiktokStandIn({
				accessToken: 'tiktok-node-test-token-0123456789',
				pixelCode: 'CPIXEL0NODE',
			}),
		credential: (s) => ({
			pixelCode: 'CPIXEL0NODE',
			accessToken: 'tiktok-node-test-token-0123456789',
			baseUrl: s.url,
		}),
		lead: (i) => webLead(i),
		refuse: (s, id) => (s.poison as (id: string) => void)(id),
		missing: { field: 'pixelCode', names: /pixel code/i },
	},
	{
		label: 'Microsoft Conversions',
		node: new MicrosoftConversions(),
		credentialType: 'leadCapiMicrosoftApi',
		secret: 'ms-node-test-token-0123456789',
		start: () =>
			startMicrosoftStandIn({ apiToken: 'ms-node-test-token-0123456789', uetTagId: '343001234' }),
		credential: (s) => ({
			uetTagId: '343001234',
			apiToken: 'ms-node-test-token-0123456789',
			baseUrl: s.url,
		}),
		lead: (i) => webLead(i),
		refuse: (s, id) => (s.poison as (id: string) => void)(id),
		missing: { field: 'apiToken', names: /api token/i },
	},
	{
		label: 'Google Ads Conversions',
		node: new GoogleAdsConversions(),
		credentialType: 'leadCapiGoogleAdsOAuth2Api',
		secret: 'dev-token-node-test-0123456789',
		start: () =>
			startGoogleStandIn({
				developerToken: 'dev-token-node-test-0123456789',
				timeZone: 'America/Chicago',
			}),
		credential: (s) => ({
			developerToken: 'dev-token-node-test-0123456789',
			baseUrl: s.url,
			oauthTokenData: { access_token: (s.accessToken as () => string)(), token_type: 'Bearer' },
		}),
		params: {
			customerId: GOOGLE_CUSTOMER,
			conversionAction: { __rl: true, mode: 'id', value: '987654321' },
		},
		lead: (i) => crmLead(i, { click: { gclid: `Cj0KCQiA-node-${i}` } }),
		refuse: (s, id) =>
			(s.scriptRows as (rows: unknown[]) => void)([
				{ orderId: id, error: 'INVALID_USER_IDENTIFIER' },
			]),
		missing: { field: 'developerToken', names: /developer token/i },
	},
];

const json = (items: INodeExecutionData[]) => items.map((item) => item.json as IDataObject);
const pairs = (items: INodeExecutionData[]) => items.map((item) => item.pairedItem);

/** The secret appears nowhere a user or a log reader could see it. */
function expectNoSecret(secret: string, ...seen: unknown[]): void {
	for (const thing of seen) {
		const text =
			thing instanceof Error
				? JSON.stringify({ message: thing.message, ...(thing as unknown as IDataObject) })
				: JSON.stringify(thing);
		expect(text).not.toContain(secret);
	}
}

describe.each(cases)('$label node: execute() with a mocked n8n context', (c) => {
	const redis = nodeRedis(c.node.description.name);
	let standIn: StandIn;

	beforeAll(async () => {
		standIn = await c.start();
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	const setup = (overrides: Partial<NodeSetup> = {}): NodeSetup => ({
		...overrides,
		params: { ...c.params, ...overrides.params },
		credentials: {
			[c.credentialType]: c.credential(standIn),
			leadCapiRedisApi: redis.credential(),
			...overrides.credentials,
		},
	});
	const leads = (n: number) => Array.from({ length: n }, (_, i) => c.lead(i) as IDataObject);
	/** The event ids a dry run builds for these items (a dry run claims and sends nothing). */
	const eventIds = async (items: IDataObject[]) => {
		const { outputs } = await runExecute(
			c.node,
			items,
			setup({ params: { options: { dryRun: true } } }),
		);
		return json(outputs[0]).map((r) => String(r.event_id));
	};

	it('sends each lead once, one output item per input item paired with it; a re-run outputs duplicates', async () => {
		const items = leads(3);
		const first = await runExecute(c.node, items, setup());
		expect(first.outputs).toHaveLength(1);
		expect(json(first.outputs[0]).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(pairs(first.outputs[0])).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(standIn.received).toHaveLength(3);

		const again = await runExecute(c.node, items, setup());
		expect(json(again.outputs[0]).map((r) => r.status)).toEqual([
			'duplicate',
			'duplicate',
			'duplicate',
		]);
		expect(pairs(again.outputs[0])).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(json(again.outputs[0]).map((r) => r.event_id)).toEqual(
			json(first.outputs[0]).map((r) => r.event_id),
		);
		expect(standIn.received).toHaveLength(3);
		expectNoSecret(c.secret, first.outputs, again.outputs, first.record.logs);
	});

	it('On Error "Continue": the lead the platform refuses fails as its own item, paired with it; the others are sent', async () => {
		const items = leads(3);
		const ids = await eventIds(items);
		c.refuse(standIn, ids[1]);
		const { outputs, record } = await runExecute(
			c.node,
			items,
			setup({ onError: 'continueRegularOutput' }),
		);
		const results = json(outputs[0]);
		expect(results.map((r) => r.status)).toEqual(['sent', 'failed', 'sent']);
		expect(pairs(outputs[0])).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(results[1]).toMatchObject({ event_id: ids[1], error: expect.any(String) });
		expect(String(results[1].error).length).toBeGreaterThan(10);
		expect(standIn.received).toHaveLength(2);
		expect(outputs[0].map((item) => item.error)).toEqual([undefined, undefined, undefined]);
		expectNoSecret(c.secret, outputs, record.logs);
	});

	it('On Error "Continue (using error output)": only the refused lead carries its error, which sends it to the error output', async () => {
		const items = leads(3);
		const ids = await eventIds(items);
		c.refuse(standIn, ids[0]);
		const { outputs, record } = await runExecute(
			c.node,
			items,
			setup({ onError: 'continueErrorOutput' }),
		);
		expect(json(outputs[0]).map((r) => r.status)).toEqual(['failed', 'sent', 'sent']);
		const [refused, ...others] = outputs[0];
		expect(refused.error instanceof NodeApiError || refused.error instanceof NodeOperationError).toBe(true);
		expect(refused.error?.message).toMatch(/item 0 failed/);
		expect(others.map((item) => item.error)).toEqual([undefined, undefined]);
		expect(standIn.received).toHaveLength(2);
		expectNoSecret(c.secret, refused.error, outputs, record.logs);
	});

	it('On Error "Stop Workflow": the refused lead throws an n8n error with its item index, after the others were sent', async () => {
		const items = leads(3);
		const ids = await eventIds(items);
		c.refuse(standIn, ids[2]);
		const { error, record } = await executeError(c.node, items, setup());
		expect(error instanceof NodeApiError || error instanceof NodeOperationError).toBe(true);
		expect(error.context?.itemIndex).toBe(2);
		expect(standIn.received).toHaveLength(2);
		expectNoSecret(c.secret, error, record.logs);
		// The sent leads were recorded: once the platform accepts it, a re-run sends only item 2.
		standIn.reset();
		const retry = await runExecute(c.node, items, setup());
		expect(json(retry.outputs[0]).map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'sent']);
		expect(standIn.received).toHaveLength(1);
	});

	it('a lost answer (accepted, connection dropped): resent with the same ids where the platform drops resends, else held; After an Unknown Outcome → Resend sends held events', async () => {
		const dropsResends = /TikTok|Google/.test(c.label);
		const items = leads(2);
		const queueFaults = standIn.queueFaults as (faults: Array<{ kind: string }>) => void;
		queueFaults([{ kind: 'accept-reset' }]);
		if (dropsResends) {
			const { outputs } = await runExecute(c.node, items, setup());
			expect(json(outputs[0]).map((r) => r.status)).toEqual(['sent', 'sent']);
			// The first request landed without an answer, the resend was acknowledged: TikTok's
			// stand-in logs both copies (TikTok drops the second), Google's keeps one per order id.
			expect(standIn.received).toHaveLength(c.label.startsWith('TikTok') ? 4 : 2);
			return;
		}
		// Stop Workflow: the error says the event is held and how to send it anyway.
		const { error } = await executeError(c.node, items, setup());
		expect(error.context?.itemIndex).toBe(0);
		expect(error.description).toMatch(
			/it is held, so retrying the execution does not send it again\. Check the platform's events manager/,
		);
		expect(standIn.received).toHaveLength(2);
		const rerun = json((await runExecute(c.node, items, setup())).outputs[0]);
		expect(rerun.map((r) => [r.status, r.dedup, r.outcome_unknown])).toEqual([
			['skipped', 'held', true],
			['skipped', 'held', true],
		]);
		expect(standIn.received).toHaveLength(2);
		const resend = setup({ params: { options: { afterUnknownOutcome: 'resend' } } });
		const resent = json((await runExecute(c.node, items, resend)).outputs[0]);
		expect(resent.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(standIn.received).toHaveLength(4);
	});

	it(`a credential without ${c.missing.field} is a NodeOperationError naming it; nothing is sent`, async () => {
		const broken = { ...c.credential(standIn), [c.missing.field]: '' };
		const credentials = { [c.credentialType]: broken };
		const { error } = await executeError(c.node, leads(2), setup({ credentials }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(c.missing.names);

		const { outputs } = await runExecute(
			c.node,
			leads(2),
			setup({ credentials, onError: 'continueRegularOutput' }),
		);
		expect(json(outputs[0]).map((r) => r.status)).toEqual(['failed', 'failed']);
		expect(pairs(outputs[0])).toEqual([{ item: 0 }, { item: 1 }]);
		expect(String(json(outputs[0])[0].error)).toMatch(c.missing.names);
		expect(standIn.received).toHaveLength(0);
	});

	it('an invalid Client Key option is a NodeOperationError that says what a key may hold', async () => {
		const { error } = await executeError(
			c.node,
			leads(1),
			setup({ params: { options: { clientKey: 'acme corp!' } } }),
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/client key/i);
		expect(standIn.received).toHaveLength(0);
	});

	it('record ids that lost digits as JSON numbers (three snowflakes → one number) fail per item instead of colliding', async () => {
		// What another node's JSON hands on for 1234567890123456789, …790 and …791: one number.
		const lost = ['1234567890123456789', '1234567890123456790', '1234567890123456791'].map(Number);
		expect(new Set(lost).size).toBe(1);
		const items = [
			...lost.map((id, i) => ({ ...c.lead(10 + i), record_id: id })),
			c.lead(13),
		] as IDataObject[];
		const { outputs } = await runExecute(c.node, items, setup({ onError: 'continueErrorOutput' }));
		const results = json(outputs[0]);
		expect(results.map((r) => r.status)).toEqual(['failed', 'failed', 'failed', 'sent']);
		expect(results[0].error).toBe(
			'record id 1234567890123456800 is larger than JavaScript numbers hold exactly; send it as a string',
		);
		expect(pairs(outputs[0])).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(standIn.received).toHaveLength(1);

		standIn.reset();
		const { error } = await executeError(c.node, items.slice(0, 1), setup());
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.context?.itemIndex).toBe(0);
		expect(error.message).toMatch(/record id 1234567890123456800 is larger than JavaScript numbers hold exactly/);
		expect(standIn.received).toHaveLength(0);
	});

	it('a lead whose state has no event: NodeOperationError at its item index, or a failed item paired with it', async () => {
		const items = [c.lead(0), { ...c.lead(1), state: 'unknown-stage' }] as IDataObject[];
		const { error } = await executeError(c.node, items, setup());
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.context?.itemIndex).toBe(1);
		expect(error.message).toMatch(/unknown-stage/);

		standIn.reset();
		const { outputs } = await runExecute(c.node, items, setup({ onError: 'continueErrorOutput' }));
		expect(json(outputs[0]).map((r) => r.status)).toEqual(['duplicate', 'failed']);
		expect(outputs[0][1].pairedItem).toEqual({ item: 1 });
		expect(String(json(outputs[0])[1].error)).toMatch(/unknown-stage/);
	});

	it('a missing dedup store credential stops the run before anything is sent', async () => {
		const credentials: NodeSetup['credentials'] = { [c.credentialType]: c.credential(standIn) };
		const { ctx } = executeContext(c.node, leads(1), { ...setup(), credentials });
		await expect(c.node.execute!.call(ctx)).rejects.toThrow(/leadCapiRedisApi/);
		expect(standIn.received).toHaveLength(0);
	});
});

describe('sender options that cannot work are NodeOperationErrors saying what to change, before any request', () => {
	const unreachable = 'http://127.0.0.1:9';
	const redisCredential = { connection: 'url', url: process.env.REDIS_URL ?? '' };
	const run = (node: INodeType, credentials: NodeSetup['credentials'], params: INodeParameters) =>
		executeError(node, [webLead(0) as unknown as IDataObject], {
			params,
			credentials: { leadCapiRedisApi: redisCredential, ...credentials },
		});

	it('TikTok: Event Source CRM without a CRM event set ID in the credential', async () => {
		const { error } = await run(
			new TiktokEvents(),
			{ leadCapiTiktokApi: { pixelCode: 'CPIXEL', accessToken: 'tok', baseUrl: unreachable } },
			{ eventSource: 'crm' },
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/CRM event set/i);
	});

	describe('Google Ads', () => {
		const credential = {
			developerToken: 'dev',
			baseUrl: unreachable,
			oauthTokenData: { access_token: 'ya29.x' },
		};
		const google = (params: INodeParameters, cred: ICredentialDataDecryptedObject = credential) =>
			run(
				new GoogleAdsConversions(),
				{ leadCapiGoogleAdsOAuth2Api: cred },
				{
					customerId: GOOGLE_CUSTOMER,
					conversionAction: { __rl: true, mode: 'id', value: '987654321' },
					options: { accountTimeZone: 'America/Chicago' },
					...params,
				},
			);

		it('a Customer ID that is not an account ID', async () => {
			const { error } = await google({ customerId: 'acme-ads' });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/customer id/i);
		});

		it('no Conversion Action', async () => {
			const { error } = await google({ conversionAction: { __rl: true, mode: 'list', value: '' } });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/conversion action/i);
		});

		it('an Account Time Zone that is not an IANA name', async () => {
			const { error } = await google({ options: { accountTimeZone: 'Mars/Olympus_Mons' } });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/Mars\/Olympus_Mons/);
			expect(error.message).toMatch(/time zone/i);
		});

		it.each([
			['abc', /must be digits/],
			['987654321', /is the Conversion Action itself/],
		])('a Partial Lead Conversion Action ID %s', async (id, message) => {
			const { error } = await google({
				options: { accountTimeZone: 'America/Chicago', partialConversionActionId: id },
			});
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/^Partial Lead Conversion Action ID/);
			expect(error.message).toMatch(message);
		});

		it('a credential that was never connected to Google', async () => {
			const { error } = await google({}, { developerToken: 'dev', baseUrl: unreachable });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/sign in|connect/i);
		});
	});
});
