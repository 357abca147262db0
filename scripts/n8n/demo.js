// @ts-check
const { randomBytes } = require('node:crypto');
/**
 * Local stand-ins for all five platforms plus the credentials the example workflows reference
 * (examples/*.json), pointed at them and at a local Redis. Used by `npm run dev` and the
 * end-to-end suite. Tokens here are local-only values.
 */
const { startMetaStandIn } = require('../../test/standins/meta.js');
const { startPinterestStandIn } = require('../../test/standins/pinterest.js');
const { startTiktokStandIn } = require('../../test/standins/tiktok.js');
const { startMicrosoftStandIn } = require('../../test/standins/microsoft.js');
const { startGoogleStandIn } = require('../../test/standins/google.js');
const { startGoogleDataManagerStandIn } = require('../../test/standins/googleDataManager.js');
const { startHubSpotStandIn } = require('../../test/standins/hubspot.js');

/** Credential ids and names as the example workflows reference them. */
const DEMO = {
	meta: { id: 'demoMetaStandIn1', name: 'Meta (local stand-in)' },
	pinterest: { id: 'demoPinterestSI1', name: 'Pinterest (local stand-in)' },
	tiktok: { id: 'demoTiktokStandI', name: 'TikTok (local stand-in)' },
	microsoft: { id: 'demoMicrosoftSI1', name: 'Microsoft (local stand-in)' },
	google: { id: 'demoGoogleAdsSI1', name: 'Google Ads (local stand-in)' },
	googleDataManager: { id: 'demoGoogleDmSI01', name: 'Google Data Manager (local stand-in)' },
	redis: { id: 'demoDedupRedis01', name: 'Dedup Redis (local)' },
	webhookSecret: { id: 'demoWebhookSecr1', name: 'Webhook secret (local)' },
	/** n8n's own HubSpot App Token credential, for the HubSpot CRM reads of the stage template. */
	hubspot: { id: 'demoHubSpotToken', name: 'HubSpot (local stand-in)' },
	/** The outbox's encryption key (the retry template's Outbox Trigger and senders). */
	outboxKey: { id: 'demoOutboxKey001', name: 'Outbox Key' },
};

/** The public API base URLs the templates call with n8n's HTTP Request node. */
const PUBLIC_APIS = { hubspot: 'https://api.hubapi.com' };

/**
 * A template as `npm run dev` and the end-to-end suite import it: every URL of a public API the
 * template calls with an HTTP Request node (HubSpot's CRM reads) pointed at its local stand-in.
 * @param {unknown} workflow @param {{ hubspot: { url: string } }} platforms
 */
function localizeTemplate(workflow, platforms) {
	return JSON.parse(JSON.stringify(workflow).split(PUBLIC_APIS.hubspot).join(platforms.hubspot.url));
}

/** The destinations the demo credentials point at. */
const DESTINATIONS = {
	metaPixel: '100000000000001',
	pinterestAdAccount: '549755813888',
	tiktokPixel: 'C4DEMOPIXEL00001',
	microsoftTag: '187000001',
	googleCustomer: '1234567890',
	/** One conversion action per state, as the templates use them. */
	googleConversionAction: '987654321',
	googleScheduleAction: '987654324',
	googlePurchaseAction: '987654323',
};

const DEMO_TOKENS = {
	meta: 'demo-meta-token-local-only',
	pinterest: 'demo-pinterest-token-local-only',
	tiktok: 'demo-tiktok-token-local-only',
	microsoft: 'demo-microsoft-token-local-only',
	googleDeveloper: 'demo-google-developer-token',
	hubspot: 'demo-hubspot-private-app-token',
	/** The secret the demo form tools (Typeform, Cal.com…) sign with. */
	webhook: 'demo-webhook-signing-secret',
};

/**
 * Starts the five stand-ins (on the given ports, or free ones) and returns them with the
 * credentials to import into n8n. `tokens` replaces demo tokens (a test's own, random ones),
 * `metaAppSecret` makes Meta require appsecret_proof, `googleClientSecret` is the OAuth2 client's, `outboxKey` the outbox's encryption key (default:
 * a random one; `npm run dev` passes the one it keeps per install, so entries queued before a
 * restart stay readable).
 * @param {{
 *   redisUrl: string,
 *   keyPrefix?: string,
 *   ports?: Partial<Record<'meta'|'pinterest'|'tiktok'|'microsoft'|'google'|'googleDataManager'|'hubspot', number>>,
 *   tokens?: Partial<typeof DEMO_TOKENS>,
 *   metaAppSecret?: string,
 *   googleClientSecret?: string,
 *   outboxKey?: string,
 * }} options
 */
