import { SCRIPT_PROTOCOL_VERSION } from '../scriptProtocol';

/**
 * The browser capture script (protocol v1, see ../scriptProtocol.ts), served as is by a GET on
 * the Lead Capture Trigger's path. Plain ES2017, no dependencies, one IIFE.
 *
 * It lives in a TypeScript string (a String.raw template, so regex backslashes stay as written)
 * instead of a .js asset so that the same code serves it from source (ts-jest) and from the
 * plain `tsc` build in dist/, which copies no assets. No backticks in the script body, and no
 * dollar-brace but the protocol version. test/browser/ checks it parses as ES2017 with only the browser globals
 * listed there, stays under 5 KB gzipped, and behaves in real Chromium.
 */
export const CAPTURE_SCRIPT: string = String.raw`
/* n8n-nodes-lead-capi capture script, protocol v${SCRIPT_PROTOCOL_VERSION}: a "partial" capture once a valid email or
   phone is typed, a "submit" capture on submit; nothing sent or stored without consent. */
(() => {
  'use strict';
  const w = window, d = document, me = d.currentScript;
  if (!me || !me.src || (w.leadCapi && w.leadCapi.v)) return;
  const attr = (n) => me.getAttribute('data-' + n),
    END = me.src.split(/[?#]/)[0], // the URL that served us takes the POSTs
    NEED = attr('require-consent') === 'true',
    LS = 'localStorage', SS = 'sessionStorage', T0 = Date.now(),
    CLK = ['fbclid', 'ttclid', 'gclid', 'gbraid', 'wbraid', 'msclkid', 'epik'],
    // cookie fallbacks (_gcl_*: GCL.<ts>.<id>; _uetmsclkid as is)
    CK = { fbp: '_fbp', fbc: '_fbc', ttp: '_ttp', msclkid: '_uetmsclkid', epik: '_epik', gclid: '_gcl_aw', gbraid: '_gcl_gb' },
    IDENT = /^(email|phone|first_name|last_name|name|company)$/, // all a partial carries
    EMAIL = /^[^\s@]+@([^\s@.]+\.)+[a-z][a-z0-9-]+$/i,
    SENS = /passw|passcode|pwd|card|cc-|cvv|cvc|csc|ssn|social.?sec|iban|csrf|xsrf|token|nonce|captcha|secret/,
    // [normalized name, pattern on "_snake_name_", exclusion]
    KNOWN = [
      ['email', /email|_mail_/, /opt_?in|consent/],
      ['phone', /phone|mobile|telefon|whatsapp|_(tel|cell|mob|telno|telnr)_/, /code|ext/],
      ['first_name', /first_?name|given_?name|fore_?name|vorname|prenom|_fname_/],
      ['last_name', /last_?name|family_?name|sur_?name|nachname|_lname_/],
      ['company', /company|organi[sz]ation|_org_/, /title/],
      ['name', /^_((full|your|contact|customer|client|lead)_?)?name_$|full_?name/],
      ['city', /_(city|town|locality)|address_?level2/],
      ['region', /region|province|county|_state_|address_?level1/],
      ['postal_code', /zip|postal|post_?code|_plz_/],
      ['country', /country/]
    ],
    st = new WeakMap(), typed = new Set();
  let SEL = attr('forms') || 'form', DELAY = parseInt(attr('partial-delay'), 10), mem = {}, umem = null;
  if (!(DELAY >= 0)) DELAY = 800;
  try { d.querySelector(SEL); } catch (e) { SEL = 'form'; }

  const safe = (f) => (a) => { try { return f(a); } catch (e) {} }; // never throw into the page
  const get = (s, k) => { try { return JSON.parse(w[s].getItem(k)); } catch (e) { return null; } };
  const put = (s, k, v) => {
    try { if (v == null) w[s].removeItem(k); else w[s].setItem(k, JSON.stringify(v)); } catch (e) {}
  };
  const forget = () => [LS, SS].forEach((s) => { // consent withdrawn: drop what we stored
    try { Object.keys(w[s]).forEach((k) => { if (k.startsWith('lc_')) put(s, k); }); } catch (e) {}
  });
  const cookie = (n) => {
    const m = d.cookie.match('(?:^|; )' + n + '=([^;]*)');
    try { return m ? decodeURIComponent(m[1]).slice(0, 500) : ''; } catch (e) { return ''; }
  };
  const snake = (s) => String(s || '').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
    .replace(/[^a-z0-9\u00c0-\uffff]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64);
  const hash = (s) => { // FNV-1a
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return (h >>> 0).toString(36);
  };
  const uuid = () => {
    const c = w.crypto, b = new Uint8Array(16);
    if (c.randomUUID) return c.randomUUID();
    c.getRandomValues(b);
    b[6] = b[6] & 15 | 64; b[8] = b[8] & 63 | 128;
    return Array.from(b, (x) => (x + 256).toString(16).slice(1)).join('')
      .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
  };

  // Consent Mode: the latest update wins, else the latest default (a regional denial counts)
  const gcmDenied = () => {
    let u, g, r;
    for (const e of Array.isArray(w.dataLayer) ? w.dataLayer : []) {
      const v = e && e[0] === 'consent' && e[2] && e[2].ad_user_data;
      if (!v) continue;
      if (e[1] === 'update') u = v;
      else if (e[1] === 'default') { if (e[2].region) r = r || v === 'denied'; else g = v; }
    }
    return (u || (r ? 'denied' : g)) === 'denied';
  };
  const ok = () => {
    const c = w.leadCapiConsent;
    return c !== false && (c === true || !NEED) && !gcmDenied();
  };

  const query = (s) => {
    const o = {};
    new URLSearchParams(s).forEach((v, k) => { if (v) o[k.toLowerCase()] = v.slice(0, 500); });
    return o;
  };
  // A utm value holding an email (also percent-encoded) or a phone-like run of digits is never
  // stored nor sent (the capture log's own rule, shared/captureLog/scrub.ts)
  const personal = (v) => {
    for (let i = 0; i < 3; i++) try { v = decodeURIComponent(v); } catch (e) { break; }
    return /[^\s@\/?#&=]+@[^\s@\/?#&=]+\.[^\s@\/?#&=]+/.test(v) || /\d(?:[\s().\-+\/]*\d){6,}/.test(v);
  };
  const utms = (q) => {
    const o = {};
    Object.keys(q).filter((k) => k.startsWith('utm_') && !personal(q[k])).slice(0, 10).forEach((k) => { o[k] = q[k].slice(0, 200); });
    return Object.keys(o).length ? o : null;
  };
  const land = query(location.search);
  // Click ids (with consent): the newest wins, its first-seen time kept while unchanged; 90 days
  const remember = () => {
    const q = query(location.search), now = Date.now();
    let m = get(LS, 'lc_click');
    if (!m || typeof m !== 'object') m = mem;
    CLK.forEach((k) => {
      const v = q[k] || land[k];
      if (v && (!m[k] || m[k].v !== v)) m[k] = { v: v, t: v === land[k] ? T0 : now };
      if (m[k] && !(now - m[k].t < 7776e6)) delete m[k];
    });
    put(LS, 'lc_click', mem = m);
    umem = get(SS, 'lc_utm') || utms(land) || utms(q); // first touch of the session
    if (umem) put(SS, 'lc_utm', umem);
  };
  const clicks = () => {
    const c = {};
    CLK.forEach((k) => { if (mem[k]) c[k] = mem[k].v; });
    if (c.fbclid) c.fbclid_at = mem.fbclid.t;
    Object.keys(CK).forEach((k) => {
      let v = c[k] ? '' : cookie(CK[k]);
      if (CK[k].startsWith('_gcl')) v = v.split('.').slice(2).join('.');
      if (v) c[k] = v;
    });
    return c;
  };

  const box = (t) => { // the form of an event target, unless ignored or a login form
    const f = t && t.closest ? t.closest(SEL) : null;
    return f && f.getAttribute('data-lead-capi') !== 'ignore' &&
      !f.querySelector('[autocomplete~="current-password"]') ? f : null;
  };
  const fid = (f) => {
    const a = f.getAttribute('id') || f.getAttribute('name'), act = f.getAttribute('action');
    if (a) return a.slice(0, 100);
    if (act) try { return new URL(act, location.href).pathname; } catch (e) {}
    return 'form-' + Array.from(d.querySelectorAll(SEL)).indexOf(f);
  };
  const known = (s) => {
    const x = '_' + snake(s) + '_', k = s && KNOWN.find((k) => k[1].test(x) && !(k[2] && k[2].test(x)));
    return k ? k[0] : '';
  };
  const key = (el) => { // autocomplete, name, id, type, label: the first that says what it is
    const ac = (el.getAttribute('autocomplete') || '').trim().split(/\s+/).pop(),
      nm = el.getAttribute('name') || el.id, t = el.type;
    if (/^(checkbox|radio)$/.test(t) || el.tagName === 'TEXTAREA') return snake(nm); // never identity
    return (/^(on|off)$/.test(ac) ? '' : known(ac)) || known(nm) || known(el.id) ||
      (t === 'email' ? 'email' : t === 'tel' ? 'phone' : '') ||
      known(el.getAttribute('aria-label') || el.placeholder) || snake(nm);
  };
  const phoneOk = (v) => {
    const n = v.replace(/\D/g, '').length;
    return n >= 7 && n <= 20 && !/[a-z@]/i.test(v);
  };
  const fields = (f, part) => { // part: identity only, valid email and phone only
    const o = {};
    let n = 0;
    for (const el of Array.from(f.elements || f.querySelectorAll('input,select,textarea'))) {
      const t = String(el.type).toLowerCase(), at = (a) => el.getAttribute(a) || '';
      if (n >= 60 || !/^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName) || el.disabled ||
        /^(password|file|submit|button|reset|image)$/.test(t) || at('data-lead-capi') === 'ignore' ||
        SENS.test((at('name') + ' ' + el.id + ' ' + at('autocomplete')).toLowerCase()) ||
        (/^(checkbox|radio)$/.test(t) && !el.checked)) continue;
      const k = key(el), v = el.multiple && el.options
        ? Array.from(el.selectedOptions, (x) => x.value).join(', ')
        : String(el.value || '').trim();
      if (!k || !v || (part && (!IDENT.test(k) || (k === 'email' && !EMAIL.test(v)) ||
        (k === 'phone' && !phoneOk(v))))) continue;
      if (!o[k]) { o[k] = v.slice(0, 2000); n++; } else if (t === 'checkbox') o[k] = (o[k] + ', ' + v).slice(0, 2000);
    }
    return o;
  };

  // A fill: { id, h: hashes of the partials sent }, per form, in sessionStorage (a reload keeps it)
  const state = (f) => { let s = st.get(f); if (!s) st.set(f, s = {}); return s; };
  const rkey = (f) => 'lc_fill:' + location.pathname + '#' + fid(f);
  const rec = (f, create) => {
    const s = state(f);
    let r = s.r || get(SS, rkey(f));
    if (r && (typeof r.id !== 'string' || !Array.isArray(r.h))) r = null;
    if (!r && create) {
      r = { id: uuid(), h: [] };
      if (ok()) put(SS, rkey(f), r);
    }
    return (s.r = r);
  };

  const send = (type, f, id, o) => {
    remember();
    const p = { v: ${SCRIPT_PROTOCOL_VERSION}, type: type, capture_id: id, form_id: fid(f), page_url: location.href };
    if (d.referrer) p.referrer = d.referrer;
    p.fields = o;
    p.click = clicks();
    if (umem) p.utm = umem;
    p.ts = Date.now();
    const body = JSON.stringify(p), ct = 'text/plain;charset=UTF-8'; // a CORS simple request: no preflight
    try { if (navigator.sendBeacon(END, new Blob([body], { type: ct }))) return; } catch (e) {}
    try {
      fetch(END, { method: 'POST', body: body, keepalive: true, mode: 'no-cors', credentials: 'omit',
        headers: { 'content-type': ct } }).catch(() => {});
    } catch (e) {}
  };
  const partial = (f) => {
    const r = rec(f);
    if (!r || !ok()) return;
    const o = fields(f, 1);
    if (!o.email && !o.phone) return;
    const h = hash((o.email || '').toLowerCase() + '|' + (o.phone || '').replace(/\D/g, ''));
    if (r.h.includes(h)) return; // sent already
    r.h.push(h);
    put(SS, rkey(f), r);
    send('partial', f, r.id, o);
  };
  const submit = (f) => {
    const s = state(f), o = fields(f), j = JSON.stringify(o);
    clearTimeout(s.t);
    if (!(o.email || o.phone) || (s.j === j && Date.now() - s.at < 5000)) return; // no identity, or a double click
    const r = rec(f, 1);
    if (ok()) send('submit', f, r.id, o);
    s.j = j; s.at = Date.now(); s.r = null;
    put(SS, rkey(f), null); // the next fill gets a new id
  };
  const later = (f) => {
    const s = state(f);
    typed.add(f);
    clearTimeout(s.t);
    s.t = setTimeout(safe(() => partial(f)), DELAY);
  };
  const flush = () => typed.forEach((f) => { clearTimeout(state(f).t); partial(f); });

  // Delegated, in the capture phase: later forms work too; the form's own submit goes on untouched
  d.addEventListener('input', safe((e) => { const f = box(e.target); if (f) { rec(f, 1); later(f); } }), true);
  d.addEventListener('change', safe((e) => { const f = box(e.target); if (f && rec(f)) later(f); }), true);
  d.addEventListener('submit', safe((e) => { const f = box(e.target); if (f) submit(f); }), true);
  w.addEventListener('pagehide', safe(flush));
  d.addEventListener('visibilitychange', safe(() => { if (d.visibilityState === 'hidden') flush(); }));
  if (ok()) safe(remember)();
  w.leadCapi = {
    v: ${SCRIPT_PROTOCOL_VERSION},
    consent: safe((g) => { // true also satisfies data-require-consent
      w.leadCapiConsent = !!g;
      if (!g) forget();
      else if (ok()) { remember(); flush(); }
    }),
    flush: safe(flush)
  };
})();
`.replace(/^\n/, '');
