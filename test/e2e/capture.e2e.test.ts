import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type Redis from 'ioredis';
import type { Browser } from 'playwright-core';
import { captureLogKey } from '../../shared/captureLog';
import { launchChromium } from '../browser/support/chromium';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { captureWeek, FREE_DOMAINS, seedCaptureLog } from '../support/captureWeek';
import { typeformDelivery as deliveryOf, typeformSignature as signTypeform } from '../support/deliveries';
import { chain, n8nWithPackage, node, until, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-token-${randomUUID()}`;
const WEBHOOK_SECRET = `e2e-typeform-secret-${randomUUID()}`;
const PIXEL = '246813579024680';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;
interface Received {
	event: { event_id: string; event_name: string; user_data: Record<string, unknown> };
}

const typeformDelivery = (token: string) =>
	deliveryOf({ token, email: 'Dana.Reyes@Initech.co.uk', firstName: 'Dana', phone: '+442079460958', hidden: { utm_source: 'facebook', fbclid: 'IwAR_typeform_e2e' } });
const typeformSignature = (body: string, secret = WEBHOOK_SECRET) => signTypeform(body, secret);

describe('Lead Capture Trigger → Lead Rule Filter → Meta Conversions in a real n8n', () => {
	let standIn: StandIn;
	let instance: N8nInstance;
	let admin: Redis;
	const keyPrefix = `e2e-capture-${randomUUID().slice(0, 8)}`;
	const meta = { id: 'e2eCapMetaCred01', name: 'Meta (stand-in)' };
	const redis = { id: 'e2eCapRedisCred1', name: 'Dedup Redis' };
	const secret = { id: 'e2eCapSecretCr01', name: 'Typeform secret' };

	const sender = (x: number) =>
		node(
			'Meta Conversions',
			`${PKG}.metaConversions`,
			1,
			[x, 0],
			{ event: 'fromState', actionSource: 'auto', leadInput: 'record', dedupStore: 'redis', options: {} },
			{ credentials: { leadCapiMetaApi: meta, leadCapiRedisApi: redis } },
		);

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
		instance = await n8nWithPackage();
		instance.importCredentials([
			{ ...meta, type: 'leadCapiMetaApi', data: { pixelId: PIXEL, accessToken: TOKEN, baseUrl: standIn.url } },
			{ ...redis, type: 'leadCapiRedisApi', data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix } },
			{ ...secret, type: 'leadCapiWebhookApi', data: { secret: WEBHOOK_SECRET } },
		]);
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await standIn?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('fires one Lead per signed Typeform delivery, nothing for a redelivery, 401 and no execution for a bad signature; the capture script fires a partial event and a Lead', async () => {
		const typeformFlow = {
			id: 'e2eCapTypeform1',
			name: 'e2e: Typeform → completed leads → Meta',
			nodes: [
				node(
					'Typeform',
					`${PKG}.leadCaptureTrigger`,
					1,
					[0, 0],
					{ source: 'typeform', path: 'e2e-typeform', authentication: 'signature', captureLog: 'redis', settings: {} },
					{ webhookId: randomUUID(), credentials: { leadCapiWebhookApi: secret, leadCapiRedisApi: redis } },
				),
				node('Completed Only', `${PKG}.leadRuleFilter`, 1, [220, 0], { operation: 'filter', sendMode: 'automatic_completed', options: {} }),
				sender(440),
			],
			connections: chain('Typeform', 'Completed Only', 'Meta Conversions'),
			settings: { executionOrder: 'v1' },
		};

		// The site under test: a page on its own loopback origin with the script tag.
		let n8nBase = '';
		const page = http.createServer((req, res) => {
			if (req.url?.startsWith('/thanks')) {
				res.writeHead(204).end();
				return;
			}
			res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
			res.end(`<!doctype html><html><body>
<iframe name="sink" hidden></iframe>
<form id="demo" method="post" action="/thanks" target="sink">
  <input id="email" type="email" name="email" autocomplete="email">
  <input id="fname" name="first-name">
  <button id="send" type="submit">Book a demo</button>
</form>
<script src="${n8nBase}/webhook/e2e-site" async></script>
</body></html>`);
		});
		await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
		const pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;

		const siteFlow = {
			id: 'e2eCapSite00001',
			name: 'e2e: site script → qualified partials → Meta',
			nodes: [
				node(
					'Site Forms',
					`${PKG}.leadCaptureTrigger`,
					1,
					[0, 0],
					{ source: 'script', path: 'e2e-site', captureLog: 'redis', settings: { allowedOrigins: pageOrigin } },
					{ webhookId: randomUUID(), credentials: { leadCapiRedisApi: redis } },
				),
				node('Qualified Partials', `${PKG}.leadRuleFilter`, 1, [220, 0], {
					operation: 'filter',
					sendMode: 'automatic_match',
					rulesApplyTo: 'partial',
					combinator: 'and',
					rules: { condition: [{ field: 'contact.email', matchType: 'is_work_email', pattern: '' }] },
					options: {},
				}),
				sender(440),
			],
			connections: chain('Site Forms', 'Qualified Partials', 'Meta Conversions'),
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(typeformFlow, { activate: true });
		instance.importWorkflow(siteFlow, { activate: true });

		const server = await instance.serve();
		n8nBase = server.baseUrl;
		let browser: Browser | undefined;
		try {
			const typeformUrl = `${server.baseUrl}/webhook/e2e-typeform`;
			const executions = async () =>
				(await server.executions(typeformFlow.id)).length;
			const post = (body: string, signature?: string) =>
				fetch(typeformUrl, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...(signature ? { 'typeform-signature': signature } : {}) },
					body,
				});
			const received = () => standIn.received as Received[];

			const delivery = typeformDelivery('e2eresponse0001');
			const first = await post(delivery, typeformSignature(delivery));
			expect(first.status).toBe(200);
			expect(await first.json()).toMatchObject({ ok: true, record_id: 'e2eresponse0001', state: 'lead' });
			await until(() => received().length === 1, 30_000, 'the Typeform lead at Meta');
			expect(received()[0].event).toMatchObject({
				event_name: 'Lead',
				event_id: sha(`${PIXEL}|Lead|e2eresponse0001`),
				user_data: { em: sha('dana.reyes@initech.co.uk'), ph: sha('442079460958'), fn: sha('dana') },
			});
			await until(async () => (await executions()) === 1, 30_000, 'one Typeform execution');

			// The form tool redelivers: an execution runs, Meta gets nothing new.
			expect((await post(delivery, typeformSignature(delivery))).status).toBe(200);
			await until(async () => (await executions()) === 2, 30_000, 'the redelivery\'s execution');

			// Tampered, wrongly signed and unsigned deliveries: 401, no execution.
			const tampered = delivery.replace('Dana.Reyes', 'Eve.Reyes');
			const bad = [
				await post(tampered, typeformSignature(delivery)),
				await post(delivery, typeformSignature(delivery, 'not-the-secret')),
				await post(delivery),
			];
			expect(bad.map((r) => r.status)).toEqual([401, 401, 401]);
			expect((await bad[2].json()) as { error: string }).toMatchObject({ error: expect.stringMatching(/missing Typeform-Signature header/) });
			await new Promise((r) => setTimeout(r, 2000));
			expect(await executions()).toBe(2);
			expect(received()).toHaveLength(1);
			// Refused, but not silently: one warn line in n8n's log for the three (same path and
			// reason within a minute), naming path, source and reason, never the secret; and all
			// three counted per path and reason for the Health Report.
			const n8nLog = () => fs.readFileSync(instance.logFile, 'utf8');
			const refusedLines = (pattern: RegExp) => n8nLog().split('\n').filter((line) => pattern.test(line));
			await until(async () => refusedLines(/refused a delivery to \/e2e-typeform/).length > 0, 10_000, 'the refusal in n8n\'s log');
			expect(refusedLines(/refused a delivery to \/e2e-typeform/)).toEqual([
				expect.stringMatching(
					/Lead Capture Trigger: refused a delivery to \/e2e-typeform \(source typeform, HTTP 401, signature\): signature does not match; check that the trigger's Lead Capture Webhook credential holds the exact secret/,
				),
			]);
			expect(n8nLog()).not.toContain(WEBHOOK_SECRET);
			/** A path's refusal counters, summed over its hourly buckets (a run may straddle an hour). */
			const refusalCounters = async (capturePath: string) => {
				const sum: Record<string, string> = {};
				// No Client Key: a trigger counts refusals in its own workflow's scope (n8n's workflow id).
				const workflowId = await instance.idOf(capturePath === 'e2e-site' ? siteFlow.id : typeformFlow.id);
				for (const key of await admin.keys(`${keyPrefix}:workflow:${workflowId}:refused:${capturePath}:*`)) {
					for (const [field, value] of Object.entries(await admin.hgetall(key))) {
						sum[field] = field === '_path' ? value : String(Number(sum[field] ?? 0) + Number(value));
					}
				}
				return sum;
			};
			const typeformCounters = () => refusalCounters('e2e-typeform');
			await until(async () => (await typeformCounters()).signature === '3', 10_000, 'the Typeform refusal counter');
			expect(await typeformCounters()).toEqual({ _path: 'e2e-typeform', signature: '3' });

			// The capture script, in real Chromium, from the site's own origin.
			browser = await launchChromium();
			const context = await browser.newContext();
			const tab = await context.newPage();
			await tab.goto(`${pageOrigin}/landing?fbclid=IwAR_site_e2e&utm_source=fb`);
			const script = await fetch(`${server.baseUrl}/webhook/e2e-site`);
			expect(script.headers.get('content-type')).toMatch(/javascript/);
			await tab.locator('#fname').pressSequentially('Ana', { delay: 20 });
			await tab.locator('#email').pressSequentially('ana@globex.io', { delay: 20 });
			await until(() => received().some((r) => r.event.event_name === 'PartialLead'), 30_000, 'the PartialLead at Meta');
			// The fill's capture id, as the script keeps it for this form until the submit.
			const captureId = (await tab.evaluate(
				"JSON.parse(sessionStorage.getItem('lc_fill:/landing#demo') || '{}').id",
			)) as string;
			expect(captureId).toMatch(/^[A-Za-z0-9_-]{8,100}$/);
			await tab.locator('#send').click();
			await until(() => received().filter((r) => r.event.event_name === 'Lead').length === 2, 30_000, 'the completed Lead at Meta');
			const partial = received().find((r) => r.event.event_name === 'PartialLead')!;
			const completed = received().find((r) => r.event.event_id === sha(`${PIXEL}|Lead|browser:${captureId}`))!;
			expect(partial.event.event_id).toBe(sha(`${PIXEL}|PartialLead|browser:${captureId}`));
			expect(completed).toBeDefined();
			for (const { event } of [partial, completed]) {
				expect(event.user_data).toMatchObject({
					em: sha('ana@globex.io'),
					fbc: expect.stringMatching(/^fb\.1\.\d{13}\.IwAR_site_e2e$/),
					client_user_agent: expect.stringMatching(/Chrome/),
				});
			}
			// The capture log holds both captures of the site, redacted.
			const log = await admin.xrange(captureLogKey(keyPrefix, 'e2e-site', await instance.idOf(siteFlow.id)), '-', '+');
			expect(log.map(([, fields]) => JSON.parse(fields[fields.indexOf('r') + 1]).state)).toEqual(['partial', 'lead']);
			expect(JSON.stringify(log)).not.toContain('ana@globex.io');

			// A browser on another origin is refused.
			const foreign = await fetch(`${server.baseUrl}/webhook/e2e-site`, {
				method: 'POST',
				headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
				body: JSON.stringify({ v: 1, type: 'submit', capture_id: 'foreign-capture-1', form_id: 'x', page_url: 'https://evil.example/', fields: { email: 'x@evil.example' }, click: {}, ts: Date.now() }),
			});
			expect(foreign.status).toBe(403);
			// A malformed body: 400 with a one-line reason, no execution.
			const malformed = await fetch(`${server.baseUrl}/webhook/e2e-site`, {
				method: 'POST',
				headers: { 'content-type': 'text/plain' },
				body: '{"v":1,',
			});
			expect(malformed.status).toBe(400);
			expect(((await malformed.json()) as { error: string }).error).toMatch(/malformed/i);
			await until(async () => refusedLines(/refused a delivery to \/e2e-site/).length === 2, 10_000, 'the site refusals in n8n\'s log');
			expect(refusedLines(/refused a delivery to \/e2e-site/).map((line) => /\(source (\w+), HTTP (\d+), (\w+)\)/.exec(line)?.slice(1))).toEqual([
				['script', '403', 'origin'],
				['script', '400', 'body'],
			]);
			expect(n8nLog()).not.toContain('x@evil.example');
			// Each counter is written right after its log line, the two refusals' independently: wait for both.
			const siteCounters = () => refusalCounters('e2e-site');
			await until(async () => {
				const counters = await siteCounters();
				return counters.body === '1' && counters.origin === '1';
			}, 10_000, 'the site refusal counters');
			expect(await siteCounters()).toEqual({ _path: 'e2e-site', origin: '1', body: '1' });
		} finally {
			await browser?.close();
			await server.stop();
			await new Promise((r) => page.close(r));
		}
	});

	it('previews rules over a seeded week of captures with the same engine as the live filter', async () => {
		const now = Date.now();
		const week = captureWeek(now, 700);
		// Independently of the rules engine: completed leads always pass; partials pass when
		// the email is not free-mail and the page is a pricing page.
		const expected = week.filter(({ record }) => {
			const email = String(record.contact?.email);
			const work = !FREE_DOMAINS.includes(email.split('@')[1]);
			return record.state !== 'partial' || (work && String(record.source?.page_url).includes('/pricing'));
		}).length;
		const workflow = {
			id: 'e2eCapPreview01',
			name: 'e2e: preview qualified partials',
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
				node(
					'Preview',
					`${PKG}.leadRuleFilter`,
					1,
					[220, 0],
					{
						operation: 'preview',
						captureLogName: 'e2e-week',
						sendMode: 'automatic_match',
						rulesApplyTo: 'partial',
						combinator: 'and',
						rules: {
							condition: [
								{ field: 'contact.email', matchType: 'is_work_email', pattern: '' },
								{ field: 'source.page_url', matchType: 'contains', pattern: '/pricing' },
							],
						},
					},
					{ credentials: { leadCapiRedisApi: redis } },
				),
			],
			connections: chain('Start', 'Preview'),
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(workflow);
		// The capture log is the workflow's own (its id as n8n gave it).
		await seedCaptureLog(admin, captureLogKey(keyPrefix, 'e2e-week', await instance.idOf(workflow.id)), week);
		const run = await instance.execute(workflow.id);
		expect(run.status).toBe('success');
		// The report comes out of the node's only output, Preview (not a Send output).
		expect(run.outputs['Preview']).toBe(1);
		const [report] = run.nodes['Preview'];
		expect(report).toMatchObject({
			capture_log: 'e2e-week',
			considered: 700,
			matched: expected,
			summary: `would have matched ${expected} of 700 capture-ready leads in the last 7 days`,
			truncated: false,
		});
		fs.mkdirSync(path.join(__dirname, '..', '..', '.e2e'), { recursive: true });
		fs.writeFileSync(path.join(__dirname, '..', '..', '.e2e', 'preview-report.json'), JSON.stringify(report, null, 2));
		// eslint-disable-next-line no-console
		console.log(`preview over a seeded week: ${report.summary}\n${JSON.stringify(report.conditions)}`);
	});
});
