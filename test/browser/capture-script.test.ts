/**
 * The capture script in real headless Chromium against loopback pages: what it sends, when,
 * and what it never sends. The page (site origin) and the capture endpoint (the trigger's
 * stand-in) are two servers on different ports, so every capture is a cross-origin request.
 */
import { gzipSync } from 'node:zlib';
import { Linter } from 'eslint';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { captureScriptSource } from '../../shared/capture/browser';
import { launchChromium, pause, waitFor } from './support/chromium';
import { startServers, type Servers } from './support/servers';

/** What the page functions below see (this project compiles without the DOM lib). */
interface PageGlobals {
	location: { href: string };
	leadCapi?: { consent(granted: boolean): void; flush(): void };
	gtag(...args: unknown[]): void;
	localStorage: { getItem(k: string): string | null } & Record<string, unknown>;
	sessionStorage: Record<string, unknown>;
}

const LANDING_QUERY =
	'?fbclid=IwAR_TestClick&gclid=Cj0_TestG&ttclid=tt_123&utm_source=fb&utm_campaign=spring';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A shorter debounce for the scenarios that are not about the default one. */
const FAST = { 'data-partial-delay': '500' };
/** Debounce of the page under test plus room for the beacon to arrive. */
const quietAfter = (delay: number) => delay + 700;

let browser: Browser;
let servers: Servers;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
	servers = await startServers({
		main: {},
		fast: { attrs: FAST },
		'consent-false': { attrs: FAST, pre: 'window.leadCapiConsent = false;' },
		'gcm-denied': {
			attrs: FAST,
			pre: [
				'window.dataLayer = window.dataLayer || [];',
				'function gtag(){ dataLayer.push(arguments); }',
				"gtag('consent', 'default', { ad_storage: 'denied', ad_user_data: 'denied', ad_personalization: 'denied' });",
				// an insecure-context browser: the script falls back to getRandomValues
				'delete Crypto.prototype.randomUUID;',
			].join('\n'),
		},
		'require-consent': { attrs: { ...FAST, 'data-require-consent': 'true' } },
		navigate: { action: '/thanks-page' },
		dynamic: { dynamic: true },
	});
	browser = await launchChromium();
});

afterAll(async () => {
	await browser?.close();
	await servers?.close();
});

beforeEach(async () => {
	servers.reset();
	context = await browser.newContext();
	page = await context.newPage();
});

afterEach(async () => {
	await context?.close();
});

const partials = () => servers.captures().filter((c) => c.type === 'partial');
const submits = () => servers.captures().filter((c) => c.type === 'submit');

async function open(path: string) {
	await page.goto(servers.siteOrigin + path);
	await page.waitForFunction(() => !!(globalThis as unknown as PageGlobals).leadCapi);
}

/** Navigates from the page itself (as a link would: the browser sets the referrer). */
async function follow(path: string) {
	await page.evaluate((p) => ((globalThis as unknown as PageGlobals).location.href = p), path);
	await page.waitForURL(servers.siteOrigin + path);
	await page.waitForFunction(() => !!(globalThis as unknown as PageGlobals).leadCapi);
}

/** Clicks the submit button (a real, native form submission). */
async function submitForm() {
	await page.locator('#send').click();
}

/** Types like a person: one key at a time. */
async function type(selector: string, text: string) {
	await page.locator(selector).pressSequentially(text, { delay: 30 });
}

async function storageKeys() {
	return page.evaluate(() => {
		const w = globalThis as unknown as PageGlobals;
		return [...Object.keys(w.localStorage), ...Object.keys(w.sessionStorage)];
	});
}

function expectCleanTransport() {
	for (const r of servers.capture) {
		expect(r.method).toBe('POST'); // no OPTIONS: no preflight
		expect(r.url).toBe('/capture'); // the script's own query string is not the endpoint
		// a Blob's type is lowercased by the browser: the server must compare case-insensitively
		expect(r.contentType.toLowerCase()).toBe('text/plain;charset=utf-8');
		expect(r.origin).toBe(servers.siteOrigin);
	}
}

