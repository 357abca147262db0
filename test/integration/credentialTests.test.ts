import { createServer } from 'node:net';
import type {
	ICredentialTestFunctions,
	ICredentialType,
	INodeCredentialTestResult,
	INodeType,
} from 'n8n-workflow';
import { LeadCapiGoogleAdsOAuth2Api } from '../../credentials/LeadCapiGoogleAdsOAuth2Api.credentials';
import { LeadCapiGoogleDataManagerOAuth2Api } from '../../credentials/LeadCapiGoogleDataManagerOAuth2Api.credentials';
import { LeadCapiOutboxApi } from '../../credentials/LeadCapiOutboxApi.credentials';
import { LeadCapiRedisApi } from '../../credentials/LeadCapiRedisApi.credentials';
import { LeadCapiWebhookApi } from '../../credentials/LeadCapiWebhookApi.credentials';
import { LeadCapiMetaApi } from '../../credentials/LeadCapiMetaApi.credentials';
import { LeadCapiMicrosoftApi } from '../../credentials/LeadCapiMicrosoftApi.credentials';
import { LeadCapiPinterestApi } from '../../credentials/LeadCapiPinterestApi.credentials';
import { LeadCapiTiktokApi } from '../../credentials/LeadCapiTiktokApi.credentials';
import { GoogleAdsConversions } from '../../nodes/GoogleAdsConversions/GoogleAdsConversions.node';
import { IdentityNormalizer } from '../../nodes/IdentityNormalizer/IdentityNormalizer.node';
import { LeadCapiDeadLetters } from '../../nodes/LeadCapiDeadLetters/LeadCapiDeadLetters.node';
import { LeadCapiOutboxTrigger } from '../../nodes/LeadCapiOutboxTrigger/LeadCapiOutboxTrigger.node';
import { LeadCaptureTrigger } from '../../nodes/LeadCaptureTrigger/LeadCaptureTrigger.node';
import { LeadRuleFilter } from '../../nodes/LeadRuleFilter/LeadRuleFilter.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { MicrosoftConversions } from '../../nodes/MicrosoftConversions/MicrosoftConversions.node';
import { PinterestConversions } from '../../nodes/PinterestConversions/PinterestConversions.node';
import { TiktokEvents } from '../../nodes/TiktokEvents/TiktokEvents.node';
import { credentialTestContext } from '../nodes/support/n8nHttp';
/* eslint-disable @typescript-eslint/no-require-imports */
const { startMetaStandIn } = require('../standins/meta.js');
const { startPinterestStandIn } = require('../standins/pinterest.js');
const { startMicrosoftStandIn } = require('../standins/microsoft.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The credential tests as n8n runs them: n8n's CredentialsTester takes a credential type's own
 * declarative `test` first; only without one does it call the function a node names in
 * `testedBy` (and for OAuth2 types it never calls a function). These tests call the same
 * function the same way, against loopback stand-ins that answer as each platform documents.
 */
const NODES: INodeType[] = [
	new MetaConversions(),
	new PinterestConversions(),
	new TiktokEvents(),
	new MicrosoftConversions(),
	new GoogleAdsConversions(),
	new IdentityNormalizer(),
	new LeadRuleFilter(),
	new LeadCaptureTrigger(),
	new LeadCapiOutboxTrigger(),
	new LeadCapiDeadLetters(),
];
const CREDENTIALS: ICredentialType[] = [
	new LeadCapiMetaApi(),
	new LeadCapiPinterestApi(),
	new LeadCapiTiktokApi(),
	new LeadCapiMicrosoftApi(),
	new LeadCapiGoogleAdsOAuth2Api(),
	new LeadCapiGoogleDataManagerOAuth2Api(),
	new LeadCapiRedisApi(),
	new LeadCapiWebhookApi(),
	new LeadCapiOutboxApi(),
];

type Tester = (
	this: ICredentialTestFunctions,
	credential: { id: string; name: string; type: string; data: never },
) => Promise<INodeCredentialTestResult>;

/** The function n8n would call for `type`, found as n8n finds it (first node naming it). */
function testerFor(type: string): Tester {
	for (const node of NODES) {
		const testedBy = node.description.credentials?.find((c) => c.name === type)?.testedBy;
		if (typeof testedBy === 'string') {
			const fn = node.methods?.credentialTest?.[testedBy];
			if (fn) return fn as unknown as Tester;
		}
	}
	throw new Error(`no node tests ${type}`);
}

const runTest = (type: string, data: Record<string, unknown>) =>
	testerFor(type).call(credentialTestContext(), {
		id: '1',
		name: type,
		type,
		data: data as never,
	});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

describe('which credential test n8n runs', () => {
	it('every credential a node uses names a test function the node has, and no API-key credential has a declarative test that would shadow it', () => {
		for (const node of NODES) {
			for (const credential of node.description.credentials ?? []) {
				const type = CREDENTIALS.find((c) => c.name === credential.name)!;
				if (type.extends?.includes('oAuth2Api')) {
					// n8n tests OAuth2 types only with their own declarative test.
					expect({ type: type.name, test: Boolean(type.test) }).toEqual({
						type: type.name,
						test: true,
					});
					continue;
				}
				expect({ node: node.description.name, type: type.name, test: type.test }).toEqual({
					node: node.description.name,
					type: type.name,
					test: undefined,
				});
				expect(typeof node.methods?.credentialTest?.[credential.testedBy as string]).toBe(
					'function',
				);
			}
		}
	});
});

describe('the Meta credential test says what Meta said', () => {
	const TOKEN = 'meta-cred-test-token-0123456789';
	const APP_SECRET = 'meta-app-secret-0123456789';
	const PIXEL = '123456789012345';
	let standIn: Awaited<ReturnType<typeof startMetaStandIn>>;
	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN, appSecret: APP_SECRET });
	});
	afterAll(() => standIn.close());
	const meta = (data: Record<string, unknown>) =>
		runTest('leadCapiMetaApi', {
			pixelId: PIXEL,
			accessToken: TOKEN,
			appSecret: APP_SECRET,
			apiVersion: 'v26.0',
			baseUrl: standIn.url,
			...data,
		});

	it('passes with the right token, naming the dataset', async () => {
		expect(await meta({})).toEqual({
			status: 'OK',
			message: `Meta accepted the token for dataset ${PIXEL} ("Stand-in dataset ${PIXEL}")`,
		});
	});

	it("fails a wrong token with Meta's message and code 190, and what to check", async () => {
		const wrong = 'wrong-meta-token-0123456789';
		const result = await meta({ accessToken: wrong });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^Meta: Invalid OAuth access token - Cannot parse access token \[code 190, fbtrace_id [\w-]+\]\. Check the Access Token \(Events Manager → Settings → Generate access token\)\.$/,
			),
		});
		expect(JSON.stringify(result)).not.toContain(wrong);
	});

	it("fails a wrong App Secret with Meta's message and points at the App Secret", async () => {
		const result = await meta({ appSecret: 'wrong-app-secret-0123456789' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Meta: Invalid appsecret_proof provided in the API argument \[code 100, .*\]\. Check the App Secret/,
		);
		expect(result.message).not.toContain('wrong-app-secret');
	});

	it('refuses a dataset ID that is not digits before calling Meta', async () => {
		const before = standIn.requests.length;
		expect(await meta({ pixelId: 'my pixel' })).toEqual({
			status: 'Error',
			message:
				'The Dataset (Pixel) ID must be the digits shown in Events Manager under the dataset name',
		});
		expect(standIn.requests.length).toBe(before);
	});
});

