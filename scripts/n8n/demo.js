// @ts-check
/**
 * The credentials the example workflows reference (examples/*.json), pointed at local parts:
 * loopback platform stand-ins (Meta, Pinterest) and a local Redis. Used by `npm run dev` and
 * the end-to-end suite.
 */
const DEMO_META_CREDENTIAL = { id: 'demoMetaStandIn1', name: 'Meta (local stand-in)' };
const DEMO_REDIS_CREDENTIAL = { id: 'demoDedupRedis01', name: 'Dedup Redis (local)' };
const DEMO_PIXEL_ID = '100000000000001';
const DEMO_PINTEREST_CREDENTIAL = { id: 'demoPinterestSI1', name: 'Pinterest (local stand-in)' };
const DEMO_PINTEREST_AD_ACCOUNT = '549755813888';

/**
 * @param {{ metaBaseUrl: string, metaToken: string, redisUrl: string, keyPrefix?: string,
 *   pinterestBaseUrl?: string, pinterestToken?: string }} options
 *   The Pinterest credential is included when a Pinterest stand-in is given.
 */
function demoCredentials(options) {
	const pinterest =
		options.pinterestBaseUrl && options.pinterestToken
			? [
					{
						...DEMO_PINTEREST_CREDENTIAL,
						type: 'pinterestConversionsApi',
						data: {
							adAccountId: DEMO_PINTEREST_AD_ACCOUNT,
							accessToken: options.pinterestToken,
							baseUrl: options.pinterestBaseUrl,
						},
					},
				]
			: [];
	return [
		...pinterest,
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

module.exports = {
	demoCredentials,
	DEMO_META_CREDENTIAL,
	DEMO_REDIS_CREDENTIAL,
	DEMO_PIXEL_ID,
	DEMO_PINTEREST_CREDENTIAL,
	DEMO_PINTEREST_AD_ACCOUNT,
};
