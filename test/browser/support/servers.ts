import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CAPTURE_SCRIPT_CONTENT_TYPE, captureScriptSource } from '../../../shared/capture/browser';
import type { ScriptCapturePayload } from '../../../shared/capture/scriptProtocol';

export interface Recorded {
	method: string;
	/** Path and query as requested. */
	url: string;
	body: string;
	contentType: string;
	origin: string;
	/** Date.now() when the body had arrived. */
	at: number;
}

/** How one test page is built. */
export interface PageOptions {
	/** Inline script run before the capture script (consent flags, dataLayer, ...). */
	pre?: string;
	/** Extra attributes on the capture script tag (data-forms, data-require-consent, ...). */
	attrs?: Record<string, string>;
	/**
	 * `/thanks` (default): the form posts natively into a hidden iframe, the action answers 204
	 * and the page stays, so a second fill can follow. `/thanks-page`: the form navigates the
	 * page to a 200 thank-you page.
	 */
	action?: '/thanks' | '/thanks-page';
	/** No form in the HTML: a form without id, name or action is added 200 ms after load. */
	dynamic?: boolean;
}

const esc = (s: string) =>
	s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const LEAD_FORM = (action: string) => `
<iframe name="sink" hidden></iframe>
<form id="lead-form" method="post" action="${action}"${action === '/thanks' ? ' target="sink"' : ''}>
  <label>Email <input id="email" type="email" name="your-email" autocomplete="email"></label>
  <label>Phone <input id="phone" type="tel" name="phone"></label>
  <label>First name <input id="fname" name="fname"></label>
  <label>Last name <input id="lname" name="last-name"></label>
  <label>Message <textarea id="message" name="message"></textarea></label>
  <label>Password <input id="password" type="password" name="password"></label>
  <input type="hidden" name="lead_source" value="spring-landing">
  <input type="hidden" name="card_cvv" value="cvv-987-hidden">
  <input id="internal" name="internal_note" value="do-not-send" data-lead-capi="ignore">
  <button id="send" type="submit">Send</button>
</form>`;

const DYNAMIC_FORM = `
<div id="slot"></div>
<script>
setTimeout(function () {
  document.getElementById('slot').innerHTML =
    '<form method="post" onsubmit="return false"><input id="email" type="text" name="newsletter-email">' +
    '<button id="send" type="submit">Join</button></form>';
}, 200);
</script>`;

function pageHtml(captureOrigin: string, o: PageOptions): string {
	const attrs = Object.entries(o.attrs ?? {})
		.map(([k, v]) => ` ${k}="${esc(v)}"`)
		.join('');
	// The script sits in <head> with async: the form does not exist yet when it runs.
	return `<!doctype html>
<html><head><meta charset="utf-8"><title>Get a quote</title>
${o.pre ? `<script>${o.pre}</script>` : ''}
<script async src="${captureOrigin}/capture?v=1"${attrs}></script>
</head><body>
<h1>Get a quote</h1>
${o.dynamic ? DYNAMIC_FORM : LEAD_FORM(o.action ?? '/thanks')}
<p id="elsewhere">We answer within a day.</p>
</body></html>`;
}

async function listen(handler: http.RequestListener) {
	const sockets = new Set<Socket>();
	const server = http.createServer(handler);
	server.on('connection', (s) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const { port } = server.address() as AddressInfo;
	return {
		origin: `http://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((r) => {
				for (const s of sockets) s.destroy();
				server.close(() => r());
			}),
	};
}

function record(req: http.IncomingMessage, into: Recorded[], then: (r: Recorded) => void) {
	const chunks: Buffer[] = [];
	req.on('data', (c: Buffer) => chunks.push(c));
	req.on('end', () => {
		const r: Recorded = {
			method: req.method ?? '',
			url: req.url ?? '',
			body: Buffer.concat(chunks).toString('utf8'),
			contentType: String(req.headers['content-type'] ?? ''),
			origin: String(req.headers.origin ?? ''),
			at: Date.now(),
		};
		into.push(r);
		then(r);
	});
}

/**
 * Two loopback servers on different ports, so the page and the capture endpoint are different
 * origins as on a real site (site.example → n8n.example):
 * - the site: GET /page/<name> (a page built from `pages[name]`), POST /thanks (204, the page
 *   stays) and POST /thanks-page (200 HTML); records its requests in `site`;
 * - the capture endpoint: GET /capture serves `captureScriptSource()`, POST /capture and any
 *   OPTIONS are recorded in `capture` (a preflight would show up there).
 */
export async function startServers(pages: Record<string, PageOptions>) {
	const site: Recorded[] = [];
	const capture: Recorded[] = [];
	let captureOrigin = '';

	const cap = await listen((req, res) => {
		const path = (req.url ?? '').split('?')[0];
		if (req.method === 'GET' && path === '/capture') {
			res.writeHead(200, {
				'content-type': CAPTURE_SCRIPT_CONTENT_TYPE,
				'cache-control': 'no-store',
			});
			res.end(captureScriptSource());
			return;
		}
		record(req, capture, () => {
			const cors = {
				'access-control-allow-origin': String(req.headers.origin ?? '*'),
				'access-control-allow-methods': 'POST',
				'access-control-allow-headers': 'content-type',
			};
			res.writeHead(req.method === 'POST' && path === '/capture' ? 204 : 404, cors);
			res.end();
		});
	});
	captureOrigin = cap.origin;

	const web = await listen((req, res) => {
		record(req, site, (r) => {
			const path = r.url.split('?')[0];
			const page = path.startsWith('/page/') ? pages[path.slice(6)] : undefined;
			if (req.method === 'GET' && page) {
				res.writeHead(200, {
					'content-type': 'text/html; charset=utf-8',
					'cache-control': 'no-store',
				});
				res.end(pageHtml(captureOrigin, page));
			} else if (req.method === 'POST' && path === '/thanks') {
				res.writeHead(204);
				res.end();
			} else if (path === '/thanks-page') {
				res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
				res.end('<!doctype html><title>Thanks</title><h1 id="thanks">Thanks!</h1>');
			} else {
				res.writeHead(404);
				res.end();
			}
		});
	});

	return {
		siteOrigin: web.origin,
		captureOrigin,
		site,
		capture,
		/** Parsed bodies of the POSTs to /capture, in arrival order. */
		captures(): (ScriptCapturePayload & { _raw: Recorded })[] {
			return capture
				.filter((r) => r.method === 'POST')
				.map((r) => ({ ...(JSON.parse(r.body) as ScriptCapturePayload), _raw: r }));
		},
		reset() {
			site.length = 0;
			capture.length = 0;
		},
		close: async () => {
			await Promise.all([web.close(), cap.close()]);
		},
	};
}

export type Servers = Awaited<ReturnType<typeof startServers>>;
