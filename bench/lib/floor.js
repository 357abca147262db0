// @ts-check
/**
 * The two floors: the work no Meta sender can avoid, done with the same libraries in a minimal
 * loop and nothing else (docs/performance.md explains both).
 *
 * CPU only (`floorLoop`): SHA-256 (node:crypto) of every field Meta hashes that the lead
 * carries (email, phone, names, city, region, postal code, country, external id; lowercased and
 * trimmed, no further normalization), one libphonenumber-js/max parse per phone (the parse only,
 * no validation), and JSON.stringify of the resulting event. No event id derivation, no dedup,
 * no HTTP.
 *
 * With I/O (`floorWithIo`): the same per lead, plus what exactly-once delivery physically needs,
 * the way our dispatch does it — one SHA-256 event id per event, and per batch of 1,000 the real
 * claim script (RedisDedupStore.claimBatch) over the events' dedup keys, one HTTP POST of the
 * batch (node:http, keep-alive) with its answer read and parsed, and the real settle script
 * (settleBatch, committing those keys) on the same Redis; 4 batches in flight. Nothing else: no
 * validation, no stage ledger, no per-item results, no retries.
 */
const crypto = require('node:crypto');
const http = require('node:http');
const { parsePhoneNumberFromString } = require('libphonenumber-js/max');

/** Lead contact fields Meta receives hashed (besides email and phone), with Meta's keys. */
const HASHED = /** @type {const} */ ([
	['first_name', 'fn'],
	['last_name', 'ln'],
	['city', 'ct'],
	['region', 'st'],
	['postal_code', 'zp'],
	['country', 'country'],
	['external_id', 'external_id'],
	['gender', 'ge'],
	['date_of_birth', 'db'],
]);

/**
 * The fastest SHA-256 node:crypto offers: one-shot `crypto.hash` (Node ≥ 20.12), else
 * createHash → update → digest. The floor must not be slower than the core's own hashing.
 */
