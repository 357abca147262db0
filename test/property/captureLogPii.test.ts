import fc from 'fast-check';
import type Redis from 'ioredis';
import { CaptureLog, captureLogKey } from '../../shared/captureLog';
import { createRedisClient } from '../../shared/dedup';
import { buildPreview } from '../../shared/rules';
import type { LeadRecord } from '../../shared/types';
import { PROPERTY_SEED, RUNS } from '../support/hostile';
import { adminRedis, dropPrefix, uniquePrefix } from '../support/redisClient';

/**
 * Issue 13 point 1: the capture log holds no personal data. 10,000 generated captures carry a
 * lead's email, phone and name in every field and URL part — the page URL's path (as is,
 * percent-encoded, as a name slug, after `/u/`), every query value (utm_* and others, encoded
 * once or twice), the referrer, free-text attributes (`project_details`, `referred_by`,
 * `contact_person`, `msg_body`, `message`, `notes`) and declared ones, the form id, consent,
 * currency, city — and are written through the real CaptureLog to the real Redis. Then every
 * entry Redis holds for the log, and the preview built from them (examples included), is read
 * whole: none of the lead's email, phone digits, name or name slug is there, nor any email
 * address or phone-like digit run at all.
 */

const FIRST = ['Zorbaxa', 'Quelinda', 'Marvesto', 'Thaddeusz', 'Olwynne', 'Brisethe', 'Kasimirra', 'Ulrikke'];
const LAST = ['Quillington', 'Vantressor', 'Okonkwarde', 'Fitzwarrell', 'Bellamorte', 'Draskovian', 'Hollowmere', 'Penderwick'];
const DECLARED = ['plan', 'company_size', 'lead_type', 'budget', 'referred_by', 'contact_person'];

interface Person {
	first: string;
	last: string;
	email: string;
	/** National digits of the phone. */
	digits: string;
	phone: string;
}

const person = fc
	.record({
		first: fc.constantFrom(...FIRST),
		last: fc.constantFrom(...LAST),
		domain: fc.constantFrom('example.com', 'acme.io', 'gmail.com', 'xn--mnchen-3ya.de'),
		digits: fc.integer({ min: 2_012_000_000, max: 9_899_999_999 }).map(String),
		phoneStyle: fc.nat(3),
	})
	.map(({ first, last, domain, digits, phoneStyle }): Person => {
		const [a, b, c] = [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)];
		const phone = [`+1 (${a}) ${b}-${c}`, `+1${digits}`, `${a}.${b}.${c}`, `001 ${a} ${b} ${c}`][phoneStyle];
		return { first, last, email: `${first.toLowerCase()}.${last.toLowerCase()}@${domain}`, digits, phone };
	});

/** The ways a person shows up in a URL part or a value. */
function forms(p: Person): string[] {
	const slug = `${p.first}-${p.last}`.toLowerCase();
	return [
		p.email,
		encodeURIComponent(p.email),
		encodeURIComponent(encodeURIComponent(p.email)),
		`mailto:${p.email}`,
		p.phone,
		encodeURIComponent(p.phone),
		slug,
		`${p.first}.${p.last}`,
		`${p.first} ${p.last}`,
		`${p.first}_${p.last}`.toLowerCase(),
	];
}

const capture = fc
	.tuple(person, fc.array(fc.nat(9), { minLength: 24, maxLength: 24 }), fc.constantFrom('lead', 'partial', 'contact'))
	.map(([p, pick, state]): { person: Person; record: LeadRecord } => {
		const f = forms(p);
		const at = (i: number) => f[pick[i]];
		const seg = (i: number) => encodeURIComponent(at(i)).replace(/%25/g, '%');
		const path = [`/account/${seg(0)}/upgrade`, `/u/${seg(1)}`, `/p/${seg(2)}/pricing`, `/${seg(3)}`][pick[4] % 4];
		const query = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'email', 'name', 'ref']
			.map((k, i) => `${k}=${encodeURIComponent(at(5 + i))}`)
			.join('&');
		const sentence = `Hi, I am ${p.first} ${p.last}, reach me at ${p.email} or ${p.phone}. My colleague ${p.first} will join.`;
		const record = {
			record_id: `r-${p.digits}`,
			state,
			occurred_at: '2026-11-30T10:00:00Z',
			// Stage fields (kept for stage conditions): a stage name may hold anything a CRM sends.
			stage: [at(6), 'qualified'][pick[7] % 2],
			previous_stage: [at(8), 'mql'][pick[10] % 2],
			stage_at: '2026-11-30T10:05:00Z',
			lead_created_at: '2026-11-20T09:00:00Z',
			contact: {
				email: [`${p.first} ${p.last} <${p.email}>`, `mailto:${p.email.toUpperCase()}`][pick[13] % 2],
				phone: p.phone,
				first_name: p.first,
				last_name: p.last,
				city: [at(14), 'Springfield'][pick[15] % 2],
				region: at(16),
				country: 'US',
			},
			source: {
				kind: 'script',
				form_id: [at(17), 'contact-us'][pick[18] % 2],
				page_url: `https://www.example.com${path}?${query}#${encodeURIComponent(at(19))}`,
				referrer: `https://${`${p.first}-${p.last}`.toLowerCase()}.example.net/${seg(20)}?q=${encodeURIComponent(p.email)}`,
			},
			click: { fbclid: `IwAR_${seg(21)}`, gclid: 'Cj0_x' },
			consent: { ad_user_data: 'granted', ad_personalization: at(22) },
			value: { amount: 100, currency: at(23) },
			attributes: {
				project_details: sentence,
				message: sentence,
				notes: `call ${p.phone}`,
				msg_body: sentence,
				referred_by: `${p.first} ${p.last}`,
				contact_person: p.first,
				plan: ['enterprise', at(0)][pick[1] % 2],
				company_size: '11-50',
				lead_type: [p.last, 'demo'][pick[2] % 2],
				budget: at(3),
				opaque_field_7: p.email,
				utm_term: at(9),
				utm_source: 'newsletter',
			},
		};
		return { person: p, record: record as unknown as LeadRecord };
	});