test('one partial per distinct email/phone, one submit with the same capture id, click ids from the landing URL', async () => {
	await context.addCookies([
		{ name: '_fbp', value: 'fb.1.1761000000000.1234567890', url: servers.siteOrigin },
		{ name: '_ttp', value: 'ttp_Abc123', url: servers.siteOrigin },
	]);
	const loadedAt = Date.now();
	await open('/page/main' + LANDING_QUERY);

	await type('#fname', 'Jane');
	await type('#lname', 'Doe');
	await type('#email', 'jane.doe@example.com');
	const typedAt = Date.now();

	// exactly one partial, after the default 800 ms debounce
	await waitFor(() => partials().length >= 1, 5000, 'the partial capture');
	await pause(quietAfter(800));
	expect(partials()).toHaveLength(1);
	const [p1] = partials();
	expect(p1._raw.at - typedAt).toBeGreaterThanOrEqual(600);
	expect(p1).toMatchObject({
		v: 1,
		type: 'partial',
		form_id: 'lead-form',
		page_url: servers.siteOrigin + '/page/main' + LANDING_QUERY,
		fields: { email: 'jane.doe@example.com', first_name: 'Jane', last_name: 'Doe' },
		click: {
			fbclid: 'IwAR_TestClick',
			gclid: 'Cj0_TestG',
			ttclid: 'tt_123',
			fbp: 'fb.1.1761000000000.1234567890',
			ttp: 'ttp_Abc123',
		},
		utm: { utm_source: 'fb', utm_campaign: 'spring' },
	});
	expect(Object.keys(p1.fields).sort()).toEqual(['email', 'first_name', 'last_name']);
	expect(p1.capture_id).toMatch(UUID);
	expect(p1.click.fbclid_at).toBeGreaterThanOrEqual(loadedAt);
	expect(p1.click.fbclid_at).toBeLessThanOrEqual(typedAt);
	expect(p1.ts).toBeGreaterThanOrEqual(typedAt - 50);
	expect(p1.referrer).toBeUndefined();

	// the same email typed again, a blur, free text: nothing new
	await page.locator('#email').fill('');
	await type('#email', 'jane.doe@example.com');
	await page.locator('#elsewhere').click();
	await type('#message', 'Please call me after 5pm about the roof.');
	await page.locator('#password').fill('hunter2-Secret!');
	await pause(quietAfter(800));
	expect(partials()).toHaveLength(1);

	// a phone adds an identifier: one more partial of the same fill, still no free text
	await type('#phone', '+1 415 555 0100');
	await waitFor(() => partials().length >= 2, 5000, 'the second partial');
	const p2 = partials()[1];
	expect(p2.capture_id).toBe(p1.capture_id);
	expect(p2.fields).toEqual({
		email: 'jane.doe@example.com',
		phone: '+1 415 555 0100',
		first_name: 'Jane',
		last_name: 'Doe',
	});

	// submit: exactly one completed capture, same id, every named field but the excluded ones
	await submitForm();
	await waitFor(() => submits().length >= 1, 5000, 'the submit capture');
	await waitFor(
		() => servers.site.find((r) => r.method === 'POST' && r.url === '/thanks'),
		5000,
		"the form's own POST",
	);
	await pause(1000);
	expect(submits()).toHaveLength(1);
	expect(partials()).toHaveLength(2);
	const s1 = submits()[0];
	expect(s1.capture_id).toBe(p1.capture_id);
	expect(s1.fields).toEqual({
		email: 'jane.doe@example.com',
		phone: '+1 415 555 0100',
		first_name: 'Jane',
		last_name: 'Doe',
		message: 'Please call me after 5pm about the roof.',
		lead_source: 'spring-landing',
	});
	expect(s1.click).toMatchObject({
		fbclid: 'IwAR_TestClick',
		fbclid_at: p1.click.fbclid_at,
		gclid: 'Cj0_TestG',
	});
	for (const c of servers.captures()) {
		expect(c._raw.body).not.toContain('hunter2');
		expect(c._raw.body).not.toContain('cvv-987'); // hidden card_cvv
		expect(c._raw.body).not.toContain('do-not-send'); // data-lead-capi="ignore"
	}
	// the form's own submit went through untouched (password included: it is the site's form)
	const formPost = servers.site.find((r) => r.method === 'POST' && r.url === '/thanks')!;
	expect(formPost.body).toContain('password=hunter2-Secret');
	expect((await storageKeys()).filter((k) => k.startsWith('lc_fill:'))).toEqual([]);

	// a second fill on the same page (the form posted into an iframe) is a new capture id
	await page.locator('#email').fill('');
	await type('#email', 'john.roe@example.org');
	await waitFor(() => partials().length >= 3, 5000, 'the partial of the second fill');
	const p3 = partials()[2];
	expect(p3.capture_id).toMatch(UUID);
	expect(p3.capture_id).not.toBe(p1.capture_id);
	expect(p3.fields.email).toBe('john.roe@example.org');
	await submitForm();
	await waitFor(() => submits().length >= 2, 5000, 'the submit of the second fill');
	await pause(500);
	expect(submits()).toHaveLength(2);
	expect(submits()[1].capture_id).toBe(p3.capture_id);

	expect(servers.capture.filter((r) => r.method === 'OPTIONS')).toHaveLength(0);
	expectCleanTransport();
	console.log(`main scenario: ${partials().length} partial, ${submits().length} submit captures`);
});

