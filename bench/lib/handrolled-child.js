// @ts-check
/**
 * The hand-rolled per-event sender, in a child process of its own: what users write today
 * (a Code node or a small script), one event at a time —
 *
 *   Redis GET (seen before?) → SHA-256 of email and phone (node:crypto; email trimmed and
 *   lowercased, phone digits only) → one HTTP POST carrying this single event (axios with a
 *   keep-alive agent, the same HTTP library as our transport) → Redis SET (mark as sent)
 *
 * with events strictly one after another, to the same stand-in and the same Redis.
 *
 *   node --expose-gc bench/lib/handrolled-child.js '<json options>'  → last stdout line: JSON
 */
const crypto = require('node:crypto');
const http = require('node:http');
const axios = require('axios').default;
const Redis = require('ioredis').default;
const { generateLeads, META_EVENT_BY_STATE } = require('./leads.js');
const m = require('./measure.js');

/**
 * @typedef {{ n: number, reps: number, warmupN: number, redisUrl: string, keyPrefix: string,
 *   idPrefix: string, standInUrl: string, standInControl: string, token: string,
 *   pixelId: string }} HandRolledOptions
 */

/** @param {string} text */
const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');

/** @param {HandRolledOptions} o */
async function main(o) {
	const redis = new Redis(o.redisUrl);
	await redis.ping();
	const roundTrips = m.countRoundTrips(/** @type {any} */ (redis));
	const api = axios.create({ httpAgent: new http.Agent({ keepAlive: true }), proxy: false });
	const url = `${o.standInUrl}/v26.0/${o.pixelId}/events`;
	const standIn = m.standInControl(o.standInControl);

	/** @param {any[]} leads */
	const sendAll = async (leads) => {
		let sent = 0;
		for (const lead of leads) {
			const key = `${o.keyPrefix}:hand:${lead.record_id}`;
			if (await redis.get(key)) continue;
			const c = lead.contact ?? {};
			/** @type {Record<string, string>} */
			const userData = {};
			if (typeof c.email === 'string' && c.email.includes('@')) userData.em = sha256(c.email.trim().toLowerCase());
			if (typeof c.phone === 'string') {
				const digits = c.phone.replace(/\D/g, '');
				if (digits.length >= 7) userData.ph = sha256(digits);
			}
			if (lead.click?.fbp) userData.fbp = lead.click.fbp;
			if (Object.keys(userData).length === 0) continue;
			const event = {
				event_name: META_EVENT_BY_STATE[lead.state] ?? 'Lead',
				event_time: Math.floor(Date.parse(lead.occurred_at) / 1000),
				event_id: String(lead.record_id),
				action_source: 'system_generated',
				user_data: userData,
				...(lead.value ? { custom_data: { value: Number(lead.value.amount), currency: lead.value.currency } } : {}),
			};
			await api.post(url, { data: [event], access_token: o.token });
			await redis.set(key, '1', 'EX', 30 * 86_400);
			sent++;
		}
		return sent;
	};

	const nowMs = Date.now();
	const warm = generateLeads(o.warmupN, { idPrefix: `${o.idPrefix}-warm`, nowMs });
	const sets = Array.from({ length: o.reps }, (_, r) => generateLeads(o.n, { idPrefix: `${o.idPrefix}-r${r}`, nowMs }));
	await sendAll(warm);
	await standIn.reset();

	const baselineKb = m.rssBaselineKb();
	roundTrips.count = 0;
	const first = await m.timed(() => sendAll(sets[0]));
	const rssGrowthKb = m.peakRssGrowthKb(baselineKb);
	const redisRoundTrips = roundTrips.count;
	const received = await standIn.stats();
	const runs = [{ ms: first.ms, cpuUs: first.cpuUs }];
	for (let r = 1; r < o.reps; r++) {
		const t = await m.timed(() => sendAll(sets[r]));
		runs.push({ ms: t.ms, cpuUs: t.cpuUs });
	}
	redis.disconnect();
	return { n: o.n, runs, sent: first.result, rssGrowthKb, redisRoundTrips, standIn: received };
}

main(m.childOptions()).then(m.finish, m.fail);
