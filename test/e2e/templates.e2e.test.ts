import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type Redis from 'ioredis';
import type { Browser } from 'playwright-core';
import { captureLogKey } from '../../shared/captureLog';
import { launchChromium } from '../browser/support/chromium';
import { captureWeek, FREE_DOMAINS, seedCaptureLog } from '../support/captureWeek';
import {
	calcomBooking,
	calcomSignature,
	hubspotDealWon,
	typeformDelivery,
	typeformSignature,
} from '../support/deliveries';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { n8nWithPackage, until, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, DESTINATIONS, TOKENS } = require('../../scripts/n8n/demo.js');

const REPO = path.join(__dirname, '..', '..');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const readTemplate = (name: string) => JSON.parse(fs.readFileSync(path.join(REPO, 'examples', name), 'utf8'));
/** The Data Manager stand-in's destination key: operating account / conversion action ID. */
const DM_DESTINATION = (id: string) => `${DESTINATIONS.googleCustomer}/${id}`;

type DemoPlatforms = Awaited<ReturnType<typeof startDemoPlatforms>>;
interface Received {
	[key: string]: unknown;
	event: Record<string, unknown>;
}

/**
 * The templates of examples/, as shipped, in a real n8n with their webhooks live, against the
 * loopback stand-ins `npm run dev` uses: what an ops team imports and goes live with.
 */
