#!/usr/bin/env node
// @ts-check
/**
 * Writes the workflow templates in examples/ (`node scripts/examples/generate.js`). One
 * generator keeps them consistent: the demo credentials of scripts/n8n/demo.js, the same sender
 * parameters, and fixed node and webhook ids so a re-import updates a workflow in place.
 */
const fs = require('node:fs');
const path = require('node:path');
const { DEMO, DESTINATIONS } = require('../n8n/demo.js');

const ROOT = path.join(__dirname, '..', '..', 'examples');
const PKG = 'n8n-nodes-lead-capi';
const cred = (/** @type {keyof typeof DEMO} */ key) => ({ id: DEMO[key].id, name: DEMO[key].name });
const CRED = {
	meta: { leadCapiMetaApi: cred('meta') },
	pinterest: { leadCapiPinterestApi: cred('pinterest') },
	tiktok: { leadCapiTiktokApi: cred('tiktok') },
	// Google Ads through the Data Manager API (node version 2): OAuth only, no developer token.
	google: { leadCapiGoogleDataManagerOAuth2Api: cred('googleDataManager') },
	microsoft: { leadCapiMicrosoftApi: cred('microsoft') },
};
const REDIS = { leadCapiRedisApi: cred('redis') };
/** The Outbox Key `npm run dev` creates: every sender queues what a platform cannot take now. */
const OUTBOX = { leadCapiOutboxApi: cred('outboxKey') };
/**
 * A workflow with more than one sender: each sender's failed items leave on its own error output
 * and the other senders still run (docs/senders.md#fan-outs-that-keep-going).
 */
const FAN_OUT = { onError: 'continueErrorOutput' };
const SECRET = { leadCapiWebhookApi: cred('webhookSecret') };
const TYPES = {
	meta: 'metaConversions',
	pinterest: 'pinterestConversions',
	tiktok: 'tiktokEvents',
	google: 'googleAdsConversions',
	microsoft: 'microsoftConversions',
};

class Workflow {
	/** @param {string} id @param {string} name @param {string} seed */
	constructor(id, name, seed) {
		this.id = id;
		this.name = name;
		this.seed = seed;
		/** @type {object[]} */
		this.nodes = [];
		/** @type {Record<string, { main: object[][] }>} */
		this.connections = {};
	}

	/** @param {string} name @param {string} type @param {number[]} position @param {object} parameters @param {object} [extra] */
	add(name, type, position, parameters, extra = {}) {
		const n = this.nodes.length + 1;
		this.nodes.push({
			id: `${this.seed}-0000-4000-8000-${String(n).padStart(12, '0')}`,
			name,
			type,
			typeVersion: 1,
			position,
			parameters,
			...extra,
		});
		return name;
	}

	/** @param {string} name @param {number[]} position @param {object} parameters @param {object} credentials */
	trigger(name, position, parameters, credentials) {
		const n = this.nodes.length + 1;
		return this.add(name, `${PKG}.leadCaptureTrigger`, position, parameters, {
			webhookId: `${this.seed}-0000-4000-9000-${String(n).padStart(12, '0')}`,
			credentials,
		});
	}

	/** @param {keyof typeof TYPES} platform @param {string} name @param {number[]} position @param {object} [extra] */
	sender(platform, name, position, extra = {}) {
		const parameters = {
			event: 'fromState',
			...(platform === 'meta' ? { actionSource: 'auto' } : {}),
			leadInput: 'record',
			dedupStore: 'redis',
			options: {},
			...extra,
		};
		return this.add(name, `${PKG}.${TYPES[platform]}`, position, parameters, {
			...(platform === 'google' ? { typeVersion: 2 } : {}),
			credentials: { ...CRED[platform], ...REDIS, ...OUTBOX },
		});
	}

	/** @param {string} from @param {string[]} to @param {number} [output] */
	link(from, to, output = 0) {
		const outputs = (this.connections[from] ??= { main: [] }).main;
		while (outputs.length <= output) outputs.push([]);
		outputs[output].push(...to.map((node) => ({ node, type: 'main', index: 0 })));
	}

	/** @param {string} file */
	write(file) {
		const senders = this.nodes.filter((n) => Object.values(TYPES).some((t) => /** @type {{ type: string }} */ (n).type === `${PKG}.${t}`));
		if (senders.length > 1) for (const n of senders) Object.assign(n, FAN_OUT);
		const { id, name, nodes, connections } = this;
		const json = { id, name, nodes, connections, settings: { executionOrder: 'v1' } };
		fs.writeFileSync(path.join(ROOT, file), `${JSON.stringify(json, null, '\t')}\n`);
	}
}

