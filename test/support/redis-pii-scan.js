// @ts-check
/**
 * Raw personal data must never reach Redis (DESIGN.md: dedup keys, stats and the capture log hold
 * hashes, counts and redacted captures only). This scans what the tests leave there:
 *  - dropPrefix (redisClient.ts) scans a test's keys just before it deletes them;
 *  - the jest global teardown scans every key still under the suites' prefixes (`test:*`,
 *    `e2e*`, `leadcapi:*`: the end-to-end suites' n8n writes under `e2e-…`, some suites leave
 *    their keys) and fails the run when anything was found, printing what it looked at.
 * Every value is read whole: strings, hash fields and values (the stats), stream entries (the
 * capture log), lists, sets and sorted sets; key names too.
 *
 * What counts as raw personal data: any email address, also percent-encoded (nothing we store has
 * an "@"); any name slug of two test names (`jane-doe` in a page URL's path); any phone
 * number and any first or last name the test sources use (test/**, fixtures), read from them
 * (phones as written and as digits; names as whole values of a JSON leaf or a field, any case). Plain CommonJS: the jest global setup and teardown load it as is.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');
const PATTERNS = ['test:*', 'e2e*', 'leadcapi:*'];
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/i;

/** @param {string} dir @returns {string[]} */
function filesUnder(dir) {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(full);
		return /\.(ts|js|json)$/.test(entry.name) ? [full] : [];
	});
}

/** @type {{ phones: string[], names: string[], sources: number } | undefined} */
let known;

/**
 * The phone numbers and names the tests use, read from their sources once per process: phone
 * fields' values and quoted numbers written the way phones are (`+44 20…`, `(650) 555-…`), with
 * 10 to 15 digits; first and last name fields' values, and the full names of the capture
 * fixtures (split into their parts too).
 */
function knownIdentity() {
	if (known) return known;
	const files = [
		...filesUnder(path.join(REPO, 'test')),
		...filesUnder(path.join(REPO, 'examples')),
	];
	const fixtures = path.join(REPO, 'test', 'fixtures');
	const phones = new Set();
	const names = new Set();
	const phoneLiterals = [
		/\b(?:phone|phone_number|phoneNumber|tel|mobile|text_reminder_number)['"]?\s*:\s*\[?\s*['"`]([^'"`]{7,30})['"`]/g,
		/['"`](\+\s?\d[\d\s().-]{6,22}\d|\(\d{3}\)\s?\d[\d\s.-]{5,12}\d)['"`]/g,
	];
	for (const file of files) {
		const text = fs.readFileSync(file, 'utf8');
		for (const pattern of phoneLiterals) {
			for (const [, literal] of text.matchAll(pattern)) {
				const digits = literal.replace(/\D/g, '');
				if (digits.length < 10 || digits.length > 15 || !/^[\d\s().+-]+$/.test(literal.trim()))
					continue;
				phones.add(literal.trim());
				phones.add(digits);
			}
		}
		const nameFields = file.startsWith(fixtures)
			? /"(?:first_?name|last_?name|firstName|lastName|name)"\s*:\s*"([^"]{2,40})"/g
			: /\b(?:first_name|last_name|firstName|lastName)['"]?\s*:\s*['"]([^'"]{2,40})['"]/g;
		for (const [, value] of text.matchAll(nameFields)) {
			if (!/^\p{Lu}[\p{L}'’.-]*(?: \p{Lu}[\p{L}'’.-]*){0,2}$/u.test(value)) continue;
			names.add(value.toLowerCase());
			for (const part of value.split(' ')) if (part.length >= 3) names.add(part.toLowerCase());
		}
	}
	known = { phones: [...phones], names: [...names], sources: files.length };
	return known;
}

/**
 * Every value of a key as text, by type.
 * @param {import('ioredis').default} client
 * @param {string} key
 * @returns {Promise<{ type: string, texts: string[], items: number }>}
 */
