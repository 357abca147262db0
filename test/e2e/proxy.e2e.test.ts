import { randomUUID } from 'node:crypto';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import path from 'node:path';
import { startForwardProxy, type ForwardProxy } from '../support/forwardProxy';
import { n8nWithPackage, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms } = require('../../scripts/n8n/demo.js');

/*
 * Companies send outbound HTTP through a forward proxy named by HTTP_PROXY / HTTPS_PROXY, with
 * NO_PROXY for what stays direct; n8n's request helpers honour them (n8n-core gives each request
 * an HttpProxyAgent / HttpsProxyAgent when proxy-from-env finds a proxy for its URL). Here n8n
 * runs with both set to a loopback forward proxy (test/support/forwardProxy.ts) and the five
 * senders send one lead each.
 *
 * Why a delivery proves the route: the stand-ins are addressed as `<platform>.lead-capi.invalid`,
 * names that resolve nowhere (`.invalid` is reserved, RFC 2606; checked below), and only the
 * proxy knows they live on loopback. A request that bypassed the proxy would fail with ENOTFOUND
 * instead of arriving. (Plain 127.0.0.1 URLs would prove nothing: they could be reached with or
 * without the proxy.) NO_PROXY=localhost,127.0.0.1 keeps n8n's own loopback traffic (its task
 * runner broker, its REST API) direct, as a company's NO_PROXY would.
 */

const run = randomUUID().slice(0, 8);
const PLATFORMS = ['meta', 'pinterest', 'tiktok', 'google', 'microsoft'] as const;
type Platform = (typeof PLATFORMS)[number];
const SENDER: Record<Platform, string> = {
	meta: 'Meta Conversions',
	pinterest: 'Pinterest Conversions',
	tiktok: 'TikTok Events',
	google: 'Google Ads Conversions',
	microsoft: 'Microsoft Conversions',
};
const hostOf = (platform: Platform) => `${platform}.lead-capi.invalid`;
const REPO = path.join(__dirname, '..', '..');

interface Credential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}
interface StandIn {
	url: string;
	port: number;
	received: unknown[];
}

describe("platform HTTP goes through n8n's proxy settings", () => {
	let platforms: {
		standIns: Record<Platform, StandIn>;
		credentials: Credential[];
		close(): Promise<void>;
	};
	let proxy: ForwardProxy;
	let instance: N8nInstance;

	beforeAll(async () => {
		platforms = await startDemoPlatforms({
			redisUrl: process.env.REDIS_URL,
			keyPrefix: `e2e-proxy-${run}`,
		});
		proxy = await startForwardProxy({
			route: (host) => (host.endsWith('.lead-capi.invalid') ? '127.0.0.1' : undefined),
		});
		// The stand-ins under names only the proxy resolves (Google's OAuth2 token URL stays as it is:
		// the stored token is valid, no refresh happens).
		const byUrl = new Map(
			PLATFORMS.map((p) => [
				platforms.standIns[p].url,
				`http://${hostOf(p)}:${platforms.standIns[p].port}`,
			]),
		);
		const credentials = platforms.credentials.map((c) =>
			typeof c.data.baseUrl === 'string' && byUrl.has(c.data.baseUrl)
				? { ...c, data: { ...c.data, baseUrl: byUrl.get(c.data.baseUrl) } }
				: c,
		);
		expect(credentials.filter((c) => String(c.data.baseUrl).includes('.invalid'))).toHaveLength(5);

		instance = await n8nWithPackage({ own: 'HTTP(S)_PROXY in the n8n environment' });
		// Both spellings (proxy-from-env reads the lower-case one first) and no npm_config_*proxy
		// from the npm that started the suite (proxy-from-env reads those before either).
		for (const key of Object.keys(instance.env)) {
			if (/^npm_config_.*proxy$/i.test(key)) delete instance.env[key];
		}
		for (const [key, value] of [
			['HTTP_PROXY', proxy.url],
			['HTTPS_PROXY', proxy.url],
			['NO_PROXY', 'localhost,127.0.0.1'],
		]) {
			instance.env[key] = value;
			instance.env[key.toLowerCase()] = value;
		}
		instance.importCredentials(credentials);
		const example = JSON.parse(
			fs.readFileSync(path.join(REPO, 'examples', 'fanout-one-lead-five-platforms.json'), 'utf8'),
		);
		instance.importWorkflow({
			...example,
			id: 'e2eProxyFanout01',
			name: 'e2e: five senders via proxy',
		});
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
		await proxy?.close();
	});

	it('the stand-ins are unreachable by name without the proxy', async () => {
		for (const platform of PLATFORMS) {
			await expect(dns.lookup(hostOf(platform))).rejects.toMatchObject({
				code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
			});
		}
	});

	it("every sender's requests pass through the proxy and the events are delivered", async () => {
		proxy.reset();
		const result = await instance.execute('e2eProxyFanout01');
		expect(result.status).toBe('success');
		const statuses = Object.fromEntries(
			PLATFORMS.map((p) => [p, result.nodes[SENDER[p]]?.map((item) => item.status)]),
		);
		expect(statuses).toEqual(Object.fromEntries(PLATFORMS.map((p) => [p, ['sent']])));
		for (const platform of PLATFORMS) {
			expect([platform, platforms.standIns[platform].received.length]).toEqual([platform, 1]);
		}

		const counts = proxy.countsByHost();
		for (const platform of PLATFORMS) {
			expect([platform, (counts[hostOf(platform)] ?? 0) > 0]).toEqual([platform, true]);
		}
		// Every platform request went as an absolute-URI request (http:// targets) and was forwarded.
		const platformRequests = proxy.requests.filter((r) => r.host.endsWith('.lead-capi.invalid'));
		expect(platformRequests.every((r) => r.kind === 'absolute' && r.refused === undefined)).toBe(
			true,
		);
		// eslint-disable-next-line no-console
		console.log(`proxy saw ${JSON.stringify(counts)}`);
	});

	it("the platforms' credential tests pass through the proxy too", async () => {
		const server = await instance.serve();
		try {
			const outcomes: Record<string, [string, number]> = {};
			for (const platform of PLATFORMS) {
				const credential = (platforms.credentials as Credential[]).find((c) =>
					String(c.data.baseUrl).startsWith(platforms.standIns[platform].url),
				)!;
				const viaProxy = {
					...credential,
					data: {
						...credential.data,
						baseUrl: `http://${hostOf(platform)}:${platforms.standIns[platform].port}`,
					},
				};
				proxy.reset();
				const answer = await server.testCredential(viaProxy);
				outcomes[platform] = [answer.data.status, proxy.countsByHost()[hostOf(platform)] ?? 0];
			}
			expect(Object.fromEntries(Object.entries(outcomes).map(([p, [s]]) => [p, s]))).toEqual(
				Object.fromEntries(PLATFORMS.map((p) => [p, 'OK'])),
			);
			for (const [platform, [, seen]] of Object.entries(outcomes)) {
				expect([platform, seen > 0]).toEqual([platform, true]);
			}
		} finally {
			await server.stop();
		}
	});
});