/** @param {'lead' | 'schedule' | 'purchase'} state */
const googleAction = (state) => ({
	api: 'dataManager',
	operation: 'send',
	customerId: '123-456-7890',
	conversionActionId: {
		lead: DESTINATIONS.googleConversionAction,
		schedule: DESTINATIONS.googleScheduleAction,
		purchase: DESTINATIONS.googlePurchaseAction,
	}[state],
});

// 1. Site capture script → qualified partials → Meta + TikTok (partials as their own event).
{
	const wf = new Workflow('tplSitePartials1', 'Template: site capture script → qualified partial leads → Meta + TikTok', '1a1a1a1a-5171-4e00');
	const site = wf.trigger('Site Forms', [0, 90], { source: 'script', path: 'site-leads', captureLog: 'redis', settings: {} }, REDIS);
	const filter = wf.add('Completed + Qualified Partials', `${PKG}.leadRuleFilter`, [260, 90], {
		operation: 'filter',
		sendMode: 'automatic_match',
		rulesApplyTo: 'partial',
		combinator: 'and',
		rules: {
			condition: [
				{ field: 'contact.email', matchType: 'is_work_email', pattern: '' },
				{ field: 'source.page_url', matchType: 'contains', pattern: '/pricing' },
			],
		},
		options: {},
	});
	wf.link(site, [filter]);
	wf.link(filter, [wf.sender('meta', 'Meta Conversions', [520, 0]), wf.sender('tiktok', 'TikTok Events', [520, 180])]);
	wf.write('site-capture-qualified-partials-meta-tiktok.json');
}

// 2. A form fill → Lead, then the booking → Schedule, to Meta and Google Ads (separate moments, separate ids).
{
	const wf = new Workflow('tplBookingSched1', 'Template: form fill → Lead, Cal.com booking → Schedule, to Meta and Google Ads', '2b2b2b2b-5171-4e00');
	const signed = { authentication: 'signature', captureLog: 'redis', settings: {} };
	const form = wf.trigger('Typeform Lead', [0, 90], { source: 'typeform', path: 'demo-form', ...signed }, { ...SECRET, ...REDIS });
	wf.link(form, [wf.sender('meta', 'Meta: Lead', [300, 0]), wf.sender('google', 'Google Ads: Lead action', [300, 180], googleAction('lead'))]);
	const booking = wf.trigger('Cal.com Booking', [0, 450], { source: 'calcom', path: 'demo-booking', ...signed }, { ...SECRET, ...REDIS });
	const bookingsOnly = wf.add('Bookings Only', `${PKG}.leadRuleFilter`, [260, 450], { operation: 'filter', sendMode: 'booking', options: {} });
	wf.link(booking, [bookingsOnly]);
	wf.link(bookingsOnly, [
		wf.sender('meta', 'Meta: Schedule', [520, 360]),
		wf.sender('google', 'Google Ads: Booked call action', [520, 540], googleAction('schedule')),
	]);
	wf.write('booking-schedule-meta-google.json');
}

// 3. CRM deal won (a HubSpot-shaped workflow webhook) → Purchase with value and currency to all five.
{
	const wf = new Workflow('tplCrmDealWon01', 'Template: CRM deal won webhook → Purchase to all five platforms', '3c3c3c3c-5171-4e00');
	const map = (/** @type {string} */ leadPath, /** @type {string} */ bodyPath) => ({ path: leadPath, bodyPath });
	const crm = wf.trigger('CRM Deal Won', [0, 360], {
		source: 'generic',
		path: 'crm-deal-won',
		authentication: 'none',
		captureLog: 'redis',
		stateFrom: 'fixed',
		fixedState: 'purchase',
		recordIdField: 'objectId',
		fieldMapping: {
			field: [
				map('occurred_at', 'properties.closedate.value'),
				map('value.amount', 'properties.amount.value'),
				map('value.currency', 'properties.deal_currency_code.value'),
				map('contact.email', 'contact.email'),
				map('contact.phone', 'contact.phone'),
				map('contact.first_name', 'contact.firstname'),
				map('contact.last_name', 'contact.lastname'),
				map('contact.country', 'contact.country'),
				map('contact.external_id', 'contact.hs_object_id'),
				map('click.gclid', 'contact.hs_google_click_id'),
				map('click.fbclid', 'contact.hs_facebook_click_id'),
			],
		},
		settings: {},
	}, REDIS);
	wf.link(crm, [
		wf.sender('meta', 'Meta Conversions', [320, 0]),
		wf.sender('pinterest', 'Pinterest Conversions', [320, 180]),
		wf.sender('tiktok', 'TikTok Events', [320, 360], { eventSource: 'web' }),
		wf.sender('google', 'Google Ads Conversions', [320, 540], googleAction('purchase')),
		wf.sender('microsoft', 'Microsoft Conversions', [320, 720]),
	]);
	wf.write('crm-deal-won-purchase-five-platforms.json');
}