async function readKey(client, key) {
	const type = await client.type(key);
	switch (type) {
		case 'string':
			return { type, texts: [String(await client.get(key))], items: 1 };
		case 'hash': {
			const hash = await client.hgetall(key);
			return { type, texts: Object.entries(hash).flat(), items: Object.keys(hash).length };
		}
		case 'stream': {
			const entries = await client.xrange(key, '-', '+');
			return {
				type,
				texts: entries.flatMap(([id, fields]) => [id, ...fields]),
				items: entries.length,
			};
		}
		case 'list': {
			const items = await client.lrange(key, 0, -1);
			return { type, texts: items, items: items.length };
		}
		case 'set': {
			const items = await client.smembers(key);
			return { type, texts: items, items: items.length };
		}
		case 'zset': {
			const items = await client.zrange(key, 0, -1, 'WITHSCORES');
			return { type, texts: items, items: items.length / 2 };
		}
		default:
			return { type, texts: [], items: 0 }; // gone meanwhile (expired), or a type we never write
	}
}

/**
 * Whether `text` holds `phone`: as written, or, for a bare digit form, as a whole number (not
 * as part of a longer digit run such as an event set id).
 * @param {string} text @param {string} phone
 */
function holdsPhone(text, phone) {
	let at = text.indexOf(phone);
	if (!/^\d+$/.test(phone)) return at !== -1;
	while (at !== -1) {
		const before = text[at - 1] ?? '';
		const after = text[at + phone.length] ?? '';
		if (!/\d/.test(before) && !/\d/.test(after)) return true;
		at = text.indexOf(phone, at + 1);
	}
	return false;
}

/** String leaves of a JSON text (a capture-log entry), or the text itself. @param {string} text */
function leaves(text) {
	/** @type {string[]} */
	const found = [];
	/** @param {unknown} value */
	const walk = (value) => {
		if (typeof value === 'string') found.push(value);
		else if (value && typeof value === 'object') {
			for (const [k, v] of Object.entries(value)) {
				found.push(k);
				walk(v);
			}
		}
	};
	try {
		walk(JSON.parse(text));
	} catch {
		found.push(text);
	}
	return found;
}

/**
 * What in `texts` (of `key`) is raw personal data.
 * @param {string} key
 * @param {string[]} texts
 * @returns {string[]}
 */
function findPii(key, texts) {
	const { phones, names } = knownIdentity();
	const hits = [];
	for (const text of [key, ...texts]) {
		const plain = percentDecoded(text);
		if (EMAIL.test(text) || EMAIL.test(plain))
			hits.push(`${key}: an email address (${JSON.stringify(text.slice(0, 120))})`);
		for (const slug of nameSlugs(plain, names)) hits.push(`${key}: the name slug ${JSON.stringify(slug)}`);
		for (const phone of phones)
			if (holdsPhone(text, phone)) hits.push(`${key}: the phone ${phone}`);
		for (const leaf of leaves(text)) {
			if (names.includes(leaf.trim().toLowerCase()))
				hits.push(`${key}: the name ${JSON.stringify(leaf)}`);
		}
	}
	return hits;
}

/**
 * The text with percent-encoding undone up to three times (`jane%2540example.com` is an
 * address too: the capture log's page URLs and utm values are where it would hide).
 * @param {string} text
 */
function percentDecoded(text) {
	let out = text;
	for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(out); i++) {
		try {
			out = decodeURIComponent(out);
		} catch {
			break;
		}
	}
	return out;
}

/**
 * Name slugs in a text (`jane-doe`, `ada.lovelace`, `greta_hoffmann`): two neighbouring words of
 * a slug that are both names the tests use (three letters or more).
 * @param {string} text
 * @param {string[]} names
 */
function nameSlugs(text, names) {
	const known = new Set(names.filter((n) => n.length >= 3 && n !== 'test').map((n) => n.toLowerCase()));
	const found = [];
	for (const [slug] of text.toLowerCase().matchAll(/\p{L}+(?:[-._+]\p{L}+)+/gu)) {
		const words = slug.split(/[-._+]/);
		for (let i = 1; i < words.length; i++) {
			if (known.has(words[i - 1]) && known.has(words[i]) && words[i - 1] !== words[i]) found.push(slug);
		}
	}
	return found;
}

/**
 * Reads and checks the given keys.
 * @param {import('ioredis').default} client
 * @param {string[]} keys
 */