const EMAIL = /[^\s@"'<>(),;:/?&=]+@[^\s@"'<>(),;:/?&=]+\.[a-z]{2,}/i;
const NAMES = [...FIRST, ...LAST].map((n) => n.toLowerCase());

function decodedAll(text: string): string {
	let out = text;
	for (let i = 0; i < 3; i++) {
		try {
			out = decodeURIComponent(out);
		} catch {
			return out;
		}
	}
	return out;
}

/** The personal data found in `text` (any of the generated people, any email, any phone-like run). */
function personalIn(text: string, p?: Person): string[] {
	const plain = decodedAll(text).toLowerCase();
	const found: string[] = [];
	if (EMAIL.test(plain)) found.push(`an email: ${EMAIL.exec(plain)?.[0]}`);
	const run = /\d(?:[\s().\-+/]*\d){6,}/.exec(plain.replace(/\d{4}-\d{2}-\d{2}t\d{2}:\d{2}:\d{2}(\.\d+)?z/g, ''));
	if (run) found.push(`a digit run: ${run[0]}`);
	for (const name of NAMES) if (plain.includes(name)) found.push(`the name ${name}`);
	if (p && plain.replace(/\D/g, '').includes(p.digits)) found.push(`the phone ${p.digits}`);
	return found;
}

describe('capture log: no personal data in Redis or the preview (10,000 generated captures)', () => {
	let client: Redis;
	let admin: Redis;
	let prefix: string;

	beforeAll(() => {
		client = createRedisClient({ url: process.env.REDIS_URL });
		admin = adminRedis();
		prefix = uniquePrefix('pii-property');
	});
	afterAll(async () => {
		await dropPrefix(admin, prefix);
		client.disconnect();
		admin.disconnect();
	});

	it('none in any entry Redis holds, none in the preview output', async () => {
		const samples = fc.sample(capture, { numRuns: RUNS, seed: PROPERTY_SEED });
		const key = captureLogKey(prefix, 'pii', 'wf-1');
		const log = new CaptureLog(client, { key, maxEntries: RUNS * 2 });
		// The most the log keeps: location down to the city.
		for (const { record } of samples) await log.append(record, { attributes: DECLARED, location: 'city' });

		// Every entry as Redis holds it (the stream's fields and values, raw).
		const stored: Array<[string, string[]]> = [];
		let from = '-';
		for (;;) {
			const page = (await admin.xrange(key, from, '+', 'COUNT', 2_000)) as Array<[string, string[]]>;
			stored.push(...page);
			if (page.length < 2_000) break;
			from = `(${page[page.length - 1][0]}`;
		}
		expect(stored).toHaveLength(RUNS);
		const keys = await admin.keys(`${prefix}:*`);
		expect(keys).toEqual([key]);
		const leaks: string[] = [];
		stored.forEach(([, fields], i) => {
			// An entry is `o` (the log's byte offset, a number: see captureLog.ts) and `r` (the record).
			expect(fields.filter((_, j) => j % 2 === 0)).toEqual(['o', 'r']);
			const found = personalIn(fields[3], samples[i].person);
			if (found.length) leaks.push(`entry ${i}: ${found.join(', ')} in ${fields[3]}`);
		});
		expect(leaks.slice(0, 5)).toEqual([]);

		// What is kept is not nothing: the allow-listed, non-personal values survive.
		const records = stored.map(([, fields]) => JSON.parse(fields[fields.indexOf('r') + 1]));
		expect(records.every((r) => r.state && r.contact?.has_email && r.contact?.has_phone)).toBe(true);
		expect(records.every((r) => r.attributes?.company_size === '11-50' && r.attributes?.utm_source === 'newsletter')).toBe(true);
		expect(records.some((r) => r.source?.page_url?.startsWith('https://www.example.com/'))).toBe(true);
		expect(records.some((r) => r.stage === 'qualified' && r.previous_stage === 'mql' && r.stage_at && r.lead_created_at)).toBe(true);
		expect(records.some((r) => r.contact?.city === 'Springfield')).toBe(true);
		// `_reduced` names field paths and declared keys, with lengths: never a value.
		expect(records.every((r) => Object.keys(r._reduced ?? {}).every((k: string) => /^[a-z_.]+$/.test(k)))).toBe(true);

		// The preview: counts and examples of every match and miss (examples: all of them).
		const { entries } = await log.readWindow();
		const policy = {
			mode: 'automatic_match' as const,
			rules: {
				combinator: 'and' as const,
				conditions: [
					{ field: 'contact.email', match_type: 'is_work_email' as const },
					{ field: 'attributes.plan', match_type: 'equals' as const, pattern: 'enterprise' },
				],
			},
		};
		const report = buildPreview(policy, entries, { examples: RUNS });
		expect(report.considered).toBe(RUNS);
		const { matches, misses, cannot_answer: unanswered } = report.examples;
		expect(matches.length + misses.length + unanswered.length).toBe(RUNS);
		expect(report.matched + report.cannot_answer).toBeLessThanOrEqual(RUNS);
		// Stream ids (`<ms>-<seq>`) are the only digit runs the report may hold.
		const found = personalIn(JSON.stringify(report).replace(/"id":"\d+-\d+"/g, '"id":""'));
		expect(found).toEqual([]);
		console.log(
			`capture-log PII property: ${RUNS} captures, ${stored.length} entries in Redis, preview with ${RUNS} examples: 0 findings`,
		);
	}, 180_000);
});