// 4. Typeform → Lead, with the 7-day preview to run before going live.
{
	const wf = new Workflow('tplTypeformPrev1', 'Template: Typeform → Lead to Meta, with the 7-day rule preview', '4d4d4d4d-5171-4e00');
	const rules = {
		sendMode: 'automatic_match',
		rulesApplyTo: 'all',
		combinator: 'and',
		rules: {
			condition: [
				{ field: 'contact.email', matchType: 'is_work_email', pattern: '' },
				{ field: 'attributes.utm_source', matchType: 'not_equals', pattern: 'test' },
			],
		},
	};
	const typeform = wf.trigger('Typeform', [0, 0], { source: 'typeform', path: 'typeform-leads', authentication: 'signature', captureLog: 'redis', settings: {} }, { ...SECRET, ...REDIS });
	const qualified = wf.add('Qualified Leads', `${PKG}.leadRuleFilter`, [260, 0], { operation: 'filter', ...rules, options: {} });
	wf.link(typeform, [qualified]);
	wf.link(qualified, [wf.sender('meta', 'Meta Conversions', [520, 0])]);
	const manual = wf.add('Preview Before Going Live', 'n8n-nodes-base.manualTrigger', [0, 260], {});
	const preview = wf.add('Preview Rules on Last 7 Days', `${PKG}.leadRuleFilter`, [260, 260], { operation: 'preview', captureLogName: 'typeform-leads', ...rules }, { credentials: REDIS });
	wf.link(manual, [preview]);
	wf.write('typeform-lead-with-preview.json');
}