const oneShot = /** @type {((algorithm: string, data: string) => string) | undefined} */ (
	/** @type {any} */ (crypto).hash
);
/** @param {string} text */
const sha256 = oneShot
	? (/** @type {string} */ text) => oneShot('sha256', text)
	: (/** @type {string} */ text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The floor's work for one lead; returns the serialized event (so nothing is optimized away).
 * @param {any} lead
 * @param {string} eventName
 * @param {number} eventTime unix seconds
 * @param {string} [eventId] default: the record id
 */
function floorEvent(lead, eventName, eventTime, eventId = String(lead.record_id)) {
	const contact = lead.contact ?? {};
	/** @type {Record<string, string>} */
	const userData = {};
	if (typeof contact.email === 'string') userData.em = sha256(contact.email.trim().toLowerCase());
	if (typeof contact.phone === 'string') {
		const country =
			typeof contact.country === 'string' && contact.country.length === 2 ? contact.country.toUpperCase() : undefined;
		const phone = parsePhoneNumberFromString(contact.phone, /** @type {any} */ (country));
		if (phone) userData.ph = sha256(phone.number.slice(1));
	}
	for (const [field, key] of HASHED) {
		const value = contact[field];
		if (typeof value === 'string') userData[key] = sha256(value.trim().toLowerCase());
	}
	const client = lead.client ?? {};
	if (client.ip) userData.client_ip_address = client.ip;
	if (client.user_agent) userData.client_user_agent = client.user_agent;
	const click = lead.click ?? {};
	if (click.fbclid) userData.fbc = `fb.1.${eventTime * 1000}.${click.fbclid}`;
	if (click.fbp) userData.fbp = click.fbp;
	/** @type {Record<string, unknown>} */
	const event = {
		event_name: eventName,
		event_time: eventTime,
		event_id: eventId,
		action_source: lead.source?.page_url && client.user_agent ? 'website' : 'system_generated',
		user_data: userData,
	};
	if (lead.source?.page_url) event.event_source_url = lead.source.page_url;
	if (lead.value) event.custom_data = { value: Number(lead.value.amount), currency: lead.value.currency };
	return JSON.stringify(event);
}

/**
 * The floor over a set of leads; returns the total length of the JSON produced.
 * @param {any[]} leads
 * @param {Record<string, string>} eventByState
 */
function floorLoop(leads, eventByState) {
	const eventTime = Math.floor(Date.now() / 1000);
	let bytes = 0;
	for (const lead of leads) bytes += floorEvent(lead, eventByState[lead.state] ?? 'Lead', eventTime).length;
	return bytes;
}

/**
 * What the floor with I/O talks to: the dedup store (dist/ RedisDedupStore, its real scripts),
 * the dedup key of an event id (dist/ dedupKey), and the stand-in's events endpoint.
 * @typedef {{ store: { claimBatch: Function, settleBatch: Function }, keyOf: (eventId: string) => string,
 *   url: string, token: string, pixelId: string, agent: http.Agent }} FloorIo
 */

/**
 * One POST of a batch body to the stand-in; resolves with its parsed answer (status 200 only).
 * A keep-alive socket the server closed while idle (its keep-alive timeout, 5 s: longer than
 * making 100k leads between two runs on a busy machine) resets the request written on it: that
 * request is sent again once, on a new socket (the retry Node's documentation gives for
 * `request.reusedSocket`).
 * @param {FloorIo} io @param {string} body @param {boolean} [again]
 * @returns {Promise<{ events_received?: number }>}
 */
function post(io, body, again = false) {
	return new Promise((resolve, reject) => {
		const req = http.request(
			io.url,
			{ method: 'POST', agent: io.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
			(res) => {
				/** @type {Buffer[]} */
				const chunks = [];
				res.on('data', (chunk) => chunks.push(chunk));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					if (res.statusCode !== 200) reject(new Error(`floor POST: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
					else resolve(JSON.parse(text));
				});
			},
		);
		req.on('error', (error) => {
			if (!again && req.reusedSocket && /** @type {NodeJS.ErrnoException} */ (error).code === 'ECONNRESET') resolve(post(io, body, true));
			else reject(error);
		});
		req.end(body);
	});
}

const CLAIM_TTL_MS = 30_000;
const COMMITTED_TTL_MS = 30 * 86_400_000;
const BATCH = 1000;
const IN_FLIGHT = 4;

/**
 * The floor with I/O over a set of leads (see the top of this file); returns the events the
 * stand-in acknowledged.
 * @param {any[]} leads
 * @param {Record<string, string>} eventByState
 * @param {FloorIo} io
 */
async function floorWithIo(leads, eventByState, io) {
	const eventTime = Math.floor(Date.now() / 1000);
	const token = crypto.randomUUID();
	const tail = `],"access_token":${JSON.stringify(io.token)}}`;
	let next = 0;
	let acked = 0;
	const worker = async () => {
		while (next < leads.length) {
			const start = next;
			next += BATCH;
			const batch = leads.slice(start, start + BATCH);
			const names = batch.map((lead) => eventByState[lead.state] ?? 'Lead');
			const ids = batch.map((lead, i) => sha256(`${io.pixelId}|${names[i]}|${lead.record_id}`));
			const keys = ids.map(io.keyOf);
			const claim = await io.store.claimBatch(keys, CLAIM_TTL_MS, token);
			if (claim.outcomes.some((/** @type {string} */ o) => o !== 'claimed')) throw new Error('floor: a key was not claimed');
			const events = batch.map((lead, i) => floorEvent(lead, names[i], eventTime, ids[i]));
			const answer = await post(io, `{"data":[${events.join(',')}${tail}`);
			acked += answer.events_received ?? 0;
			await io.store.settleBatch(token, { commit: keys, release: [], committedTtlMs: COMMITTED_TTL_MS });
		}
	};
	await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
	return acked;
}

module.exports = { floorEvent, floorLoop, floorWithIo };
