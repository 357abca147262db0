import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import type Redis from 'ioredis';
import type { CaptureSource } from '../../shared/capture';
import { typeformDelivery, typeformSignature } from '../support/deliveries';
import { PROPERTY_SEED } from '../support/hostile';
import { bodyFor, GENERIC_LEAD } from '../support/hostileBodies';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { captureTrigger, n8nWithPackage, until, type N8nInstance } from './n8n';

/*
 * The Lead Capture Trigger in a real n8n under hostile deliveries: fuzzed bodies (the capture
 * property tests' generators, fixed seed) and headers, wrong types, bad JSON and UTF-8, huge
 * bodies, bad and replayed signatures (a signed Typeform delivery tampered with, a Calendly
 * signature past its tolerance or from the future, the generic HMAC over another body), wrong
 * methods, a header too large, a request cut short. n8n must answer every one with a 2xx or a
 * 4xx, keep answering, and start an execution for each accepted capture only (counted through
 * its REST API). The figures go to .e2e/hostile-report.json and the test output.
 */

const WEBHOOK_SECRET = `e2e-hostile-secret-${randomUUID()}`;
/** Fuzzed bodies per workflow. */
const FUZZED = 60;
const REPO = path.join(__dirname, '..', '..');

interface Sent {
	kind: string;
	workflow: string;
	status: number;
	accepted: boolean;
}

const hmacHex = (secret: string, body: Buffer | string) =>
	createHmac('sha256', secret).update(body).digest('hex');
const calendlySignature = (body: Buffer | string, t: number, secret = WEBHOOK_SECRET) =>
	`t=${t},v1=${hmacHex(secret, Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)]))}`;

/** The trigger workflows under fire, by webhook path. */
const FLOWS: Array<{
	path: string;
	source: CaptureSource;
	signed: boolean;
	parameters?: Record<string, unknown>;
}> = [
	{ path: 'hostile-typeform', source: 'typeform', signed: true },
	{ path: 'hostile-calendly', source: 'calendly', signed: true },
	{
		path: 'hostile-hmac',
		source: 'generic',
		signed: true,
		parameters: {
			hmacHeader: 'X-Signature',
			hmacAlgorithm: 'sha256',
			hmacEncoding: 'hex',
			hmacPrefix: 'sha256=',
		},
	},
	{ path: 'hostile-open', source: 'generic', signed: false },
	{
		path: 'hostile-script',
		source: 'script',
		signed: false,
		parameters: { settings: { allowedOrigins: 'https://site.example' } },
	},
];