async function scanKeys(client, keys) {
	/** @type {Record<string, number>} */
	const byType = {};
	let items = 0;
	let values = 0;
	/** @type {string[]} */
	const hits = [];
	for (const key of keys) {
		const read = await readKey(client, key);
		byType[read.type] = (byType[read.type] ?? 0) + 1;
		items += read.items;
		values += read.texts.length;
		hits.push(...findPii(key, read.texts));
	}
	return { keys: keys.length, byType, items, values, hits };
}

/**
 * Every key matching `pattern` (SCAN: never blocks the shared server).
 * @param {import('ioredis').default} client
 * @param {string} pattern
 */
async function keysMatching(client, pattern) {
	/** @type {string[]} */
	const keys = [];
	let cursor = '0';
	do {
		const [next, batch] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
		cursor = next;
		keys.push(...batch);
	} while (cursor !== '0');
	return keys;
}

/** Where the scans of one jest run are collected (set up by the global setup). */
function reportFile() {
	const id = process.env.LEAD_CAPI_REDIS_SCAN_ID;
	return id ? path.join(os.tmpdir(), `lead-capi-redis-scan-${id}.jsonl`) : null;
}

/**
 * Records a scan for the end-of-run summary.
 * @param {string} where
 * @param {Awaited<ReturnType<typeof scanKeys>>} scan
 */
function record(where, scan) {
	const file = reportFile();
	if (file) fs.appendFileSync(file, `${JSON.stringify({ where, ...scan })}\n`);
}

/**
 * Scans the keys under `prefix` (a test's own, before dropPrefix deletes them) and records it.
 * @param {import('ioredis').default} client
 * @param {string} prefix
 * @param {string[]} [keys] the keys, when the caller has them already
 */
async function scanPrefixBeforeDrop(client, prefix, keys) {
	const scan = await scanKeys(client, keys ?? (await keysMatching(client, `${prefix}:*`)));
	if (scan.keys > 0) record(`before dropping ${prefix}`, scan);
	return scan;
}

/**
 * The global teardown's part: scans what is left under the suites' prefixes, adds the scans
 * recorded during the run, prints the figures and throws when any raw personal data was found.
 * @param {string[]} urls every Redis the run's test files used
 */
async function scanAfterRun(urls) {
	const { default: Redis } = require('ioredis');
	for (const url of urls) {
		const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
		try {
			await client.connect();
			const keys = [
				...new Set((await Promise.all(PATTERNS.map((p) => keysMatching(client, p)))).flat()),
			];
			record(`left after the run on ${url} (${PATTERNS.join(', ')})`, await scanKeys(client, keys));
		} finally {
			client.disconnect();
		}
	}
	const file = reportFile();
	const scans =
		file && fs.existsSync(file)
			? fs
					.readFileSync(file, 'utf8')
					.trim()
					.split('\n')
					.filter(Boolean)
					.map((line) => JSON.parse(line))
			: [];
	if (file) fs.rmSync(file, { force: true });
	/** @type {Record<string, number>} */
	const byType = {};
	/** @type {string[]} */
	const hits = [];
	const total = { scans: scans.length, keys: 0, items: 0, values: 0, byType, hits };
	for (const scan of scans) {
		total.keys += scan.keys;
		total.items += scan.items;
		total.values += scan.values;
		for (const [type, n] of Object.entries(scan.byType))
			total.byType[type] = (total.byType[type] ?? 0) + n;
		total.hits.push(...scan.hits);
	}
	const { phones, names, sources } = knownIdentity();
	const types = Object.entries(total.byType)
		.map(([type, n]) => `${n} ${type}`)
		.join(', ');
	console.log(
		`Redis PII scan: ${total.scans} scans, ${total.keys} keys (${types || 'none'}), ${total.items} entries/fields, ${total.values} values; ` +
			`looked for any email address, ${phones.length} phone forms and ${names.length} names from ${sources} test sources: ${total.hits.length} hits`,
	);
	if (total.hits.length > 0) {
		throw new Error(
			`raw personal data in Redis:\n${[...new Set(total.hits)].slice(0, 50).join('\n')}`,
		);
	}
	return total;
}

module.exports = {
	scanKeys,
	scanPrefixBeforeDrop,
	scanAfterRun,
	keysMatching,
	findPii,
	knownIdentity,
};
