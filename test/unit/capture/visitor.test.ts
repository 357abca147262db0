import { isPublicIp, processCapture, type CaptureOutcome } from '../../../shared/capture';
import { config, NOW, request } from './helpers';

const LEAD = { id: 'L-1', email: 'a@example.com' };

function client(
	headers: Record<string, string | string[]>,
	remoteAddress: string | undefined,
	trustProxy: boolean,
	trustedProxies?: number,
): CaptureOutcome {
	return processCapture(
		request(LEAD, headers, remoteAddress),
		config('generic', { trustProxy, trustedProxies }),
		NOW,
	);
}

const ipOf = (outcome: CaptureOutcome) =>
	(outcome as { record: { client?: { ip?: unknown } } }).record.client?.ip;

describe('client IP', () => {
	it.each<
		[string, Record<string, string | string[]>, string | undefined, boolean, string | undefined]
	>([
		['the TCP peer without proxy headers', {}, '198.51.100.7', false, '198.51.100.7'],
		[
			'X-Forwarded-For ignored without trustProxy',
			{ 'x-forwarded-for': '203.0.113.9' },
			'198.51.100.7',
			false,
			'198.51.100.7',
		],
		[
			'X-Real-IP ignored without trustProxy',
			{ 'x-real-ip': '203.0.113.9' },
			'198.51.100.7',
			false,
			'198.51.100.7',
		],
		[
			'X-Forwarded-For honoured with trustProxy',
			{ 'x-forwarded-for': '203.0.113.9' },
			'10.0.0.2',
			true,
			'203.0.113.9',
		],
		[
			'behind one proxy, the right-most entry (the one the proxy appended)',
			{ 'x-forwarded-for': '10.1.2.3, 203.0.113.9, 198.51.100.1' },
			'10.0.0.2',
			true,
			'198.51.100.1',
		],
		[
			'garbage entries skipped',
			{ 'x-forwarded-for': 'unknown, 203.0.113.10:443' },
			'10.0.0.2',
			true,
			'203.0.113.10',
		],
		[
			'a repeated header',
			{ 'x-forwarded-for': ['192.168.1.4', '2001:db8::7'] },
			'10.0.0.2',
			true,
			'2001:db8::7',
		],
		[
			'not a visitor-sent X-Real-IP when the proxy appended a private X-Forwarded-For',
			{ 'x-forwarded-for': '10.1.2.3', 'x-real-ip': '203.0.113.11' },
			'10.0.0.2',
			true,
			undefined,
		],
		[
			'not the proxy (the peer) when the client entry is private',
			{ 'x-forwarded-for': '10.1.2.3' },
			'198.51.100.8',
			true,
			undefined,
		],
		[
			'X-Real-IP when there is no X-Forwarded-For',
			{ 'x-real-ip': '203.0.113.12' },
			'10.0.0.2',
			true,
			'203.0.113.12',
		],
		['an IPv4-mapped peer unwrapped', {}, '::ffff:198.51.100.9', false, '198.51.100.9'],
		['no IP for a loopback peer', {}, '127.0.0.1', false, undefined],
		['no IP for a Docker bridge peer', {}, '172.17.0.1', false, undefined],
	])('%s', (_case, headers, remoteAddress, trustProxy, expected) => {
		const outcome = client(headers, remoteAddress, trustProxy);
		expect(outcome.kind).toBe('accepted');
		expect((outcome as { record: { client?: { ip?: unknown } } }).record.client?.ip).toBe(expected);
	});

	it.each<[string, string, number | undefined, string]>([
		[
			'a visitor-written 8.8.8.8 behind one proxy',
			'8.8.8.8, 203.0.113.50',
			undefined,
			'203.0.113.50',
		],
		['the same with Trusted Proxies 1 set explicitly', '8.8.8.8, 203.0.113.50', 1, '203.0.113.50'],
		[
			'several forged entries behind one proxy',
			'1.1.1.1, 8.8.8.8, 203.0.113.51',
			1,
			'203.0.113.51',
		],
		[
			'behind a CDN and nginx (2 proxies)',
			'8.8.8.8, 203.0.113.52, 198.51.100.60',
			2,
			'203.0.113.52',
		],
		[
			'a chain shorter than the proxies configured: its left-most entry',
			'203.0.113.53',
			3,
			'203.0.113.53',
		],
		['a nonsense count reads as 1', '8.8.8.8, 203.0.113.54', 0, '203.0.113.54'],
	])('%s → the real client, never the forged hop', (_case, xff, trustedProxies, expected) => {
		const outcome = client({ 'x-forwarded-for': xff }, '10.0.0.2', true, trustedProxies);
		expect(ipOf(outcome)).toBe(expected);
	});

	it('a garbage client entry gives no IP and a warning, never an entry further left', () => {
		const outcome = client({ 'x-forwarded-for': '203.0.113.9, not-an-ip' }, '10.0.0.2', true);
		expect(ipOf(outcome)).toBeUndefined();
		expect(outcome).toMatchObject({
			warnings: ['client.ip: the X-Forwarded-For entry of the client is not an IP address'],
		});
	});

	it('warns when the only address is private', () => {
		expect(client({}, '192.168.0.10', false)).toMatchObject({
			warnings: ['client.ip: private, loopback or link-local address omitted'],
		});
	});

	it('prefers an IP and user agent the generic body supplies (a server forwarding a visitor)', () => {
		const outcome = processCapture(
			request(
				{ ...LEAD, ip_address: '203.0.113.77', user_agent: 'Visitor UA' },
				{ 'user-agent': 'CRM-Webhooks/2' },
				'198.51.100.7',
			),
			config('generic'),
			NOW,
		);
		expect(outcome).toMatchObject({
			record: { client: { ip: '203.0.113.77', user_agent: 'Visitor UA' } },
		});
	});

	it('fills the user agent from the request header', () => {
		expect(client({ 'user-agent': 'Mozilla/5.0 (X11)' }, '198.51.100.7', false)).toMatchObject({
			record: { client: { ip: '198.51.100.7', user_agent: 'Mozilla/5.0 (X11)' } },
		});
	});
});