async function startDemoPlatforms(options) {
	const ports = options.ports ?? {};
	const TOKENS = { ...DEMO_TOKENS, ...options.tokens };
	const meta = await startMetaStandIn({ accessToken: TOKENS.meta, appSecret: options.metaAppSecret, port: ports.meta });
	const pinterest = await startPinterestStandIn({ accessToken: TOKENS.pinterest, port: ports.pinterest });
	const tiktok = await startTiktokStandIn({
		accessToken: TOKENS.tiktok,
		pixelCode: DESTINATIONS.tiktokPixel,
		port: ports.tiktok,
	});
	const microsoft = await startMicrosoftStandIn({
		apiToken: TOKENS.microsoft,
		uetTagId: DESTINATIONS.microsoftTag,
		port: ports.microsoft,
	});
	const google = await startGoogleStandIn({
		developerToken: TOKENS.googleDeveloper,
		clientSecret: options.googleClientSecret,
		timeZone: 'America/New_York',
		customers: {
			[DESTINATIONS.googleCustomer]: {
				timeZone: 'America/New_York',
				conversionActions: [
					{ id: DESTINATIONS.googleConversionAction, name: 'Lead (offline)', type: 'UPLOAD_CLICKS', status: 'ENABLED' },
					{ id: DESTINATIONS.googleScheduleAction, name: 'Booked call (offline)', type: 'UPLOAD_CLICKS', status: 'ENABLED' },
					{ id: DESTINATIONS.googlePurchaseAction, name: 'Purchase (offline)', type: 'UPLOAD_CLICKS', status: 'ENABLED' },
				],
			},
		},
		port: ports.google,
	});
	// Google Ads through the Data Manager API (the Google Ads Conversions node's default since its
	// version 2): the same account and conversion actions, OAuth only.
	const googleDataManager = await startGoogleDataManagerStandIn({
		clientSecret: options.googleClientSecret,
		accounts: {
			[DESTINATIONS.googleCustomer]: [
				DESTINATIONS.googleConversionAction,
				DESTINATIONS.googleScheduleAction,
				DESTINATIONS.googlePurchaseAction,
			],
		},
		port: ports.googleDataManager,
	});
	// HubSpot's CRM API (not a platform: the stage template reads a deal's contact and amount).
	const hubspot = await startHubSpotStandIn({ accessToken: TOKENS.hubspot, port: ports.hubspot });
	const credentials = [
		{
			...DEMO.meta,
			type: 'leadCapiMetaApi',
			data: {
				pixelId: DESTINATIONS.metaPixel,
				accessToken: TOKENS.meta,
				...(options.metaAppSecret ? { appSecret: options.metaAppSecret } : {}),
				apiVersion: 'v26.0',
				baseUrl: meta.url,
			},
		},
		{
			...DEMO.pinterest,
			type: 'leadCapiPinterestApi',
			data: { adAccountId: DESTINATIONS.pinterestAdAccount, accessToken: TOKENS.pinterest, baseUrl: pinterest.url },
		},
		{
			...DEMO.tiktok,
			type: 'leadCapiTiktokApi',
			data: { pixelCode: DESTINATIONS.tiktokPixel, accessToken: TOKENS.tiktok, baseUrl: tiktok.url },
		},
		{
			...DEMO.microsoft,
			type: 'leadCapiMicrosoftApi',
			data: { uetTagId: DESTINATIONS.microsoftTag, apiToken: TOKENS.microsoft, baseUrl: microsoft.url },
		},
		{
			...DEMO.google,
			type: 'leadCapiGoogleAdsOAuth2Api',
			data: {
				clientId: google.clientId,
				clientSecret: google.clientSecret,
				accessTokenUrl: google.tokenUrl,
				developerToken: TOKENS.googleDeveloper,
				apiVersion: 'v26',
				baseUrl: google.url,
				oauthTokenData: {
					access_token: google.accessToken(),
					refresh_token: google.refreshToken,
					token_type: 'Bearer',
					expires_in: 3599,
				},
			},
		},
		{
			...DEMO.googleDataManager,
			type: 'leadCapiGoogleDataManagerOAuth2Api',
			data: {
				clientId: googleDataManager.clientId,
				clientSecret: googleDataManager.clientSecret,
				accessTokenUrl: googleDataManager.tokenUrl,
				baseUrl: googleDataManager.url,
				oauthTokenData: {
					access_token: googleDataManager.accessToken(),
					refresh_token: googleDataManager.refreshToken,
					token_type: 'Bearer',
					expires_in: 3599,
				},
			},
		},
		{ ...DEMO.webhookSecret, type: 'leadCapiWebhookApi', data: { secret: TOKENS.webhook } },
		{ ...DEMO.hubspot, type: 'hubspotAppToken', data: { appToken: TOKENS.hubspot } },
		{
			...DEMO.outboxKey,
			type: 'leadCapiOutboxApi',
			data: { secret: options.outboxKey ?? newOutboxKey() },
		},
		{
			...DEMO.redis,
			type: 'leadCapiRedisApi',
			data: { connection: 'url', url: options.redisUrl, keyPrefix: options.keyPrefix || 'leadcapi-dev' },
		},
	];
	return {
		standIns: { meta, pinterest, tiktok, microsoft, google, googleDataManager },
		hubspot,
		credentials,
		close: async () => {
			await Promise.all([
				hubspot.close(),
				meta.close(),
				pinterest.close(),
				tiktok.close(),
				microsoft.close(),
				google.close(),
				googleDataManager.close(),
			]);
		},
	};
}

/** A random outbox key (32 bytes, base64), as the credential's description suggests. */
function newOutboxKey() {
	return randomBytes(32).toString('base64');
}

module.exports = { startDemoPlatforms, newOutboxKey, localizeTemplate, DEMO, DESTINATIONS, TOKENS: DEMO_TOKENS };