describe('workflow templates in a real n8n', () => {
	let instance: N8nInstance;
	let platforms: DemoPlatforms;
	let admin: Redis;
	const keyPrefix = `e2e-templates-${randomUUID().slice(0, 8)}`;
	const templates = {
		site: readTemplate('site-capture-qualified-partials-meta-tiktok.json'),
		booking: readTemplate('booking-schedule-meta-google.json'),
		crm: readTemplate('crm-deal-won-purchase-five-platforms.json'),
		typeform: readTemplate('typeform-lead-with-preview.json'),
	};
	const events = (name: 'meta' | 'tiktok' | 'pinterest' | 'microsoft') =>
		(platforms.standIns[name].received as Received[]).map((r) => r.event);
	/** What the Data Manager stand-in recorded: each event with its destination (`account/action`). */
	const googleRows = () =>
		(platforms.standIns.googleDataManager.received as Array<{ destination: string; event: Record<string, unknown> }>).map((r): Record<string, unknown> => ({
			...r.event,
			destination: r.destination,
		}));

	beforeAll(async () => {
		platforms = await startDemoPlatforms({ redisUrl: process.env.REDIS_URL, keyPrefix });
		instance = await n8nWithPackage();
		instance.importCredentials(platforms.credentials);
		for (const workflow of Object.values(templates)) instance.importWorkflow(workflow, { activate: true });
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('typeform-lead-with-preview: the preview runs before going live, over a week of captures', async () => {
		const now = Date.now();
		const week = captureWeek(now, 700);
		// The template's capture log is its workflow's own (the id n8n gave it on import).
		await seedCaptureLog(admin, captureLogKey(keyPrefix, 'typeform-leads', await instance.idOf(templates.typeform.id)), week);
		const expected = week.filter(({ record }) => !FREE_DOMAINS.includes(String(record.contact?.email).split('@')[1])).length;
		const run = await instance.execute(templates.typeform.id);
		expect(run.status).toBe('success');
		// The report comes out of the node's only output, Preview (not a Send output).
		expect(run.outputs['Preview Rules on Last 7 Days']).toBe(1);
		const [report] = run.nodes['Preview Rules on Last 7 Days'];
		expect(report).toMatchObject({
			capture_log: 'typeform-leads',
			considered: 700,
			matched: expected,
			summary: `would have matched ${expected} of 700 capture-ready leads in the last 7 days`,
		});
		// eslint-disable-next-line no-console
		console.log(`template preview: ${report.summary}`);
	});

	it('serves every template live: site partials to Meta + TikTok, Lead then Schedule to Meta + Google, CRM Purchase to all five, Typeform Lead to Meta', async () => {
		const server = await instance.serve();
		let browser: Browser | undefined;
		const page = http.createServer((req, res) => {
			if (req.method === 'POST') {
				res.writeHead(204).end();
				return;
			}
			res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
			res.end(`<!doctype html><html><body>
<iframe name="sink" hidden></iframe>
<form id="demo" method="post" action="/thanks" target="sink">
  <input id="email" type="email" name="email">
  <button id="send" type="submit">Book a demo</button>
</form>
<script src="${server.baseUrl}/webhook/site-leads" async></script>
</body></html>`);
		});
		await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
		const site = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
		try {
			// 1. Site capture script → qualified partials → Meta + TikTok.
			browser = await launchChromium();
			const visit = async (email: string) => {
				const context = await browser!.newContext();
				const tab = await context.newPage();
				await tab.goto(`${site}/pricing?fbclid=IwAR_template&ttclid=E.C.P.template`);
				await tab.locator('#email').pressSequentially(email, { delay: 15 });
				return { context, tab };
			};
			const work = await visit('ana@globex.io');
			await until(() => events('meta').some((e) => e.event_name === 'PartialLead'), 30_000, 'the qualified partial at Meta');
			await until(() => events('tiktok').some((e) => e.event === 'PartialLead'), 30_000, 'the qualified partial at TikTok');
			await work.tab.locator('#send').click();
			const free = await visit('bob@gmail.com');
			await free.tab.waitForTimeout(2_000); // the debounce passes; a free-mail partial is not qualified
			await free.tab.locator('#send').click();
			await until(() => events('meta').filter((e) => e.event_name === 'Lead').length === 2, 30_000, 'two completed Leads at Meta');
			await until(() => events('tiktok').filter((e) => e.event === 'SubmitForm').length === 2, 30_000, 'two completed leads at TikTok');
			expect(events('meta').map((e) => e.event_name).sort()).toEqual(['Lead', 'Lead', 'PartialLead']);
			expect(events('tiktok').map((e) => e.event).sort()).toEqual(['PartialLead', 'SubmitForm', 'SubmitForm']);
			await work.context.close();
			await free.context.close();

			// 2. A form fill, then the booking: Lead and Schedule, separate moments, separate ids.
			const before = { meta: events('meta').length, google: googleRows().length };
			const form = typeformDelivery({ token: 'tpl-form-0001', email: 'Kim.Ito@Umbrella.de', firstName: 'Kim' });
			const formAnswer = await fetch(`${server.baseUrl}/webhook/demo-form`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'typeform-signature': typeformSignature(form, TOKENS.webhook) },
				body: form,
			});
			expect(formAnswer.status).toBe(200);
			const booking = calcomBooking({ uid: 'tplBookingUid01', email: 'kim.ito@umbrella.de', name: 'Kim Ito' });
			const bookingAnswer = await fetch(`${server.baseUrl}/webhook/demo-booking`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-cal-signature-256': calcomSignature(booking, TOKENS.webhook) },
				body: booking,
			});
			expect(bookingAnswer.status).toBe(200);
			await until(() => events('meta').length === before.meta + 2 && googleRows().length === before.google + 2, 30_000, 'Lead and Schedule at Meta and Google');
			const metaNew = events('meta').slice(before.meta);
			expect(metaNew.map((e) => [e.event_name, e.event_id]).sort()).toEqual([
				['Lead', sha(`${DESTINATIONS.metaPixel}|Lead|tpl-form-0001`)],
				['Schedule', sha(`${DESTINATIONS.metaPixel}|Schedule|tplBookingUid01`)],
			]);
			const googleNew = googleRows().slice(before.google);
			expect(googleNew.map((c) => c.destination).sort()).toEqual([
				DM_DESTINATION(DESTINATIONS.googleConversionAction),
				DM_DESTINATION(DESTINATIONS.googleScheduleAction),
			]);
			expect(new Set(googleNew.map((c) => c.transactionId)).size).toBe(2);

			// 3. CRM deal won → Purchase with value and currency to all five; a redelivery sends nothing.
			const counts = () => ({
				meta: events('meta').length,
				pinterest: events('pinterest').length,
				tiktok: events('tiktok').length,
				google: googleRows().length,
				microsoft: events('microsoft').length,
			});
			const start = counts();
			const deal = hubspotDealWon({ objectId: 90210, amount: '1,200.50', currency: 'usd', email: 'robin.diaz@example.com', phone: '+1 415 555 2671', gclid: 'Cj0KCQiA-template-deal' });
			const post = () => fetch(`${server.baseUrl}/webhook/crm-deal-won`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deal });
			expect((await post()).status).toBe(200);
			await until(() => Object.entries(counts()).every(([k, n]) => n === start[k as keyof typeof start] + 1), 30_000, 'the Purchase at all five platforms');
			expect(events('meta').at(-1)).toMatchObject({ event_name: 'Purchase', custom_data: { value: 1200.5, currency: 'USD' } });
			expect(events('pinterest').at(-1)).toMatchObject({ event_name: 'checkout', custom_data: { value: '1200.5', currency: 'USD' } });
			expect(events('tiktok').at(-1)).toMatchObject({ event: 'Purchase', properties: { value: 1200.5, currency: 'USD' } });
			expect(googleRows().at(-1)).toMatchObject({
				destination: DM_DESTINATION(DESTINATIONS.googlePurchaseAction),
				conversionValue: 1200.5,
				currency: 'USD',
				adIdentifiers: { gclid: 'Cj0KCQiA-template-deal' },
			});
			expect(events('microsoft').at(-1)).toMatchObject({ eventName: 'purchase', customData: { value: 1200.5, currency: 'USD' } });
			expect((await post()).status).toBe(200);
			await new Promise((r) => setTimeout(r, 3_000));
			expect(counts()).toEqual(Object.fromEntries(Object.entries(start).map(([k, n]) => [k, n + 1])));

			// 4. The Typeform template, live: a work email is a Lead at Meta.
			const metaBefore = events('meta').length;
			const lead = typeformDelivery({ token: 'tpl-typeform-01', email: 'lee@initech.com' });
			const answer = await fetch(`${server.baseUrl}/webhook/typeform-leads`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'typeform-signature': typeformSignature(lead, TOKENS.webhook) },
				body: lead,
			});
			expect(answer.status).toBe(200);
			await until(() => events('meta').length === metaBefore + 1, 30_000, 'the Typeform Lead at Meta');
			expect(events('meta').at(-1)).toMatchObject({ event_name: 'Lead', event_id: sha(`${DESTINATIONS.metaPixel}|Lead|tpl-typeform-01`) });
		} finally {
			await browser?.close();
			await server.stop();
			await new Promise((r) => page.close(r));
		}
	});
});