// 5. HubSpot deal stage webhook → Meta Conversion Leads (CRM events) + Google Ads restate / retract.
{
	const wf = new Workflow('tplHubSpotStage1', 'Template: HubSpot deal stages → Meta Conversion Leads + Google Ads restate / retract', '5e5e5e5e-5171-4e00');
	const hubspot = wf.trigger('HubSpot Deal Stages', [0, 180], { source: 'hubspot', path: 'hubspot-deal-stages', authentication: 'signature', captureLog: 'off', settings: {} }, SECRET);
	// HubSpot's stage events carry the deal id and the stage only: the amount, the deal's contact
	// and its click id are read from HubSpot's CRM API (a private app token, n8n's own credential).
	const api = 'https://api.hubapi.com/crm/v3/objects';
	const read = (/** @type {string} */ name, /** @type {number[]} */ position, /** @type {string} */ url) =>
		wf.add(name, 'n8n-nodes-base.httpRequest', position, {
			url,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'hubspotAppToken',
			options: {},
		}, { typeVersion: 4.2, credentials: { hubspotAppToken: cred('hubspot') }, onError: 'continueRegularOutput' });
	const deal = read('Read Deal', [240, 180], `=${api}/deals/{{ $json.record_id }}?properties=amount,deal_currency_code&associations=contacts`);
	const contact = read('Read Contact', [480, 180], `=${api}/contacts/{{ $json.associations?.contacts?.results?.[0]?.id ?? 'none' }}?properties=email,phone,firstname,lastname,country,hs_google_click_id,hs_facebook_click_id`);
	// The lead record of each stage: the stage renamed from HubSpot's pipeline ids (edit the map
	// for your pipeline), the contact's data, the deal's amount.
	const stageNames = "{ lead: 'Lead', qualifiedtobuy: 'Qualified', appointmentscheduled: 'Booked', closedwon: 'Won', closedlost: 'Lost' }";
	const stage = "$('HubSpot Deal Stages').item.json";
	const record = wf.add('Stage Record', 'n8n-nodes-base.set', [720, 180], {
		mode: 'raw',
		jsonOutput: `={{ {
  record_id: ${stage}.record_id,
  state: 'lead',
  occurred_at: ${stage}.occurred_at,
  stage: (${stageNames})[${stage}.stage] ?? ${stage}.stage,
  stage_at: ${stage}.stage_at,
  attributes: ${stage}.attributes,
  contact: { email: $json.properties?.email, phone: $json.properties?.phone, first_name: $json.properties?.firstname, last_name: $json.properties?.lastname, country: $json.properties?.country, external_id: $json.id },
  click: { gclid: $json.properties?.hs_google_click_id, fbclid: $json.properties?.hs_facebook_click_id },
  value: { amount: $('Read Deal').item.json.properties?.amount, currency: $('Read Deal').item.json.properties?.deal_currency_code }
} }}`,
		options: {},
	}, { typeVersion: 3.4 });
	wf.link(hubspot, [deal]);
	wf.link(deal, [contact]);
	wf.link(contact, [record]);
	const googleAds = { api: 'googleAdsApi', customerId: '123-456-7890', conversionAction: { __rl: true, mode: 'id', value: DESTINATIONS.googleConversionAction } };
	const googleCredentials = { credentials: { leadCapiGoogleAdsOAuth2Api: cred('google'), ...REDIS, ...OUTBOX } };
	wf.link(record, [
		wf.sender('meta', 'Meta Conversion Leads', [1000, 0], {
			event: 'fromStage',
			eventSource: 'crm',
			leadEventSource: 'HubSpot',
			options: { stageOrder: 'Lead, Qualified, Booked, Won' },
		}),
		// The deal's first stage event uploads the lead conversion (once per deal): the original the
		// adjustments below find in the stage ledger.
		wf.sender('google', 'Google Ads: Lead Conversion', [1000, 180], { ...googleAds, operation: 'send', event: 'fromState' }),
		wf.sender('google', 'Google Ads: Restate Won / Retract Lost', [1000, 360], {
			...googleAds,
			operation: 'adjust',
			adjustment: 'fromStage',
			originalEvent: 'ledger',
		}),
	]);
	for (const name of ['Google Ads: Lead Conversion', 'Google Ads: Restate Won / Retract Lost']) {
		Object.assign(/** @type {Record<string, unknown>} */ (wf.nodes.find((n) => /** @type {{ name: string }} */ (n).name === name)), googleCredentials);
	}
	wf.write('hubspot-deal-stages-meta-crm-google-adjust.json');
}

// 6. Meta Lead Ads (the leadgen webhook) → Lead as a CRM event; the CRM's later stages by lead id.
{
	const wf = new Workflow('tplMetaLeadAds01', 'Template: Meta Lead Ads → Lead and later CRM stages to Meta Conversion Leads', '6f6f6f6f-5171-4e00');
	const crm = { eventSource: 'crm', leadEventSource: 'n8n CRM' };
	const leadgen = wf.trigger('Meta Lead Ads', [0, 0], { source: 'metaLeadAds', path: 'meta-lead-ads', authentication: 'signature', metaVerifyToken: 'demo-verify-token', captureLog: 'off', settings: {} }, SECRET);
	wf.link(leadgen, [wf.sender('meta', 'Meta: Lead', [300, 0], { event: 'custom', customEventName: 'Lead', ...crm })]);
	const map = (/** @type {string} */ leadPath, /** @type {string} */ bodyPath) => ({ path: leadPath, bodyPath });
	const stages = wf.trigger('CRM Stage Changes', [0, 300], {
		source: 'generic',
		path: 'meta-lead-stages',
		authentication: 'signature',
		captureLog: 'off',
		recordIdField: 'lead_id',
		fieldMapping: {
			field: [
				map('stage', 'stage'),
				map('stage_at', 'changed_at'),
				map('occurred_at', 'changed_at'),
				map('attributes.meta_lead_id', 'lead_id'),
				map('value.amount', 'amount'),
				map('value.currency', 'currency'),
			],
		},
		settings: {},
	}, SECRET);
	wf.link(stages, [wf.sender('meta', 'Meta: Lead Stages', [300, 300], { event: 'fromStage', ...crm, options: { stageOrder: 'Lead, Qualified, Booked, Won' } })]);
	wf.write('meta-lead-ads-stage-events.json');
}