describe('the Pinterest and Microsoft credential tests say what the platform said', () => {
	const TOKEN = 'cred-test-token-0123456789';
	let pinterestStandIn: Awaited<ReturnType<typeof startPinterestStandIn>>;
	let microsoftStandIn: Awaited<ReturnType<typeof startMicrosoftStandIn>>;
	beforeAll(async () => {
		pinterestStandIn = await startPinterestStandIn({
			accessToken: TOKEN,
			adAccountIds: ['549755885175'],
		});
		microsoftStandIn = await startMicrosoftStandIn({ apiToken: TOKEN, uetTagId: '187072955' });
	});
	afterAll(async () => {
		await pinterestStandIn.close();
		await microsoftStandIn.close();
	});

	it("Pinterest: a wrong token fails with Pinterest's message and code", async () => {
		const result = await runTest('leadCapiPinterestApi', {
			adAccountId: '549755885175',
			accessToken: 'wrong-token-0123456789',
			baseUrl: pinterestStandIn.url,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Authentication failed/);
		expect(result.message).toMatch(/code 2\b/);
		expect(result.message).toMatch(/check the Conversion Access Token/);
	});

	it("Microsoft: a wrong token fails with Microsoft's message and code", async () => {
		const result = await runTest('leadCapiMicrosoftApi', {
			uetTagId: '187072955',
			apiToken: 'wrong-token-0123456789',
			baseUrl: microsoftStandIn.url,
		});
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^Microsoft: Authorization failed: the bearer token is missing or invalid \[code Unauthorized, HTTP 401.*\]\. Check the API token/,
			),
		});
	});
});

