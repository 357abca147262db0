// @ts-check
/**
 * Deterministic synthetic leads for the core benchmarks (bench/core.js). The same seed gives the
 * same leads, and the first 1,000 leads of a 10k set are the 1k set (only the record ids, which
 * carry `idPrefix`, and the phone numbers' digits, seeded by it, differ between runs), so every
 * scenario sees exactly the same mix:
 *
 *  - ~92 % with an email (mixed case, stray spaces), ~5 % of those invalid;
 *  - ~65 % with a phone, written nationally for the lead's country (US, UK, DE) with the country
 *    set ("US", "GB", "DE", sometimes "United States" / "Germany" / "UK"), some international
 *    ("+33 …" without a country), ~5 % of them invalid (too short, letters);
 *  - first and last names, many with accents (José, Zoë, Jürgen, Núñez, Østergaard…);
 *  - cities, regions and postal codes from a small set that repeats (as real traffic does);
 *  - website leads (~60 %: page URL, user agent, IP) and CRM leads (no browser context, ~20 % with
 *    an external id);
 *  - click ids of three platforms: fbclid (~30 %), fbp (~40 %), gclid (~20 %), ttclid (~10 %);
 *  - states: mostly `lead`, some `contact` / `schedule`, a few `purchase` (always with a value);
 *    ~20 % carry a value (amount + currency);
 *  - occurred within the last 3 days (inside Meta's 7-day window);
 *  - every string flat (made by JSON.parse, as the items n8n hands a node), not the
 *    concatenated strings the template literals make.
 *
 * `generateLeads` is self-contained (no closure over this module, no require): its source is
 * pasted into the "Make Leads" Code node of the n8n bench (bench/n8n/workflows.js), so the items
 * inside n8n and the runs outside it get exactly the same leads from one generator.
 */

/** @typedef {import('../../shared/types').LeadRecord} LeadRecord */

/**
 * `n` leads; record ids are `${idPrefix}-${i}`. Self-contained (see above): everything it uses
 * is defined inside it.
 * @param {number} n
 * @param {{ idPrefix: string, nowMs?: number, seed?: number }} options
 * @returns {LeadRecord[]}
 */
