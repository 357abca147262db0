// @ts-check
/**
 * The credentials the example workflows reference (examples/*.json), pointed at local parts:
 * a loopback Meta stand-in and a local Redis. Used by `npm run dev` and the end-to-end suite.
 */
const DEMO_META_CREDENTIAL = { id: 'demoMetaStandIn1', name: 'Meta (local stand-in)' };
const DEMO_REDIS_CREDENTIAL = { id: 'demoDedupRedis01', name: 'Dedup Redis (local)' };
const DEMO_PIXEL_ID = '100000000000001';

/**
 * @param {{ metaBaseUrl: string, metaToken: string, redisUrl: string, keyPrefix?: string }} options
 */
function demoCredentials(options) {
	return [
		{
			...DEMO_META_CREDENTIAL,
			type: 'metaConversionsApi',
			data: {
				pixelId: DEMO_PIXEL_ID,
				accessToken: options.metaToken,
				apiVersion: 'v26.0',
				baseUrl: options.metaBaseUrl,
			},
		},
		{
			...DEMO_REDIS_CREDENTIAL,
			type: 'leadCapiRedisApi',
			data: { connection: 'url', url: options.redisUrl, keyPrefix: options.keyPrefix || 'leadcapi-dev' },
		},
	];
}

module.exports = { demoCredentials, DEMO_META_CREDENTIAL, DEMO_REDIS_CREDENTIAL, DEMO_PIXEL_ID };