describe('isPublicIp', () => {
	it.each<[string, boolean]>([
		['8.8.8.8', true],
		['203.0.113.9', true],
		['10.0.0.1', false],
		['100.64.0.1', false],
		['127.0.0.1', false],
		['169.254.1.1', false],
		['172.16.0.1', false],
		['172.32.0.1', true],
		['192.168.1.1', false],
		['224.0.0.1', false],
		['0.0.0.0', false],
		['2606:4700::1111', true],
		['::1', false],
		['fd00::1', false],
		['fe80::1', false],
		['ff02::1', false],
		['not-an-ip', false],
	])('%s → %s', (ip, expected) => {
		expect(isPublicIp(ip)).toBe(expected);
	});
});

describe('click ids and utm_* from URLs', () => {
	it('reads the landing page URL found in the body', () => {
		const outcome = processCapture(
			request({
				...LEAD,
				landing_page:
					'https://www.example.com/offer?utm_source=google&utm_medium=cpc&gclid=Cj0KCQ-landing&fbclid=IwAR-landing&msclkid=abc123&ttclid=E.C.P.x&epik=dj0y',
				page_url: 'https://www.example.com/contact?wbraid=WB-page',
			}),
			config('generic'),
			NOW,
		);
		expect(outcome).toMatchObject({
			kind: 'accepted',
			record: {
				source: { kind: 'generic', page_url: 'https://www.example.com/contact?wbraid=WB-page' },
				click: {
					gclid: 'Cj0KCQ-landing',
					fbclid: 'IwAR-landing',
					msclkid: 'abc123',
					ttclid: 'E.C.P.x',
					epik: 'dj0y',
					wbraid: 'WB-page',
				},
				attributes: { utm_source: 'google', utm_medium: 'cpc' },
			},
		});
	});

	it('uses the landing page as the page URL when no page URL is given', () => {
		const outcome = processCapture(
			request({ ...LEAD, landing_page: 'https://example.com/lp?gbraid=GB1' }),
			config('generic'),
			NOW,
		);
		expect(outcome).toMatchObject({
			record: {
				source: { page_url: 'https://example.com/lp?gbraid=GB1' },
				click: { gbraid: 'GB1' },
			},
		});
	});

	it('never replaces a click id or utm the body carries explicitly', () => {
		const outcome = processCapture(
			request({
				...LEAD,
				gclid: 'from-body',
				utm_source: 'body',
				url: 'example.com/?gclid=from-url&utm_source=url&utm_term=kw',
			}),
			config('generic'),
			NOW,
		);
		expect(outcome).toMatchObject({
			record: { click: { gclid: 'from-body' }, attributes: { utm_source: 'body', utm_term: 'kw' } },
		});
	});

	it('ignores an unparseable URL', () => {
		const outcome = processCapture(
			request({ ...LEAD, url: 'http://[::1' }),
			config('generic'),
			NOW,
		);
		expect(outcome).toMatchObject({ kind: 'accepted' });
		expect((outcome as { record: { click?: unknown } }).record.click).toBeUndefined();
	});
});
