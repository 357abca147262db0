import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { getRedisClient, redisConfigFromCredentials } from '../../nodes/common/redisClients';
import { IdentityNormalizer } from '../../nodes/IdentityNormalizer/IdentityNormalizer.node';
import { LeadCaptureTrigger } from '../../nodes/LeadCaptureTrigger/LeadCaptureTrigger.node';
import { adminRedis, dropPrefix, uniquePrefix } from '../support/redisClient';

/**
 * Refused deliveries are visible: the Lead Capture Trigger's own webhook() behind a real HTTP
 * server (n8n's context reduced to what the node reads), a real Redis for the counters, and the
 * Identity Normalizer's Health Report reading them back.
 */
const SECRET = 'typeform-secret-for-refusals-0123456789';
const BODY = readFileSync(path.join(__dirname, '../fixtures/capture/typeform-form-response.json'));
const sign = (body: Buffer, secret: string) =>
	`sha256=${createHmac('sha256', secret).update(body).digest('base64')}`;

interface Trigger {
	url: string;
	warnings: string[];
	executions: number;
	/** Resolves when every delivery so far has been handled to the end (logged and counted). */
	settled(): Promise<void>;
	close(): Promise<void>;
}

async function startTrigger(
	parameters: Record<string, unknown>,
	redis: Record<string, unknown>,
): Promise<Trigger> {
	const trigger = new LeadCaptureTrigger();
	const warnings: string[] = [];
	let executions = 0;
	const credentials: Record<string, Record<string, unknown>> = {
		leadCapiWebhookApi: { secret: SECRET },
		leadCapiRedisApi: redis,
	};
	// The trigger answers first and counts after: the test waits for its handlers to finish.
	const running = new Set<Promise<void>>();
	const server: Server = createServer((req, res) => {
		const handled = handle(req, res);
		running.add(handled);
		void handled.finally(() => running.delete(handled));
	});
	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const ctx = {
			getRequestObject: () => req,
			getResponseObject: () => res,
			getWebhookName: () => 'default',
			getWorkflow: () => ({ id: 'wf-refusals', name: 'Refusals', active: true }),
			getNodeParameter: (name: string, fallback?: unknown) =>
				name in parameters ? parameters[name] : fallback,
			getCredentials: async (name: string) => credentials[name],
			logger: {
				warn: (message: string) => warnings.push(message),
				debug: () => undefined,
				info: () => undefined,
				error: () => undefined,
			},
		} as unknown as IWebhookFunctions;
		const result = await trigger.webhook.call(ctx);
		if (result.workflowData) executions++;
	};
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}/`,
		warnings,
		get executions() {
			return executions;
		},
		settled: async () => {
			await Promise.all([...running]);
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

async function healthReport(
	store: 'redis' | 'memory',
	redis: Record<string, unknown>,
	from: { workflowId?: string; unkeyedScope?: 'workflow' | 'all' } = {},
) {
	const parameters: Record<string, unknown> = {
		operation: 'report',
		store,
		hours: 24,
		clientKey: '',
		unkeyedScope: from.unkeyedScope ?? 'workflow',
		platforms: ['meta'],
	};
	const ctx = {
		getInputData: () => [{ json: {} }],
		getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback,
		getCredentials: async () => redis,
		getNode: () => ({ name: 'Health Report' }),
		// By default the same workflow as the trigger: without a Client Key the report shows its
		// own workflow's paths.
		getWorkflow: () => ({ id: from.workflowId ?? 'wf-refusals', name: 'Report', active: true }),
		continueOnFail: () => false,
		logger: { warn: () => undefined, debug: () => undefined, info: () => undefined },
	} as unknown as IExecuteFunctions;
	const [items] = await new IdentityNormalizer().execute.call(ctx);
	return items.map((i) => i.json);
}

const post = (url: string, body: Buffer, headers: Record<string, string>) =>
	fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('the Lead Capture Trigger makes refused deliveries visible', () => {
	const admin = adminRedis();
	const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
	let prefix: string;
	let redis: Record<string, unknown>;
	const triggers: Trigger[] = [];

	beforeEach(() => {
		prefix = uniquePrefix('refusals');
		redis = {
			connection: 'fields',
			host: url.hostname,
			port: Number(url.port || 6379),
			keyPrefix: prefix,
		};
	});
	afterEach(async () => {
		while (triggers.length) await triggers.pop()!.close();
		await dropPrefix(admin, prefix);
	});
	afterAll(() => {
		getRedisClient(redisConfigFromCredentials(redis as never)).client.disconnect();
		admin.disconnect();
	});

	it('bad signatures: 401, one warn line per minute naming path, source and reason (no secret, no lead data), every one counted in the Health Report', async () => {
		const trigger = await startTrigger(
			{
				source: 'typeform',
				path: 'leads/typeform-refusals',
				authentication: 'signature',
				stateFrom: 'preset',
				captureLog: 'redis',
				settings: { allowedOrigins: 'https://shop.example' },
			},
			redis,
		);
		triggers.push(trigger);
		const wrong = 'not-the-typeform-secret-0123456789';
		const answers = [];
		for (let i = 0; i < 3; i++)
			answers.push(
				(await post(trigger.url, BODY, { 'typeform-signature': sign(BODY, wrong) })).status,
			);
		answers.push(
			(
				await post(trigger.url, BODY, {
					'typeform-signature': sign(BODY, SECRET),
					origin: 'https://evil.example',
				})
			).status,
		);
		expect(answers).toEqual([401, 401, 401, 403]);
		await trigger.settled();
		expect(trigger.executions).toBe(0);

		expect(trigger.warnings).toEqual([
			expect.stringMatching(
				/^Lead Capture Trigger: refused a delivery to \/leads\/typeform-refusals \(source typeform, HTTP 401, signature\): signature does not match; check that the trigger's Lead Capture Webhook credential holds the exact secret the sender signs with \(Typeform: the webhook's Secret;/,
			),
			"Lead Capture Trigger: refused a delivery to /leads/typeform-refusals (source typeform, HTTP 403, origin): origin https://evil.example is not allowed to send captures here; add the page's origin to Options → Allowed Origins, or leave that setting empty",
		]);
		const logged = trigger.warnings.join('\n');
		expect(logged).not.toContain(SECRET);
		expect(logged).not.toContain(wrong);
		expect(logged).not.toMatch(/@example\.com|"email"/);

		const report = await healthReport('redis', redis);
		expect(report).toContainEqual({
			capture_path: 'leads/typeform-refusals',
			window_hours: 24,
			refused: 4,
			reasons: { signature: 3, origin: 1 },
		});
		// A report workflow of its own (nothing sent or refused there) shows the credential's
		// unkeyed figures, these refusals among them, as asking for every unkeyed workflow does.
		expect(await healthReport('redis', redis, { workflowId: 'wf-other-client' })).toContainEqual(
			expect.objectContaining({ capture_path: 'leads/typeform-refusals', refused: 4 }),
		);
		expect(
			await healthReport('redis', redis, { workflowId: 'wf-other-client', unkeyedScope: 'all' }),
		).toContainEqual(expect.objectContaining({ capture_path: 'leads/typeform-refusals', refused: 4 }));
		// The counters live under the credential's prefix, in this workflow's own scope (no Client
		// Key), with the send counters' TTL.
		const keys = await admin.keys(`${prefix}:workflow:wf-refusals:refused:*`);
		expect(keys).toHaveLength(1);
		const ttl = await admin.pttl(keys[0]);
		expect(ttl).toBeGreaterThan(48 * 3_600_000);
		expect(ttl).toBeLessThanOrEqual(49 * 3_600_000);

		// A good delivery still starts an execution and is not counted.
		expect(
			(await post(trigger.url, BODY, { 'typeform-signature': sign(BODY, SECRET) })).status,
		).toBe(200);
		await trigger.settled();
		expect(trigger.executions).toBe(1);
		expect((await healthReport('redis', redis)).find((r) => r.capture_path)).toMatchObject({
			refused: 4,
		});
	});

	it('without a capture log, refusals are counted in this process and shown by the in-memory Health Report', async () => {
		const trigger = await startTrigger(
			{
				source: 'typeform',
				path: `memory-refusals-${prefix.slice(-8)}`,
				authentication: 'signature',
				stateFrom: 'preset',
				captureLog: 'off',
				settings: { maxBodyKb: 1 },
			},
			redis,
		);
		triggers.push(trigger);
		const big = Buffer.alloc(2048, 'a');
		expect((await post(trigger.url, big, { 'typeform-signature': sign(big, SECRET) })).status).toBe(
			413,
		);
		expect(
			(
				await post(trigger.url, Buffer.from('{"x":'), {
					'typeform-signature': sign(Buffer.from('{"x":'), SECRET),
				})
			).status,
		).toBe(400);
		await trigger.settled();
		expect(trigger.warnings.map((w) => /HTTP (\d+), (\w+)/.exec(w)?.slice(1))).toEqual([
			['413', 'size'],
			['400', 'body'],
		]);
		expect(
			(await healthReport('memory', redis)).find(
				(r) => r.capture_path === `memory-refusals-${prefix.slice(-8)}`,
			),
		).toEqual({
			capture_path: `memory-refusals-${prefix.slice(-8)}`,
			window_hours: 24,
			refused: 2,
			reasons: { size: 1, body: 1 },
		});
	});
});
