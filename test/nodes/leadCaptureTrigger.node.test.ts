import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IHookFunctions,
	type INodeParameters,
} from 'n8n-workflow';
import { LeadCaptureTrigger } from '../../nodes/LeadCaptureTrigger/LeadCaptureTrigger.node';
import { LeadRuleFilter } from '../../nodes/LeadRuleFilter/LeadRuleFilter.node';
import { runExecute, webhookContext, type NodeSetup } from './support/context';
import { nodeRedis } from './support/redis';
import { startWebhookServer, type WebhookServer } from './support/webhookServer';

const node = new LeadCaptureTrigger();
const SECRET = 'whsec-node-test-0123456789';
const fixture = (name: string) =>
	readFileSync(join(__dirname, '../fixtures/capture', name), 'utf8');
const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');

/** A CRM-style delivery to the generic webhook. */
const delivery = (i: number) =>
	JSON.stringify({
		record_id: `crm-${i}`,
		email: ` Pat.${i}@Example.com `,
		phone: '+1 650 555 1212',
		first_name: 'Pat',
		utm_source: 'newsletter',
	});

async function post(
	server: WebhookServer,
	body: string,
	headers: Record<string, string> = {},
): Promise<{ status: number; json: IDataObject }> {
	const res = await fetch(server.url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body,
	});
	return { status: res.status, json: (await res.json()) as IDataObject };
}