test('click ids and utm persist across pages (first seen time kept), a reload keeps the fill, a new fbclid replaces the old', async () => {
	await open('/page/fast?fbclid=IwAR_First&utm_source=news&utm_medium=email');
	const stored = await page.evaluate(() =>
		JSON.parse((globalThis as unknown as PageGlobals).localStorage.getItem('lc_click') || '{}'),
	);
	expect(stored.fbclid.v).toBe('IwAR_First');
	const firstSeen: number = stored.fbclid.t;

	// another page of the site, no query: the landing's ids and utm come from storage
	await follow('/page/fast');
	await type('#email', 'ana@example.net');
	await waitFor(() => partials().length >= 1, 5000, 'the partial');
	const p1 = partials()[0];
	expect(p1.page_url).toBe(servers.siteOrigin + '/page/fast');
	expect(p1.referrer).toBe(
		servers.siteOrigin + '/page/fast?fbclid=IwAR_First&utm_source=news&utm_medium=email',
	);
	expect(p1.click).toMatchObject({ fbclid: 'IwAR_First', fbclid_at: firstSeen });
	expect(p1.utm).toEqual({ utm_source: 'news', utm_medium: 'email' });

	// reload: the fill goes on (same id); a phone is a new identifier
	await page.reload();
	await page.waitForFunction(() => !!(globalThis as unknown as PageGlobals).leadCapi);
	await type('#phone', '030 1234567');
	await waitFor(() => partials().length >= 2, 5000, 'the partial after the reload');
	expect(partials()[1].capture_id).toBe(p1.capture_id);
	expect(partials()[1].fields).toEqual({ phone: '030 1234567' });

	// a new ad click: new fbclid and time; utm stays first-touch for the session
	await open('/page/fast?fbclid=IwAR_Second&utm_source=other');
	await page.locator('#email').fill('ana@example.net'); // sent before in this fill: no new partial
	await submitForm();
	await waitFor(() => submits().length >= 1, 5000, 'the submit');
	await pause(quietAfter(500));
	expect(partials()).toHaveLength(2);
	expect(submits()).toHaveLength(1);
	const s = submits()[0];
	expect(s.capture_id).toBe(p1.capture_id);
	expect(s.click.fbclid).toBe('IwAR_Second');
	expect(s.click.fbclid_at).toBeGreaterThan(firstSeen);
	expect(s.utm).toEqual({ utm_source: 'news', utm_medium: 'email' });
	expectCleanTransport();
});

test('window.leadCapiConsent = false: nothing is sent and nothing is stored', async () => {
	await open('/page/consent-false' + LANDING_QUERY);
	await type('#email', 'no.consent@example.com');
	await type('#phone', '+44 20 7946 0958');
	await page.locator('#elsewhere').click();
	await pause(quietAfter(500));
	await submitForm();
	await waitFor(
		() => servers.site.find((r) => r.method === 'POST' && r.url === '/thanks'),
		5000,
		"the form's own POST",
	);
	await pause(800);
	expect(servers.capture).toHaveLength(0);
	expect((await storageKeys()).filter((k) => k.startsWith('lc_'))).toEqual([]);
});

test('Google Consent Mode: ad_user_data denied sends nothing until an update grants it', async () => {
	await open('/page/gcm-denied' + LANDING_QUERY);
	await type('#email', 'gcm@example.com');
	await pause(quietAfter(500));
	expect(servers.capture).toHaveLength(0);
	expect((await storageKeys()).filter((k) => k.startsWith('lc_'))).toEqual([]);

	await page.evaluate(() =>
		(globalThis as unknown as PageGlobals).gtag('consent', 'update', { ad_user_data: 'granted' }),
	);
	await page.locator('#elsewhere').click(); // change event: the fill is looked at again
	await waitFor(() => partials().length >= 1, 5000, 'the partial after the grant');
	await pause(quietAfter(500));
	expect(servers.captures()).toHaveLength(1);
	expect(partials()[0].capture_id).toMatch(UUID); // built with getRandomValues here
	expect(partials()[0].click.fbclid).toBe('IwAR_TestClick');
	expectCleanTransport();
});

