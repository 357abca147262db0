// @ts-check
/**
 * The floor: the work no Meta sender can avoid for a lead, done with the same libraries in a
 * minimal loop and nothing else — SHA-256 (node:crypto) of every field Meta hashes that the lead
 * carries (email, phone, names, city, region, postal code, country, external id; lowercased and
 * trimmed, no further normalization), one libphonenumber-js/max parse per phone (the parse only,
 * no validation), and JSON.stringify of the resulting event. No event id derivation, no dedup,
 * no HTTP: our per-event CPU is reported as a multiple of this.
 */
const crypto = require('node:crypto');
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
 */
function floorEvent(lead, eventName, eventTime) {
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
		event_id: String(lead.record_id),
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

module.exports = { floorEvent, floorLoop };