function generateLeads(n, options) {
	/** Small fast PRNG (mulberry32): deterministic across Node versions. @param {number} seed */
	const prng = (seed) => {
		let a = seed >>> 0;
		return () => {
			a = (a + 0x6d2b79f5) >>> 0;
			let t = a;
			t = Math.imul(t ^ (t >>> 15), t | 1);
			t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
			return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
		};
	};
	/** A 32-bit seed from a text (FNV-1a). @param {string} text */
	const seedOf = (text) => {
		let h = 0x811c9dc5;
		for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
		return h;
	};
	/** An email-safe lowercase form of a name: accents dropped (José → jose), other letters out. @param {string} name */
	const ascii = (name) =>
		name
			.normalize('NFD')
			.replace(/[^A-Za-z]/g, '')
			.toLowerCase();
	/** @param {() => number} r @param {number} lo @param {number} hi inclusive */
	const digits = (r, lo, hi) => String(lo + Math.floor(r() * (hi - lo + 1)));
	/** @type {<T>(r: () => number, list: T[]) => T} */
	const pick = (r, list) => list[Math.floor(r() * list.length)];

	const FIRST = ['José', 'Zoë', 'Renée', 'Jürgen', 'François', 'Łukasz', 'Mary', 'John', 'Anna', 'Søren', 'Chloé', 'Noah', 'Fatima', 'Li'];
	const LAST = ['García', 'Müller', "O'Neil", 'Núñez', 'Østergaard', 'Smith', 'Dupont', 'Schröder', 'Kowalski', 'Brown', 'Chen'];
	const DOMAINS = ['gmail.com', 'Yahoo.com', 'outlook.com', 'acme.io', 'globex.de', 'initech.co.uk', 'web.de'];
	const BAD_EMAILS = ['n/a', 'john.doe@', 'test@@example.com', 'none', 'jane(at)example.com'];
	const BAD_PHONES = ['12345', '000', 'call me', '555', '+1 555'];
	const AGENTS = [
		'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
		'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
		'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
	];
	const PAGES = ['/pricing', '/demo', '/contact', '/blog/lead-gen', '/'];
	/**
	 * Places with their national phone formats. `country` is how the lead's form wrote it.
	 * @type {Array<{ city: string, region: string, postal: string, countries: string[], phone: (r: () => number) => string }>}
	 */
	const PLACES = [
		{ city: 'San Francisco', region: 'CA', postal: '94105', countries: ['US', 'US', 'United States'], phone: (r) => `(415) ${digits(r, 200, 999)}-${digits(r, 1000, 9999)}` },
		{ city: 'New York', region: 'New York', postal: '10001', countries: ['US', 'us'], phone: (r) => `212-${digits(r, 200, 999)}-${digits(r, 1000, 9999)}` },
		{ city: 'Austin', region: 'TX', postal: '78701', countries: ['US'], phone: (r) => `512 ${digits(r, 200, 999)} ${digits(r, 1000, 9999)}` },
		{ city: 'London', region: 'England', postal: 'SW1A 1AA', countries: ['GB', 'UK'], phone: (r) => `020 7946 ${digits(r, 1000, 9999)}` },
		{ city: 'Manchester', region: 'England', postal: 'M1 1AE', countries: ['GB'], phone: (r) => `07${digits(r, 400, 599)} ${digits(r, 100000, 999999)}` },
		{ city: 'Berlin', region: 'Berlin', postal: '10115', countries: ['DE', 'Germany'], phone: (r) => `030 ${digits(r, 1000000, 9999999)}` },
		{ city: 'München', region: 'Bayern', postal: '80331', countries: ['DE'], phone: (r) => `0151 ${digits(r, 10000000, 99999999)}` },
		{ city: 'Köln', region: 'NRW', postal: '50667', countries: ['de'], phone: (r) => `0221 ${digits(r, 100000, 999999)}` },
		{ city: 'Paris', region: 'Île-de-France', postal: '75001', countries: [''], phone: (r) => `+33 1 ${digits(r, 10, 99)} ${digits(r, 10, 99)} ${digits(r, 10, 99)} ${digits(r, 10, 99)}` },
	];

	const r = prng(options.seed ?? 20260601);
	// The phone numbers' digits come from a stream of their own, seeded by the id prefix: the mix
	// stays the same in every run, but a run repeated for a steady state never reads the same
	// numbers again (the core's bounded phone results would answer them from memory while the
	// floors parse every number).
	const digitsOf = prng(seedOf(options.idPrefix));
	const now = options.nowMs ?? Date.now();
	/** @type {LeadRecord[]} */
	const leads = new Array(n);
	for (let i = 0; i < n; i++) {
		const place = pick(r, PLACES);
		const first = pick(r, FIRST);
		const last = pick(r, LAST);
		const web = r() < 0.6;
		/** @type {Record<string, unknown>} */
		const contact = { first_name: first, last_name: last, city: place.city };
		const country = pick(r, place.countries);
		if (country) contact.country = country;
		if (r() < 0.7) contact.region = place.region;
		if (r() < 0.5) contact.postal_code = place.postal;
		if (r() < 0.92) {
			contact.email =
				r() < 0.05
					? pick(r, BAD_EMAILS)
					: `${r() < 0.2 ? ' ' : ''}${ascii(first)}.${ascii(last)}${i}@${pick(r, DOMAINS)}`;
		}
		if (r() < 0.65) contact.phone = r() < 0.05 ? pick(r, BAD_PHONES) : place.phone(digitsOf);
		if (!web && r() < 0.2) contact.external_id = `crm-${100000 + i}`;
		/** @type {Record<string, unknown>} */
		const click = {};
		if (r() < 0.3) click.fbclid = `IwAR${i.toString(36)}${Math.floor(r() * 1e9).toString(36)}`;
		if (r() < 0.4) click.fbp = `fb.1.${now - 86_400_000 * 10 + Math.floor(r() * 1e6)}.${Math.floor(r() * 2e9)}`;
		if (r() < 0.2) click.gclid = `Cj0KCQ${Math.floor(r() * 1e12).toString(36)}`;
		if (r() < 0.1) click.ttclid = `E.C.P.${Math.floor(r() * 1e12).toString(36)}`;
		const stateRoll = r();
		const hasValue = stateRoll >= 0.97 || r() < 0.17;
		const state = stateRoll < 0.8 ? 'lead' : stateRoll < 0.87 ? 'contact' : stateRoll < 0.97 ? 'schedule' : 'purchase';
		/** @type {LeadRecord} */
		const lead = {
			record_id: `${options.idPrefix}-${i}`,
			state,
			occurred_at: new Date(now - Math.floor(r() * 3 * 86_400_000) - 60_000).toISOString(),
			contact,
		};
		if (Object.keys(click).length) lead.click = click;
		if (web) {
			lead.source = { kind: 'form', form_id: 'contact-us', page_url: `https://www.example.com${pick(r, PAGES)}?utm_source=${r() < 0.5 ? 'fb' : 'google'}` };
			lead.client = { ip: `203.0.113.${1 + Math.floor(r() * 254)}`, user_agent: pick(r, AGENTS) };
		} else {
			lead.source = { kind: 'crm' };
		}
		if (hasValue) lead.value = { amount: String(50 + Math.floor(r() * 950)), currency: r() < 0.7 ? 'USD' : 'EUR' };
		leads[i] = lead;
	}
	// Flat strings, as n8n hands items to a node (it parses the JSON its Code node returned):
	// the template literals above make concatenated strings, which V8 flattens (~1 µs a lead)
	// the first time the measured code reads them. One round trip through JSON flattens every
	// string once, here, outside any timed section; the leads stay exactly the same values.
	return JSON.parse(JSON.stringify(leads));
}

/**
 * The Meta event name of a lead's state: the Meta adapter's own table (what the Meta sender's
 * default "From Lead State" uses), from dist/ as built.
 * @type {Record<string, string>}
 */
const META_EVENT_BY_STATE = require(require('node:path').join(__dirname, '..', '..', 'dist', 'shared', 'index.js'))
	.metaAdapter.eventNameByState;

module.exports = { generateLeads, META_EVENT_BY_STATE };
