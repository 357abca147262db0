#!/usr/bin/env node
// @ts-check
/**
 * A loopback HTTP server that answers the two HubSpot CRM API v3 reads the HubSpot stage
 * template makes (examples/hubspot-deal-stages-meta-crm-google-adjust.json), as HubSpot's CRM
 * objects API documents them (developers.hubspot.com/docs/api/crm/deals, …/contacts):
 *
 *   GET /crm/v3/objects/deals/{dealId}?properties=a,b&associations=contacts
 *       → { id, properties: { hs_object_id, <asked properties> }, associations: { contacts:
 *           { results: [{ id, type: 'deal_to_contact' }] } }, createdAt, updatedAt, archived }
 *   GET /crm/v3/objects/contacts/{contactId}?properties=a,b → { id, properties, … }
 *
 * A bearer token (a private app's access token) is required: 401 `{ status: 'error', category:
 * 'INVALID_AUTHENTICATION', … }` otherwise; an unknown object is 404 `{ category:
 * 'OBJECT_NOT_FOUND' }`. Only the asked properties come back (HubSpot returns a default set
 * when none is asked; here none). Deals and contacts are seeded by the test (`addDeal`).
 * Used by the end-to-end suite and `npm run dev`.
 */
const http = require('node:http');

/**
 * @param {{ accessToken: string, port?: number }} options
 */
async function startHubSpotStandIn(options) {
	/** @type {Map<string, { properties: Record<string, string>, contactId?: string }>} */
	const deals = new Map();
	/** @type {Map<string, Record<string, string>>} */
	const contacts = new Map();
	/** @type {Array<{ method: string, path: string }>} */
	const requests = [];
	const iso = new Date().toISOString();

	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		requests.push({ method: req.method ?? 'GET', path: url.pathname });
		const send = (/** @type {number} */ status, /** @type {unknown} */ body) => {
			res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' });
			res.end(JSON.stringify(body));
		};
		if (req.headers.authorization !== `Bearer ${options.accessToken}`) {
			send(401, {
				status: 'error',
				message: 'Authentication credentials not found.',
				correlationId: '00000000-0000-4000-8000-000000000401',
				category: 'INVALID_AUTHENTICATION',
			});
			return;
		}
		const match = /^\/crm\/v3\/objects\/(deals|contacts)\/([^/]+)$/.exec(url.pathname);
		if (req.method !== 'GET' || !match) {
			send(404, { status: 'error', message: 'Not found', category: 'OBJECT_NOT_FOUND' });
			return;
		}
		const [, type, id] = match;
		const asked = (url.searchParams.get('properties') ?? '').split(',').filter(Boolean);
		const pick = (/** @type {Record<string, string>} */ all) =>
			Object.fromEntries([['hs_object_id', id], ...asked.map((name) => [name, all[name] ?? null])]);
		const found = type === 'deals' ? deals.get(id)?.properties : contacts.get(id);
		if (!found) {
			send(404, {
				status: 'error',
				message: `Object not found.  objectId are usually numeric.`,
				category: 'OBJECT_NOT_FOUND',
			});
			return;
		}
		/** @type {Record<string, unknown>} */
		const body = { id, properties: pick(found), createdAt: iso, updatedAt: iso, archived: false };
		const contactId = deals.get(id)?.contactId;
		if (type === 'deals' && url.searchParams.get('associations') === 'contacts' && contactId) {
			body.associations = { contacts: { results: [{ id: contactId, type: 'deal_to_contact' }] } };
		}
		send(200, body);
	});
	await new Promise((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve(undefined)));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		requests,
		/** The deals and contacts the CRM holds; `addDeal` seeds a deal with its contact. */
		addDeal(
			/** @type {string} */ dealId,
			/** @type {Record<string, string>} */ dealProperties,
			/** @type {{ id: string, properties: Record<string, string> } | undefined} */ contact,
		) {
			deals.set(dealId, { properties: dealProperties, contactId: contact?.id });
			if (contact) contacts.set(contact.id, contact.properties);
		},
		close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
	};
}

module.exports = { startHubSpotStandIn };
