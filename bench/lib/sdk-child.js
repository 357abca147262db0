// @ts-check
/**
 * The official Meta SDK at its best, in a child process of its own: the same leads
 * (bench/lib/leads.js) through facebook-nodejs-business-sdk — ServerEvent, UserData, CustomData,
 * EventRequest.execute() — in batches of 1,000 to the same loopback stand-in.
 *
 *   node --expose-gc bench/lib/sdk-child.js '<json options>'  → last stdout line: JSON result
 *
 * How the SDK is used:
 *  - unchanged, with its own normalization and hashing (js-sha256); it is pointed at the
 *    stand-in by overriding the static `FacebookAdsApi.GRAPH` getter (the base URL every Graph
 *    call is built from), so `EventRequest.execute()` takes its normal path (AdsPixel.createEvent
 *    → FacebookAdsApi.call → axios);
 *  - keep-alive: the SDK posts with the default axios instance, i.e. Node's http.globalAgent,
 *    which keeps connections alive since Node 19;
 *  - `concurrency` requests at once (the bench runs it at ours: 4);
 *  - no dedup: the SDK has none, so nothing is claimed or recorded anywhere;
 *  - the caller's own work is what a careful SDK user writes: the SDK throws for the whole
 *    request on an invalid email, phone or country, so values it would reject are left out first
 *    with cheap checks mirroring its rules (its own email-validator and iso-3166-1, 7–16 phone
 *    digits); fbc is built from fbclid; external_id is hashed by the caller (the SDK sends it
 *    as given). The SDK does not parse national phone numbers (no country code is added).
 * Building the ServerEvents is timed with the sends: it is per-lead work the user pays.
 */
const crypto = require('node:crypto');
const path = require('node:path');
/** @type {any} */
const bizSdk = require('facebook-nodejs-business-sdk');
// The SDK's own checks (its dependencies, resolved from it) to leave out what it would reject.
/** @param {string} name */
const sdkDependency = (name) =>
	require(require.resolve(name, { paths: [path.dirname(require.resolve('facebook-nodejs-business-sdk'))] }));
const validator = sdkDependency('email-validator');
const countries = sdkDependency('iso-3166-1');
const { generateLeads, META_EVENT_BY_STATE } = require('./leads.js');
const m = require('./measure.js');

const { FacebookAdsApi, EventRequest, ServerEvent, UserData, CustomData } = bizSdk;
const BATCH = 1000;

/**
 * @typedef {{ mode?: 'steady' | 'rss', n: number, plan: import('./measure.js').SteadyPlan, warmupN?: number,
 *   concurrency: number, idPrefix: string, standInUrl: string, standInControl: string, token: string,
 *   pixelId: string }} SdkChildOptions
 */

/** The SDK's own phone clean-up, to know whether it would throw. @param {string} phone */
function sdkAcceptsPhone(phone) {
	const digits = phone.toLowerCase().replace(/[\-@#<>'",; ]|\(|\)|\+|[a-z]/g, '').replace(/^0{0,2}/, '');
	return digits.length >= 7 && digits.length <= 16;
}

/**
 * One lead as an SDK user maps it.
 * @param {any} lead @param {number} fallbackTime
 */
function toServerEvent(lead, fallbackTime) {
	const c = lead.contact ?? {};
	const user = new UserData();
	if (typeof c.email === 'string' && validator.validate(c.email.trim().toLowerCase())) user.setEmail(c.email);
	if (typeof c.phone === 'string' && sdkAcceptsPhone(c.phone)) user.setPhone(c.phone);
	if (c.first_name) user.setFirstName(c.first_name);
	if (c.last_name) user.setLastName(c.last_name);
	if (c.city) user.setCity(c.city);
	if (c.region) user.setState(c.region);
	if (c.postal_code) user.setZip(c.postal_code);
	if (typeof c.country === 'string' && countries.whereAlpha2(c.country.trim().toLowerCase())) user.setCountry(c.country);
	if (c.external_id) user.setExternalId(crypto.createHash('sha256').update(String(c.external_id)).digest('hex'));
	const client = lead.client ?? {};
	if (client.ip) user.setClientIpAddress(client.ip);
	if (client.user_agent) user.setClientUserAgent(client.user_agent);
	const click = lead.click ?? {};
	const eventTime = Math.floor(Date.parse(lead.occurred_at) / 1000) || fallbackTime;
	if (click.fbclid) user.setFbc(`fb.1.${eventTime * 1000}.${click.fbclid}`);
	if (click.fbp) user.setFbp(click.fbp);
	const web = Boolean(lead.source?.page_url && client.user_agent);
	const event = new ServerEvent()
		.setEventName(META_EVENT_BY_STATE[lead.state] ?? 'Lead')
		.setEventTime(eventTime)
		.setEventId(String(lead.record_id))
		.setUserData(user)
		.setActionSource(web ? 'website' : 'system_generated');
	if (web) event.setEventSourceUrl(lead.source.page_url);
	if (lead.value) event.setCustomData(new CustomData().setValue(Number(lead.value.amount)).setCurrency(lead.value.currency));
	return event;
}

/**
 * Sends the leads in batches of 1,000, `concurrency` requests at once; returns events acked.
 * @param {any[]} leads @param {SdkChildOptions} o
 */
async function sendAll(leads, o) {
	const now = Math.floor(Date.now() / 1000);
	let next = 0;
	let acked = 0;
	const worker = async () => {
		for (;;) {
			const start = next;
			next += BATCH;
			if (start >= leads.length) return;
			const events = leads.slice(start, start + BATCH).map((lead) => toServerEvent(lead, now));
			const response = await new EventRequest(o.token, o.pixelId).setEvents(events).execute();
			acked += response.events_received ?? 0;
		}
	};
	await Promise.all(Array.from({ length: o.concurrency }, worker));
	return acked;
}

/**
 * `steady`: batches of N fresh leads until the per-run CPU settles, then the measured runs
 * (measure.js steadyRuns); the last measured run is checked against the stand-in. `rss`: the
 * peak RSS growth of one send of N, apart from any timed run (a warm-up send, a full GC, the
 * RSS, the send, maxRSS afterwards).
 * @param {SdkChildOptions} o
 */
async function main(o) {
	Object.defineProperty(FacebookAdsApi, 'GRAPH', { get: () => o.standInUrl, configurable: true });
	const standIn = m.standInControl(o.standInControl);
	const nowMs = Date.now();
	const leads = (/** @type {string} */ tag) => generateLeads(o.n, { idPrefix: `${o.idPrefix}-${tag}`, nowMs });
	if (o.mode === 'rss') {
		await sendAll(generateLeads(o.warmupN ?? 5000, { idPrefix: `${o.idPrefix}-warm`, nowMs }), o);
		const set = leads('rss');
		const baselineKb = m.rssBaselineKb();
		await sendAll(set, o);
		return { n: o.n, rssGrowthKb: m.peakRssGrowthKb(baselineKb) };
	}
	let acked = 0;
	const { warm, runs, settled } = await m.steadyRuns(async ({ index, last }) => {
		const set = leads(`r${index}`);
		await standIn.reset();
		const t = await m.timed(() => sendAll(set, o));
		if (last) acked = t.result;
		return { ms: t.ms, cpuUs: t.cpuUs };
	}, o.plan);
	return { n: o.n, concurrency: o.concurrency, warm, runs, settled, acked, standIn: await standIn.stats() };
}

main(m.childOptions()).then(m.finish, m.fail);
