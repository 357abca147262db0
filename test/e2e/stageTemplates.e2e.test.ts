import { createHash, createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { n8nWithPackage, until, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, localizeTemplate, DESTINATIONS, TOKENS } = require('../../scripts/n8n/demo.js');

const REPO = path.join(__dirname, '..', '..');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const readTemplate = (name: string) => JSON.parse(fs.readFileSync(path.join(REPO, 'examples', name), 'utf8'));
const hoursAgo = (h: number) => Date.now() - h * 3_600_000;
const ACTION = `customers/${DESTINATIONS.googleCustomer}/conversionActions/${DESTINATIONS.googleConversionAction}`;

type DemoPlatforms = Awaited<ReturnType<typeof startDemoPlatforms>>;
interface MetaEvent {
	event_name: string;
	event_id: string;
	event_time: number;
	action_source: string;
	user_data: Record<string, unknown>;
	custom_data: Record<string, unknown>;
}

/** One HubSpot webhooks API event: a deal's stage changed. */
let eventId = 100;
const dealStage = (dealId: number, stage: string, at: number) => ({
	eventId: eventId++,
	subscriptionId: 2881,
	portalId: 27356661,
	appId: 1160452,
	occurredAt: at,
	subscriptionType: 'deal.propertyChange',
	attemptNumber: 0,
	objectId: dealId,
	propertyName: 'dealstage',
	propertyValue: stage,
	changeSource: 'CRM_UI',
});
/** HubSpot's v1 request signature: hex SHA-256 of the app's client secret followed by the body. */
const hubspotHeaders = (body: string, secret = TOKENS.webhook) => ({
	'content-type': 'application/json',
	'x-hubspot-signature': sha(`${secret}${body}`),
	'x-hubspot-signature-version': 'v1',
});

/**
 * The two stage templates of examples/, as shipped (HubSpot's API URL pointed at its stand-in as
 * `npm run dev` does), live in a real n8n: HubSpot deal stages → Meta Conversion Leads + Google
 * Ads restate / retract, and Meta Lead Ads → Lead and later stages by Meta's lead id.
 */
describe('stage templates in a real n8n', () => {
	let instance: N8nInstance;
	let platforms: DemoPlatforms;
	let admin: Redis;
	let server: Awaited<ReturnType<N8nInstance['serve']>>;
	const keyPrefix = `e2e-stagetpl-${randomUUID().slice(0, 8)}`;
	const templates = {
		hubspot: readTemplate('hubspot-deal-stages-meta-crm-google-adjust.json'),
		leadAds: readTemplate('meta-lead-ads-stage-events.json'),
	};
	const metaEvents = () => (platforms.standIns.meta.received as Array<{ event: MetaEvent }>).map((r) => r.event);
	const post = (pathName: string, body: string, headers: Record<string, string>) =>
		fetch(`${server.baseUrl}/webhook/${pathName}`, { method: 'POST', headers, body });
	const settle = () => new Promise((r) => setTimeout(r, 4_000));

	beforeAll(async () => {
		platforms = await startDemoPlatforms({ redisUrl: process.env.REDIS_URL, keyPrefix });
		instance = await n8nWithPackage();
		instance.importCredentials(platforms.credentials);
		for (const workflow of Object.values(templates)) {
			instance.importWorkflow(localizeTemplate(workflow, platforms), { activate: true });
		}
		admin = adminRedis();
		server = await instance.serve();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await server?.stop();
		await platforms?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('hubspot-deal-stages-meta-crm-google-adjust: Lead → Qualified → Booked → Won $4,200 and Lead → Lost, once per stage per platform across re-sent webhooks; one restatement, one retraction', async () => {
		const { hubspot } = platforms;
		hubspot.addDeal('7001', { amount: '4200', deal_currency_code: 'EUR' }, {
			id: '501',
			properties: { email: 'Won.Buyer@Example.com', phone: '+1 415 555 2671', firstname: 'Ana', country: 'US', hs_google_click_id: 'Cj0KCQiA-tpl-won' },
		});
		hubspot.addDeal('7002', { amount: '900', deal_currency_code: 'USD' }, {
			id: '502',
			properties: { email: 'lost.buyer@example.com', hs_google_click_id: 'Cj0KCQiA-tpl-lost' },
		});
		// Four HubSpot requests; the third carries two changes of one deal, newest first (HubSpot's
		// batches are not promised in time order): each change is its own item, oldest first.
		const requests = [
			[dealStage(7001, 'lead', hoursAgo(50)), dealStage(7002, 'lead', hoursAgo(50))],
			// A bad element (no stage) between two good ones: refused alone, the others go on.
			[dealStage(7001, 'qualifiedtobuy', hoursAgo(30)), dealStage(7003, '', hoursAgo(25)), dealStage(7002, 'closedlost', hoursAgo(20))],
			[dealStage(7001, 'closedwon', hoursAgo(1)), dealStage(7001, 'appointmentscheduled', hoursAgo(10))],
		].map((events) => JSON.stringify(events));
		const answers = [];
		for (const [i, body] of requests.entries()) {
			const res = await post('hubspot-deal-stages', body, hubspotHeaders(body));
			const answer = (await res.json()) as { leads: number; refused?: Array<{ index: number; reason: string }> };
			answers.push([res.status, answer.leads, answer.refused ?? []]);
			// One request at a time, as a lead's stages happen: wait for this one's events.
			const expected = [2, 4, 6][i];
			await until(() => metaEvents().length >= expected, 30_000, `${expected} stage events at Meta`);
		}
		expect(answers).toEqual([
			[200, 2, []],
			[200, 2, [{ index: 1, reason: 'propertyValue (the stage) is missing or empty' }]],
			[200, 2, []],
		]);
		await until(() => platforms.standIns.google.adjustments.length === 2, 30_000, 'the restatement and the retraction at Google');

		// HubSpot retries (no 200 seen, or a replay): every request again, and a wrongly signed one.
		for (const body of requests) expect((await post('hubspot-deal-stages', body, hubspotHeaders(body))).status).toBe(200);
		expect((await post('hubspot-deal-stages', requests[0], hubspotHeaders(requests[0], 'not-the-client-secret'))).status).toBe(401);
		await settle();

		const meta = metaEvents();
		expect(meta.map((e) => e.event_name).sort()).toEqual(['Booked', 'Lead', 'Lead', 'Lost', 'Qualified', 'Won']);
		expect(new Set(meta.map((e) => e.event_id)).size).toBe(6);
		// Deal 7001's stages reached Meta in the order they happened, Booked before Won although
		// HubSpot's request listed Won first.
		const ids7001 = ['Lead', 'Qualified', 'Booked', 'Won'].map((name) => sha(`${DESTINATIONS.metaPixel}|${name}|7001`));
		expect(meta.filter((e) => ids7001.includes(e.event_id)).map((e) => e.event_name)).toEqual(['Lead', 'Qualified', 'Booked', 'Won']);
		expect(meta.find((e) => e.event_name === 'Won')).toMatchObject({
			event_id: sha(`${DESTINATIONS.metaPixel}|Won|7001`),
			action_source: 'system_generated',
			user_data: { em: sha('won.buyer@example.com') },
			custom_data: { event_source: 'crm', lead_event_source: 'HubSpot', value: 4200, currency: 'EUR' },
		});
		for (const e of meta) expect(e.custom_data).toMatchObject({ event_source: 'crm', lead_event_source: 'HubSpot' });
		// The stage times are HubSpot's occurredAt, never rewritten.
		expect(meta.find((e) => e.event_name === 'Booked')!.event_time).toBe(Math.floor(JSON.parse(requests[2])[1].occurredAt / 1000));

		const google = platforms.standIns.google;
		expect(google.received.map((r: { conversion: { orderId: string; gclid: string } }) => [r.conversion.orderId, r.conversion.gclid]).sort()).toEqual(
			[
				[sha(`${ACTION}|lead|7001`), 'Cj0KCQiA-tpl-won'],
				[sha(`${ACTION}|lead|7002`), 'Cj0KCQiA-tpl-lost'],
			].sort(),
		);
		expect(
			google.adjustments.map((a: { adjustment: Record<string, unknown> }) => [
				a.adjustment.adjustmentType,
				a.adjustment.orderId,
				(a.adjustment.restatementValue as { adjustedValue?: number } | undefined)?.adjustedValue ?? null,
			]),
		).toEqual([
			['RETRACTION', sha(`${ACTION}|lead|7002`), null],
			['RESTATEMENT', sha(`${ACTION}|lead|7001`), 4200],
		]);
		// eslint-disable-next-line no-console
		console.log(`hubspot template: Meta ${meta.length} stage events, Google ${google.received.length} lead conversions + ${google.adjustments.length} adjustments, after ${requests.length * 2} webhook requests`);
	});

	it('meta-lead-ads-stage-events: a signed leadgen delivery → Lead CRM events by Meta lead id; the CRM’s later stages by the same id, once across re-sent webhooks', async () => {
		const before = metaEvents().length;
		const created = Math.floor(Date.now() / 1000) - 3_600;
		const leadIds = ['1234567890123456', '12345678901234567'];
		const delivery = JSON.stringify({
			object: 'page',
			entry: [{
				id: '100000000000001',
				time: created + 5,
				changes: leadIds.map((id, i) => ({
					field: 'leadgen',
					value: { leadgen_id: id, created_time: created + i, page_id: '100000000000001', form_id: '5550001112223', ad_id: '120200000000001', adgroup_id: '120200000000002' },
				})),
			}],
		});
		const metaSigned = (body: string, secret = TOKENS.webhook) => ({
			'content-type': 'application/json',
			'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
		});
		const check = await fetch(`${server.baseUrl}/webhook/meta-lead-ads?hub.mode=subscribe&hub.verify_token=demo-verify-token&hub.challenge=424242`);
		expect([check.status, await check.text()]).toEqual([200, '424242']);
		expect((await post('meta-lead-ads', delivery, metaSigned(delivery))).status).toBe(200);
		await until(() => metaEvents().length === before + 2, 30_000, 'two Lead events at Meta');

		const stage = (leadId: string, name: string, hours: number, extra: Record<string, unknown> = {}) =>
			JSON.stringify({ lead_id: leadId, stage: name, changed_at: new Date(hoursAgo(hours)).toISOString(), ...extra });
		const crmSigned = (body: string) => ({
			'content-type': 'application/json',
			'x-signature': createHmac('sha256', TOKENS.webhook).update(body).digest('hex'),
		});
		const changes = [stage(leadIds[0], 'Qualified', 0.5), stage(leadIds[0], 'Won', 0.1, { amount: '1500', currency: 'USD' }), stage(leadIds[1], 'Lost', 0.2)];
		for (const body of changes) expect((await post('meta-lead-stages', body, crmSigned(body))).status).toBe(200);
		await until(() => metaEvents().length === before + 5, 30_000, 'three stage events at Meta');

		// Meta redelivers; the CRM re-sends; a delivery signed with another secret is refused.
		expect((await post('meta-lead-ads', delivery, metaSigned(delivery))).status).toBe(200);
		for (const body of changes) expect((await post('meta-lead-stages', body, crmSigned(body))).status).toBe(200);
		expect((await post('meta-lead-ads', delivery, metaSigned(delivery, 'not-the-app-secret'))).status).toBe(401);
		await settle();

		const sent = metaEvents().slice(before);
		expect(sent.map((e) => [e.event_name, e.user_data.lead_id]).sort()).toEqual(
			[
				['Lead', leadIds[0]],
				['Lead', leadIds[1]],
				['Qualified', leadIds[0]],
				['Won', leadIds[0]],
				['Lost', leadIds[1]],
			].sort(),
		);
		for (const e of sent) {
			expect(e).toMatchObject({ action_source: 'system_generated', custom_data: { event_source: 'crm', lead_event_source: 'n8n CRM' } });
		}
		expect(sent.find((e) => e.event_name === 'Lead' && e.user_data.lead_id === leadIds[0])).toMatchObject({
			event_id: sha(`${DESTINATIONS.metaPixel}|Lead|${leadIds[0]}`),
			event_time: created,
		});
		expect(sent.find((e) => e.event_name === 'Won')!.custom_data).toMatchObject({ value: 1500, currency: 'USD' });
	});
});