/** The headers that sign `body` for a flow, as its sender would. */
function signatureFor(flow: (typeof FLOWS)[number], body: Buffer): Record<string, string> {
	if (!flow.signed) return {};
	if (flow.source === 'typeform') {
		return {
			'typeform-signature': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('base64')}`,
		};
	}
	if (flow.source === 'calendly')
		return { 'calendly-webhook-signature': calendlySignature(body, Math.floor(Date.now() / 1000)) };
	return { 'x-signature': `sha256=${hmacHex(WEBHOOK_SECRET, body)}` };
}

describe('Lead Capture Trigger in a real n8n under hostile deliveries', () => {
	let instance: N8nInstance;
	let admin: Redis;
	const keyPrefix = `e2e-hostile-${randomUUID().slice(0, 8)}`;
	const redis = { id: 'e2eHostileRedis1', name: 'Capture log Redis' };
	const secret = { id: 'e2eHostileSecret', name: 'Webhook secret' };
	const ids = Object.fromEntries(FLOWS.map((flow, i) => [flow.path, `e2eHostileFlow0${i}`]));

	beforeAll(async () => {
		instance = await n8nWithPackage();
		instance.importCredentials([
			{
				...redis,
				type: 'leadCapiRedisApi',
				data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix },
			},
			{ ...secret, type: 'leadCapiWebhookApi', data: { secret: WEBHOOK_SECRET } },
		]);
		for (const flow of FLOWS) {
			const workflow = {
				id: ids[flow.path],
				name: `e2e: hostile ${flow.path}`,
				nodes: [
					captureTrigger(
						'Capture',
						{
							source: flow.source,
							path: flow.path,
							authentication: flow.signed ? 'signature' : 'none',
							captureLog: 'redis',
							...flow.parameters,
						},
						{ leadCapiRedisApi: redis, ...(flow.signed ? { leadCapiWebhookApi: secret } : {}) },
					),
				],
				connections: {},
				settings: { executionOrder: 'v1' },
			};
			instance.importWorkflow(workflow, { activate: true });
		}
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('answers every request with a 2xx or a 4xx, keeps answering, and starts an execution for accepted captures only', async () => {
		const server = await instance.serve();
		const sent: Sent[] = [];
		try {
			const url = (flowPath: string) => `${server.baseUrl}/webhook/${flowPath}`;
			const post = async (
				kind: string,
				flowPath: string,
				body: Buffer | string,
				headers: Record<string, string> = {},
				method = 'POST',
			) => {
				const res = await fetch(url(flowPath), {
					method,
					headers: { 'content-type': 'application/json', ...headers },
					body: method === 'GET' || method === 'HEAD' ? undefined : body,
				});
				const text = await res.text();
				let answer: { ok?: boolean; record_id?: string } = {};
				try {
					answer = JSON.parse(text);
				} catch {
					// a text answer (the setup URL, n8n's own 404)
				}
				sent.push({
					kind,
					workflow: flowPath,
					status: res.status,
					accepted:
						res.status === 200 && answer.ok === true && typeof answer.record_id === 'string',
				});
				return res.status;
			};

			// 1. Signatures: genuine, replayed, tampered, forged, stale, from the future.
			const delivery = typeformDelivery({
				token: 'hostile0000001',
				email: 'Dana.Reyes@Initech.co.uk',
				firstName: 'Dana',
			});
			const signed = typeformSignature(delivery, WEBHOOK_SECRET);
			expect(
				await post('signed delivery', 'hostile-typeform', delivery, {
					'typeform-signature': signed,
				}),
			).toBe(200);
			// Typeform signs the body only: an exact replay is accepted (the senders' dedup sends it once).
			expect(
				await post('exact replay (Typeform signs no time)', 'hostile-typeform', delivery, {
					'typeform-signature': signed,
				}),
			).toBe(200);
			const refused: Array<[string, string, string | Buffer, Record<string, string>]> = [
				[
					'replayed signature, tampered body',
					'hostile-typeform',
					delivery.replace('Dana.Reyes', 'Eve.Reyes'),
					{ 'typeform-signature': signed },
				],
				[
					'replayed signature, another delivery',
					'hostile-typeform',
					typeformDelivery({ token: 'hostile0000002', email: 'eve@evil.example' }),
					{ 'typeform-signature': signed },
				],
				[
					'wrong secret',
					'hostile-typeform',
					delivery,
					{ 'typeform-signature': typeformSignature(delivery, 'not-the-secret') },
				],
				['no signature', 'hostile-typeform', delivery, {}],
				[
					'forged signature header',
					'hostile-typeform',
					delivery,
					{ 'typeform-signature': 'sha256=AAAA' },
				],
				[
					'signature without prefix',
					'hostile-typeform',
					delivery,
					{ 'typeform-signature': signed.slice('sha256='.length) },
				],
			];
			const booking = JSON.stringify({
				event: 'invitee.created',
				created_at: new Date().toISOString(),
				payload: {
					email: 'jordan.rivera@example.com',
					name: 'Jordan Rivera',
					uri: 'https://api.calendly.com/scheduled_events/HOSTILE/invitees/ONE',
					scheduled_event: { start_time: new Date(Date.now() + 86_400_000).toISOString() },
				},
			});
			const nowS = Math.floor(Date.now() / 1000);
			refused.push(
				[
					'replayed Calendly delivery, 10 minutes old',
					'hostile-calendly',
					booking,
					{ 'calendly-webhook-signature': calendlySignature(booking, nowS - 600) },
				],
				[
					'Calendly signature from the future',
					'hostile-calendly',
					booking,
					{ 'calendly-webhook-signature': calendlySignature(booking, nowS + 600) },
				],
				[
					'Calendly signature, tampered body',
					'hostile-calendly',
					booking.replace('jordan', 'eve'),
					{ 'calendly-webhook-signature': calendlySignature(booking, nowS) },
				],
				[
					'malformed Calendly header',
					'hostile-calendly',
					booking,
					{ 'calendly-webhook-signature': 'v1=zz,t=yesterday' },
				],
			);
			const lead = JSON.stringify(GENERIC_LEAD);
			refused.push(
				[
					'HMAC over another body',
					'hostile-hmac',
					lead,
					{ 'x-signature': `sha256=${hmacHex(WEBHOOK_SECRET, `${lead} `)}` },
				],
				[
					'HMAC with another secret',
					'hostile-hmac',
					lead,
					{ 'x-signature': `sha256=${hmacHex('not-the-secret', lead)}` },
				],
				[
					'HMAC in base64, not hex',
					'hostile-hmac',
					lead,
					{
						'x-signature': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(lead).digest('base64')}`,
					},
				],
				['HMAC header missing', 'hostile-hmac', lead, {}],
			);
			for (const [kind, flowPath, body, headers] of refused)
				expect([kind, await post(kind, flowPath, body, headers)]).toEqual([kind, 401]);
			expect(
				await post('signed Calendly delivery', 'hostile-calendly', booking, {
					'calendly-webhook-signature': calendlySignature(booking, nowS),
				}),
			).toBe(200);
			expect(
				await post('signed HMAC delivery', 'hostile-hmac', lead, {
					'x-signature': `sha256=${hmacHex(WEBHOOK_SECRET, lead)}`,
				}),
			).toBe(200);

			// 2. Wrong types, bad encodings, content types, sizes, methods: every flow.
			const oddBodies: Array<[string, Buffer | string, Record<string, string>]> = [
				['bad JSON', '{"email": "x@example.com",', {}],
				['JSON array', '[{"email":"x@example.com"}]', {}],
				['JSON string', '"x@example.com"', {}],
				['JSON number', '16505551212', {}],
				['JSON null', 'null', {}],
				['empty body', '', {}],
				['bad UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), {}],
				['UTF-8 BOM', `\ufeff${lead}`, {}],
				[
					'wrong types',
					JSON.stringify({
						email: ['x', { a: 1 }],
						phone: { n: 1 },
						id: [1, 2],
						created_at: true,
						utm: 'x',
					}),
					{},
				],
				[
					'form body',
					'email=x%40example.com&__proto__[polluted]=1&constructor[prototype][p]=1&id=form-1',
					{ 'content-type': 'application/x-www-form-urlencoded' },
				],
				[
					'multipart body',
					'--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nx@example.com\r\n--x--',
					{ 'content-type': 'multipart/form-data; boundary=x' },
				],
				[
					'XML body',
					'<lead><email>x@example.com</email></lead>',
					{ 'content-type': 'application/xml' },
				],
				['no content type', lead, { 'content-type': '' }],
				['300 KB body', JSON.stringify({ ...GENERIC_LEAD, notes: 'x'.repeat(300_000) }), {}],
				['5 MB body', Buffer.alloc(5 * 1024 * 1024, 0x61), { 'content-type': 'text/plain' }],
				['100,000-deep nesting', `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, {}],
				[
					'250 KB attribute with an @ and no dot',
					JSON.stringify({
						...GENERIC_LEAD,
						id: 'big-attr-1',
						budget: `${'a'.repeat(120_000)}@${'b'.repeat(120_000)}`,
					}),
					{},
				],
			];
			for (const flow of FLOWS) {
				for (const [kind, body, headers] of oddBodies) {
					const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
					const status = await post(kind, flow.path, buffer, {
						...signatureFor(flow, buffer),
						...headers,
					});
					expect([flow.path, kind, status >= 200 && status < 500]).toEqual([flow.path, kind, true]);
				}
				for (const method of ['PUT', 'DELETE', 'PATCH', 'GET']) {
					const status = await post(`${method} request`, flow.path, lead, {}, method);
					expect([flow.path, method, status >= 200 && status < 500]).toEqual([
						flow.path,
						method,
						true,
					]);
				}
				// A browser on a foreign origin (the script source allows one site).
				await post('foreign origin', flow.path, lead, { origin: 'https://evil.example' });
			}

			// 3. Fuzzed bodies and headers from the property tests' generators, signed where the flow signs.
			const headerFuzz = fc.dictionary(
				fc.constantFrom(
					'x-forwarded-for',
					'x-real-ip',
					'user-agent',
					'origin',
					'content-type',
					'typeform-signature',
					'x-signature',
					'calendly-webhook-signature',
				),
				fc.string({ maxLength: 80, unit: fc.constantFrom(...'abcXYZ019 ,;=/+:.-@'.split('')) }),
				{ maxKeys: 3 },
			);
			for (const flow of FLOWS) {
				const cases = fc.sample(fc.tuple(bodyFor(flow.source), headerFuzz, fc.boolean()), {
					seed: PROPERTY_SEED,
					numRuns: FUZZED,
				});
				for (const [body, headers, fuzzHeaders] of cases) {
					const status = await post('fuzzed body', flow.path, body, {
						...(fuzzHeaders ? headers : {}),
						...signatureFor(flow, body),
					});
					expect([flow.path, status >= 200 && status < 500]).toEqual([flow.path, true]);
				}
			}

			// 4. Requests HTTP itself refuses: a 20 KB header, a body cut short.
			const hugeHeader = await fetch(url('hostile-open'), {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-padding': 'p'.repeat(20_000) },
				body: lead,
			});
			sent.push({
				kind: 'header of 20 KB',
				workflow: 'hostile-open',
				status: hugeHeader.status,
				accepted: false,
			});
			expect(hugeHeader.status).toBe(431);
			await new Promise<void>((resolve) => {
				const { port } = new URL(server.baseUrl);
				const socket = net.connect(Number(port), '127.0.0.1', () => {
					socket.end(
						'POST /webhook/hostile-open HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":',
					);
				});
				socket.on('data', () => undefined);
				socket.on('close', () => resolve());
				socket.on('error', () => resolve());
				socket.setTimeout(10_000, () => socket.destroy());
			});
			sent.push({
				kind: 'body cut short (connection closed)',
				workflow: 'hostile-open',
				status: 0,
				accepted: false,
			});

			// 5. n8n still answers, and still accepts a genuine delivery.
			const after = typeformDelivery({
				token: 'hostile0000009',
				email: 'kim@umbrella.example',
				firstName: 'Kim',
			});
			expect(
				await post('signed delivery after the storm', 'hostile-typeform', after, {
					'typeform-signature': typeformSignature(after, WEBHOOK_SECRET),
				}),
			).toBe(200);
			expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);

			// Only 2xx and 4xx (the cut-short request has no answer to count).
			const answered = sent.filter((s) => s.status !== 0);
			expect(answered.filter((s) => s.status < 200 || s.status >= 500)).toEqual([]);

			// One execution per accepted capture, per workflow, and nothing more.
			const executions = (workflowId: string) => server.executionCount(workflowId);
			const expected = Object.fromEntries(
				FLOWS.map((flow) => [
					flow.path,
					sent.filter((s) => s.workflow === flow.path && s.accepted).length,
				]),
			);
			for (const flow of FLOWS) {
				await until(
					async () => (await executions(ids[flow.path])) >= expected[flow.path],
					120_000,
					`${expected[flow.path]} executions of ${flow.path}`,
				);
			}
			await new Promise((r) => setTimeout(r, 3_000));
			const started = Object.fromEntries(
				await Promise.all(
					FLOWS.map(async (flow) => [flow.path, await executions(ids[flow.path])] as const),
				),
			);
			expect(started).toEqual(expected);

			const byKind: Record<string, Record<string, number>> = {};
			const byStatus: Record<string, number> = {};
			for (const s of sent) {
				const status = s.status === 0 ? 'no answer' : String(s.status);
				byKind[s.kind] ??= {};
				byKind[s.kind][status] = (byKind[s.kind][status] ?? 0) + 1;
				byStatus[status] = (byStatus[status] ?? 0) + 1;
			}
			const report = {
				requests: sent.length,
				byStatus,
				executionsStarted: started,
				accepted: expected,
				byKind,
			};
			fs.mkdirSync(path.join(REPO, '.e2e'), { recursive: true });
			fs.writeFileSync(
				path.join(REPO, '.e2e', 'hostile-report.json'),
				JSON.stringify(report, null, 2),
			);
			// eslint-disable-next-line no-console
			console.log(
				`hostile deliveries: ${sent.length} requests, answers ${JSON.stringify(byStatus)}, executions started ${JSON.stringify(started)}\nby kind: ${JSON.stringify(byKind)}`,
			);
		} finally {
			await server.stop();
		}
	});
});