test('data-require-consent="true": nothing until leadCapi.consent(true), then the typed fill goes out', async () => {
	await open('/page/require-consent' + LANDING_QUERY);
	await type('#email', 'later@example.com');
	await type('#fname', 'Lea');
	await pause(quietAfter(500));
	expect(servers.capture).toHaveLength(0);
	expect((await storageKeys()).filter((k) => k.startsWith('lc_'))).toEqual([]);

	await page.evaluate(() => (globalThis as unknown as PageGlobals).leadCapi!.consent(true));
	await waitFor(() => partials().length >= 1, 3000, 'the partial after consent');
	expect(partials()[0].fields).toEqual({ email: 'later@example.com', first_name: 'Lea' });
	expect(partials()[0].click).toMatchObject({ fbclid: 'IwAR_TestClick', gclid: 'Cj0_TestG' });
	await submitForm();
	await waitFor(() => submits().length >= 1, 5000, 'the submit');
	await pause(500);
	expect(partials()).toHaveLength(1);
	expect(submits()).toHaveLength(1);
	expect(submits()[0].capture_id).toBe(partials()[0].capture_id);

	// consent(false) stops it again and drops what was stored
	expect((await storageKeys()).filter((k) => k.startsWith('lc_')).sort()).toEqual([
		'lc_click',
		'lc_utm',
	]);
	await page.evaluate(() => (globalThis as unknown as PageGlobals).leadCapi!.consent(false));
	expect((await storageKeys()).filter((k) => k.startsWith('lc_'))).toEqual([]);
	await page.locator('#email').fill('');
	await type('#email', 'stop@example.com');
	await submitForm();
	await pause(quietAfter(500));
	expect(servers.captures()).toHaveLength(2);
	expectCleanTransport();
});

test('a submit that navigates away still delivers its one capture; no partial after it', async () => {
	await open('/page/navigate' + LANDING_QUERY);
	await type('#email', 'quick@example.com');
	await submitForm(); // before the 800 ms debounce ends; KEEP
	await page.waitForSelector('#thanks');
	await waitFor(() => submits().length >= 1, 5000, 'the submit capture');
	await pause(quietAfter(800));
	expect(submits()).toHaveLength(1);
	expect(partials()).toHaveLength(0);
	expect(submits()[0].fields).toMatchObject({
		email: 'quick@example.com',
		lead_source: 'spring-landing',
	});
	expectCleanTransport();
});

test('leaving the page before the debounce ends flushes the partial', async () => {
	await open('/page/main' + LANDING_QUERY);
	await type('#email', 'leaving@example.com');
	await page.goto(servers.siteOrigin + '/thanks-page'); // pagehide
	await waitFor(() => partials().length >= 1, 5000, 'the flushed partial');
	await pause(500);
	expect(servers.captures()).toHaveLength(1);
	expect(partials()[0].fields).toEqual({ email: 'leaving@example.com' });
	expectCleanTransport();
});

test('a form added after the script ran is captured (delegated listeners)', async () => {
	await open('/page/dynamic');
	await page.waitForSelector('#email');
	await type('#email', 'late@example.com');
	await waitFor(() => partials().length >= 1, 5000, 'the partial');
	expect(partials()[0]).toMatchObject({ form_id: 'form-0', fields: { email: 'late@example.com' } });
	await submitForm();
	await waitFor(() => submits().length >= 1, 5000, 'the submit');
	await pause(quietAfter(500));
	expect(servers.captures().map((c) => c.type)).toEqual(['partial', 'submit']);
	expect(submits()[0].capture_id).toBe(partials()[0].capture_id);
	expect(submits()[0].fields).toEqual({ email: 'late@example.com' });
});

describe('the script itself', () => {
	const src = captureScriptSource();

	test('is under 5 KB gzipped', () => {
		const gz = gzipSync(src).length; // zlib's default level, as a server would compress it
		console.log(`capture script: ${src.length} bytes, ${gz} bytes gzipped`);
		expect(gz).toBeLessThan(5 * 1024);
	});

	test('parses as ES2017 script and touches only these globals', () => {
		const messages = new Linter().verify(src, {
			languageOptions: {
				ecmaVersion: 2017,
				sourceType: 'script',
				globals: Object.fromEntries(
					[
						'window',
						'document',
						'location',
						'navigator',
						'Blob',
						'URL',
						'URLSearchParams',
						'fetch',
						'setTimeout',
						'clearTimeout',
					].map((g) => [g, 'readonly' as const]),
				),
			},
			rules: {
				'no-undef': 'error',
				'no-console': 'error',
				'no-debugger': 'error',
				'no-unused-vars': ['error', { caughtErrors: 'none' }],
				'no-empty': ['error', { allowEmptyCatch: true }],
			},
		});
		expect(messages.map((m) => `${m.line}:${m.column} ${m.message}`)).toEqual([]);
	});
});