describe('the dedup store (Redis) credential test', () => {
	it('names the address and says the connection was refused, with no raw error code', async () => {
		const port = await closedPort();
		const result = await runTest('leadCapiRedisApi', {
			connection: 'fields',
			host: '127.0.0.1',
			port,
		});
		expect(result).toEqual({
			status: 'Error',
			message: `Redis at 127.0.0.1:${port}: connection refused — is Redis running there?`,
		});
	});

	it('passes against the real Redis', async () => {
		const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
		const result = await runTest('leadCapiRedisApi', {
			connection: 'fields',
			host: url.hostname,
			port: Number(url.port || 6379),
		});
		expect(result).toEqual({ status: 'OK', message: 'Connection successful: Redis answered PING' });
	});
});

describe('a secret pasted into any Redis address field never comes back (issue 13)', () => {
	const PW = 'Rt-Redis-Pw-9f3k2';
	it.each<[string, Record<string, unknown>, string]>([
		[
			'a password in Host',
			{ connection: 'fields', host: `default:${PW}@127.0.0.1`, port: 6379 },
			'Host: the value holds a user name or password (an "@"): enter those in Username and Password, and here only a host name or IP address (the value is not shown)',
		],
		[
			'a redis:// URL with a password in Host',
			{ connection: 'fields', host: `redis://:${PW}@127.0.0.1:6379` },
			'Host: the value holds a user name or password (an "@"): enter those in Username and Password, and here only a host name or IP address (the value is not shown)',
		],
		[
			'a password alone in Host (no "@")',
			{ connection: 'fields', host: `127.0.0.1 ${PW}` },
			'Host: the value is not a host name or IP address (the value is not shown)',
		],
		[
			'a password in Cluster Nodes',
			{ connection: 'cluster', clusterNodes: `127.0.0.1:7000, :${PW}@127.0.0.1:7001` },
			'Cluster Nodes: entry 2 of 2 holds a user name or password (an "@"): enter those in Username and Password, and here only host:port (the value is not shown)',
		],
		[
			'a password in Sentinel Addresses',
			{
				connection: 'sentinel',
				masterName: 'mymaster',
				sentinels: `sentinel:${PW}@127.0.0.1:26379`,
			},
			'Sentinel Addresses: the address holds a user name or password (an "@"): enter those in Username and Password, and here only host:port (the value is not shown)',
		],
		[
			'a URL in Sentinel Addresses',
			{
				connection: 'sentinel',
				masterName: 'mymaster',
				sentinels: `redis://127.0.0.1:26379/${PW}`,
			},
			'Sentinel Addresses: the address is a URL: enter host:port, or choose the Redis URL connection type (the value is not shown)',
		],
		[
			'a Redis URL that does not parse',
			{ connection: 'url', url: `redis//default:${PW}@127.0.0.1:6379` },
			'Redis URL: not a redis://[user:password@]host:port/db or rediss://… URL (the value is not shown)',
		],
		[
			'a URL of another scheme',
			{ connection: 'url', url: `http://default:${PW}@127.0.0.1:6379` },
			'Redis URL: not a redis://[user:password@]host:port/db or rediss://… URL (the value is not shown)',
		],
	])('%s: the test names the field and the problem only', async (_case, data, message) => {
		const result = await runTest('leadCapiRedisApi', data);
		expect(result).toEqual({ status: 'Error', message });
		expect(JSON.stringify(result)).not.toContain(PW);
	});
});