describe('Lead Capture Trigger node: webhook() answers deliveries before any execution starts', () => {
	const redis = nodeRedis('trigger');
	let server: WebhookServer | undefined;
	afterEach(async () => {
		await server?.close();
		server = undefined;
	});

	const start = async (params: INodeParameters, extra: Partial<NodeSetup> = {}) => {
		server = await startWebhookServer(node, {
			params: { path: 'lead-capture', ...params },
			credentials: {
				leadCapiWebhookApi: { secret: SECRET },
				leadCapiRedisApi: redis.credential(),
			},
			...extra,
		});
		return server;
	};
	const generic = { source: 'generic', authentication: 'signature' };

	it('the setup GET of the capture script source serves the script', async () => {
		const s = await start({});
		const res = await fetch(s.url);
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/javascript/);
		expect((await res.text()).length).toBeGreaterThan(200);
		expect(s.executions).toHaveLength(0);
	});

	it('the setup GET of a webhook source says where to send deliveries', async () => {
		const s = await start(generic);
		const res = await fetch(s.url);
		expect(res.status).toBe(200);
		expect(await res.text()).toMatch(/POST/);
		expect(s.executions).toHaveLength(0);
	});

	it('a delivery with a bad signature gets 401 and starts nothing', async () => {
		const s = await start(generic);
		const body = delivery(1);
		const wrong = await post(s, body, { 'x-signature': sign(`${body} `) });
		expect(wrong.status).toBe(401);
		expect(wrong.json.ok).toBe(false);
		const missing = await post(s, body);
		expect(missing.status).toBe(401);
		expect(s.executions).toHaveLength(0);
		// The secret is never echoed.
		expect(JSON.stringify([wrong.json, missing.json, s.logs])).not.toContain(SECRET);
	});

	it('a body over Max Body Size gets 413 and starts nothing', async () => {
		const s = await start({ ...generic, settings: { maxBodyKb: 1 } });
		const body = JSON.stringify({
			record_id: 'big',
			email: 'a@example.com',
			notes: 'x'.repeat(2048),
		});
		const res = await post(s, body, { 'x-signature': sign(body) });
		expect(res.status).toBe(413);
		expect(s.executions).toHaveLength(0);
	});

	it('a validly signed delivery is answered 200 and starts one execution with the canonical lead record', async () => {
		const s = await start(generic);
		const body = delivery(7);
		const res = await post(s, body, { 'x-signature': sign(body) });
		expect(res.status).toBe(200);
		expect(res.json).toMatchObject({ ok: true, record_id: 'crm-7', state: 'lead' });
		expect(s.executions).toHaveLength(1);
		expect(s.executions[0]).toHaveLength(1);
		const record = s.executions[0][0].json;
		expect(record).toMatchObject({
			record_id: 'crm-7',
			state: 'lead',
			occurred_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
			source: { kind: expect.any(String) },
			contact: { email: expect.stringMatching(/pat\.7@example\.com/i), first_name: 'Pat' },
			attributes: { utm_source: 'newsletter' },
		});
	});

	describe('Meta Lead Ads (leadgen webhook)', () => {
		const meta = {
			source: 'metaLeadAds',
			authentication: 'signature',
			metaVerifyToken: 'verify-me-42',
		};
		const hubSign = (body: string) => `sha256=${sign(body)}`;

		it("answers Meta's subscription check with the challenge only when the verify token matches", async () => {
			const s = await start(meta);
			const ok = await fetch(
				`${s.url}?hub.mode=subscribe&hub.verify_token=verify-me-42&hub.challenge=1158201444`,
			);
			expect(ok.status).toBe(200);
			expect(await ok.text()).toBe('1158201444');
			const wrong = await fetch(
				`${s.url}?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444`,
			);
			expect(wrong.status).toBe(403);
			const text = await wrong.text();
			expect(text).not.toContain('1158201444');
			expect(text).not.toContain('verify-me-42');
			expect(s.executions).toHaveLength(0);
		});

		it('a signed delivery with two leadgen changes starts one execution with two lead records', async () => {
			const s = await start(meta);
			const body = fixture('meta-leadgen.json');
			const res = await post(s, body, { 'x-hub-signature-256': hubSign(body) });
			expect(res.status).toBe(200);
			expect(res.json).toMatchObject({ ok: true, record_id: '1234567890123456', leads: 2 });
			expect(s.executions).toHaveLength(1);
			expect(s.executions[0].map((item) => item.json.record_id)).toEqual([
				'1234567890123456',
				'1234567890123457',
			]);
			expect(s.executions[0][0].json).toMatchObject({
				attributes: { meta_lead_id: '1234567890123456' },
				source: { kind: 'metaLeadAds', form_id: '5550001112223' },
			});
		});

		it('an unsigned or wrongly signed delivery gets 401 and starts nothing', async () => {
			const s = await start(meta);
			const body = fixture('meta-leadgen.json');
			expect((await post(s, body)).status).toBe(401);
			expect((await post(s, body, { 'x-hub-signature-256': hubSign(`${body} `) })).status).toBe(
				401,
			);
			expect(s.executions).toHaveLength(0);
		});
	});

	describe('HubSpot (deal and lifecycle stages)', () => {
		const hubspot = { source: 'hubspot', authentication: 'signature' };
		/** HubSpot's v1 signature: hex SHA-256 of the client secret followed by the body. */
		const hubspotSign = (body: string) => ({
			'x-hubspot-signature': createHash('sha256').update(`${SECRET}${body}`).digest('hex'),
			'x-hubspot-signature-version': 'v1',
		});
		const change = (objectId: unknown, stage: string, secondsAgo: number, eventId: number) => ({
			eventId,
			subscriptionId: 4455,
			portalId: 27356661,
			appId: 1160452,
			occurredAt: Date.now() - secondsAgo * 1000,
			subscriptionType: 'deal.propertyChange',
			attemptNumber: 0,
			objectId,
			propertyName: 'dealstage',
			propertyValue: stage,
			changeSource: 'CRM_UI',
		});

		it('a batch of stage changes starts one execution with one item per change, oldest first; a bad element is refused alone', async () => {
			const s = await start(hubspot);
			const body = JSON.stringify([
				change(6001, 'closedwon', 10, 3),
				change(6002, 'qualifiedtobuy', 50, 1),
				change(6001, 'contractsent', 30, 2),
				change(6003, '', 20, 4),
			]);
			const res = await post(s, body, hubspotSign(body));
			expect(res.status).toBe(200);
			expect(res.json).toMatchObject({
				ok: true,
				record_id: '6002',
				leads: 3,
				refused: [{ index: 3, reason: 'propertyValue (the stage) is missing or empty' }],
			});
			expect(s.executions).toHaveLength(1);
			expect(s.executions[0].map((item) => [item.json.record_id, item.json.stage])).toEqual([
				['6002', 'qualifiedtobuy'],
				['6001', 'contractsent'],
				['6001', 'closedwon'],
			]);
			expect(s.logs.map((l) => l.message).join('\n')).toMatch(/hubspot event 3 left out: propertyValue/);
		});

		it('a batch whose only stage change is bad gets 422 and starts nothing; a wrong signature 401', async () => {
			const s = await start(hubspot);
			const bad = JSON.stringify([change(null, 'closedwon', 5, 9)]);
			const refused = await post(s, bad, hubspotSign(bad));
			expect(refused.status).toBe(422);
			expect(String(refused.json.error)).toMatch(/^no usable record id/);
			const good = JSON.stringify([change(6004, 'closedwon', 5, 10)]);
			expect((await post(s, good, hubspotSign(`${good} `))).status).toBe(401);
			expect(s.executions).toHaveLength(0);
		});
	});

	it('the capture script: a submit is a lead, a partial capture a partial, both with the page they came from', async () => {
		const s = await start({}, {});
		const submit = await post(s, fixture('script-submit.json'), {
			origin: 'https://www.example.com',
		});
		expect(submit.status).toBe(200);
		const part = await post(s, fixture('script-partial.json'), {
			origin: 'https://www.example.com',
		});
		expect(part.status).toBe(200);
		const [lead, partial] = s.executions.map((items) => items[0].json);
		expect(lead).toMatchObject({
			state: 'lead',
			source: { page_url: expect.stringContaining('https://www.example.com/pricing') },
		});
		expect(partial).toMatchObject({ state: 'partial' });
	});

	it('Trust Proxy Headers: behind one proxy the visitor-written left of X-Forwarded-For is not the client', async () => {
		const forwarded = {
			origin: 'https://www.example.com',
			'x-forwarded-for': '8.8.8.8, 203.0.113.50',
		};
		const one = await start({ settings: { trustProxy: true } });
		expect((await post(one, fixture('script-submit.json'), forwarded)).status).toBe(200);
		expect(one.executions[0][0].json).toMatchObject({ client: { ip: '203.0.113.50' } });
		await one.close();
		const chain = { ...forwarded, 'x-forwarded-for': '8.8.8.8, 203.0.113.51, 198.51.100.60' };
		const two = await start({ settings: { trustProxy: true, trustedProxies: 2 } });
		expect((await post(two, fixture('script-submit.json'), chain)).status).toBe(200);
		expect(two.executions[0][0].json).toMatchObject({ client: { ip: '203.0.113.51' } });
	});

	it('a Redis password typed into Host, Cluster Nodes or Sentinel Addresses never reaches the log (issue 13)', async () => {
		const PW = 'Rt-Redis-Pw-9f3k2';
		const misplaced: ICredentialDataDecryptedObject[] = [
			{ connection: 'fields', host: `default:${PW}@127.0.0.1`, port: 6379 },
			{ connection: 'cluster', clusterNodes: `:${PW}@127.0.0.1:7000` },
			{ connection: 'sentinel', masterName: 'mymaster', sentinels: `u:${PW}@127.0.0.1:26379` },
		];
		for (const leadCapiRedisApi of misplaced) {
			const s = await start(
				{ ...generic, captureLog: 'redis', settings: { captureLogName: 'pw-hook' } },
				{ credentials: { leadCapiWebhookApi: { secret: SECRET }, leadCapiRedisApi } },
			);
			const body = delivery(9);
			// The lead itself is not lost to a capture log that cannot be written.
			expect((await post(s, body, { 'x-signature': sign(body) })).status).toBe(200);
			expect((await post(s, body, { 'x-signature': 'bad' })).status).toBe(401);
			expect(s.executions).toHaveLength(1);
			const logged = JSON.stringify(s.logs);
			expect(logged).toMatch(/capture log not written \((Host|Cluster Nodes|Sentinel Addresses): /);
			expect(logged).not.toContain(PW);
			await s.close();
			server = undefined;
		}
	});

	it('an origin outside Allowed Origins gets 403 and starts nothing', async () => {
		const s = await start({ settings: { allowedOrigins: 'https://www.example.com' } });
		const res = await post(s, fixture('script-submit.json'), { origin: 'https://evil.example' });
		expect(res.status).toBe(403);
		expect(s.executions).toHaveLength(0);
	});

	it('accepted captures land in the capture log the Lead Rule Filter previews (redacted, in the real Redis)', async () => {
		const s = await start({ ...generic, settings: { captureLogName: 'crm-hook' } });
		for (const i of [1, 2, 3]) {
			const body = delivery(i);
			expect((await post(s, body, { 'x-signature': sign(body) })).status).toBe(200);
		}
		const bad = delivery(4);
		expect((await post(s, bad, { 'x-signature': 'nope' })).status).toBe(401);
		const { outputs } = await runExecute(new LeadRuleFilter(), [{}], {
			params: { operation: 'preview', captureLogName: 'crm-hook' },
			credentials: { leadCapiRedisApi: redis.credential() },
		});
		expect(outputs[0][0].json).toMatchObject({ considered: 3, matched: 3 });
	});

	it('Location in Capture Log: the log keeps the location as set; the preview says "cannot answer" for what it does not keep', async () => {
		const body = JSON.stringify({ record_id: 'geo-1', email: 'pat@acme.com', country: 'US', city: 'Springfield' });
		for (const [name, location] of [['geo-none', 'none'], ['geo-default', undefined], ['geo-city', 'city']]) {
			const s = await start({ ...generic, settings: { captureLogName: name, ...(location ? { captureLogLocation: location } : {}) } });
			expect((await post(s, body, { 'x-signature': sign(body) })).status).toBe(200);
			expect(s.executions[0]?.[0]?.json).toMatchObject({ contact: { country: 'US', city: 'Springfield' } });
			await s.close();
			server = undefined;
		}
		const preview = async (name: string, field: string, pattern: string) =>
			(
				await runExecute(new LeadRuleFilter(), [{}], {
					params: {
						operation: 'preview',
						captureLogName: name,
						sendMode: 'automatic_match',
						rulesApplyTo: 'all',
						rules: { condition: [{ field, matchType: 'equals', pattern }] },
					},
					credentials: { leadCapiRedisApi: redis.credential() },
				})
			).outputs[0][0].json;
		expect(await preview('geo-none', 'contact.country', 'us')).toMatchObject({ considered: 1, matched: 0, cannot_answer: 1 });
		// The default keeps the country, not the city.
		expect(await preview('geo-default', 'contact.country', 'us')).toMatchObject({ matched: 1, cannot_answer: 0 });
		const city = await preview('geo-default', 'contact.city', 'springfield');
		expect(city).toMatchObject({ matched: 0, cannot_answer: 1 });
		expect(Object.keys(city.cannot_answer_reasons as object)[0]).toMatch(/Location in Capture Log/);
		expect(await preview('geo-city', 'contact.city', 'springfield')).toMatchObject({ matched: 1, cannot_answer: 0 });
	});

	it('record ids by origin: a script capture is browser:<capture_id>; a CRM delivery claiming that namespace gets 422 and starts nothing', async () => {
		const site = await start({}, {});
		const body = JSON.stringify({ ...JSON.parse(fixture('script-submit.json')), capture_id: '6355821024' });
		const browser = await post(site, body, { origin: 'https://www.example.com' });
		expect(browser.json).toMatchObject({ ok: true, record_id: 'browser:6355821024' });
		await site.close();
		server = undefined;
		const crm = await start({ ...generic, settings: { captureLogName: 'crm-origin' } });
		const claim = JSON.stringify({ record_id: 'browser:6355821024', email: 'jo@example.com' });
		const refused = await post(crm, claim, { 'x-signature': sign(claim) });
		expect(refused.status).toBe(422);
		expect(String(refused.json.error)).toMatch(/record_id starts with "browser:", which only the capture script's ids carry/);
		expect(crm.executions).toEqual([]);
	});

	it('three CRM deliveries with snowflake ids (beyond 2^53) start three executions with their exact record ids', async () => {
		const s = await start({ ...generic, settings: { captureLogName: 'crm-snowflakes' } });
		const ids = ['1234567890123456789', '1234567890123456790', '1234567890123456791'];
		for (const [i, id] of ids.entries()) {
			// The body as a CRM sends it: the id is a JSON number, not a string.
			const body = `{"id": ${id}, "email": "snow.${i}@example.com"}`;
			const res = await post(s, body, { 'x-signature': sign(body) });
			expect(res).toEqual({ status: 200, json: { ok: true, record_id: id, state: 'lead', leads: 1 } });
		}
		expect(s.executions.map((items) => items[0].json.record_id)).toEqual(ids);
	});

	it('two workflows with a trigger on the same path and no Client Key never read each other’s captures', async () => {
		const a = await start({ ...generic }, { workflowId: 'wf-client-a' });
		for (const i of [1, 2]) {
			const body = delivery(i);
			expect((await post(a, body, { 'x-signature': sign(body) })).status).toBe(200);
		}
		await a.close();
		const b = await start({ ...generic }, { workflowId: 'wf-client-b' });
		for (const i of [3, 4, 5]) {
			const body = delivery(i);
			expect((await post(b, body, { 'x-signature': sign(body) })).status).toBe(200);
		}
		const preview = async (workflowId: string) => {
			const { outputs } = await runExecute(new LeadRuleFilter(), [{}], {
				workflowId,
				params: { operation: 'preview', captureLogName: 'lead-capture' },
				credentials: { leadCapiRedisApi: redis.credential() },
			});
			return outputs[0][0].json.considered;
		};
		expect(await preview('wf-client-a')).toBe(2);
		expect(await preview('wf-client-b')).toBe(3);
	});

	it('an invalid Client Key is a configuration error: activation and deliveries fail with a clear message, nothing starts', async () => {
		const settings = { clientKey: 'acme corp' };
		const s = await start({ ...generic, settings });
		const body = delivery(1);
		const res = await post(s, body, { 'x-signature': sign(body) });
		expect(res.status).toBe(500);
		expect(String(res.json.message)).toBe(
			'Options → Client Key: client key "acme corp" must be 1-64 letters, digits, dots, dashes or underscores',
		);
		expect(s.executions).toHaveLength(0);
		const { ctx } = webhookContext(node, { req: {}, res: {}, webhookName: 'default' }, {
			params: { path: 'lead-capture', ...generic, settings },
		});
		await expect(
			node.webhookMethods!.default.checkExists.call(ctx as unknown as IHookFunctions),
		).rejects.toThrow(NodeOperationError);
	});
});
