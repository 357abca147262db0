import type { Transport } from '../../transport';
import type { TiktokConfig } from './config';
import { classifyTiktokCode, classifyTiktokResponse, readTiktokAnswer } from './errors';
import { tiktokRequestBody, tiktokTrackUrl } from './sender';

export type TiktokCredentials = Pick<TiktokConfig, 'pixelCode' | 'accessToken' | 'baseUrl'>;

/** The test event code of the probe: TikTok keeps no live data sent with one. */
export const TIKTOK_CREDENTIAL_TEST_CODE = 'N8N_CREDENTIAL_TEST';

/**
 * The credential test. TikTok documents no read-only call that proves an Events API token, so
 * the probe is event/track itself with the pixel code, a test event code and no events: nothing
 * can be recorded. A refusal of the token (40102, 40104, 40105) or of the pixel (40001, 40003),
 * or of the request as a whole, fails the test in TikTok's own words (message, code,
 * request_id); a complaint about the empty `data` (expected: 40002) means the token and the pixel
 * got through. UNCONFIRMED: that TikTok checks the token and the pixel before the events.
 */
export async function testTiktokCredentials(
	credentials: TiktokCredentials,
	transport: Transport,
): Promise<{ ok: boolean; message: string }> {
	const pixelCode = credentials.pixelCode.trim();
	if (!pixelCode) return { ok: false, message: 'The Pixel Code is empty' };
	const token = credentials.accessToken;
	if (!token) return { ok: false, message: 'The Access Token is empty' };
	if (token.trim() !== token) {
		return {
			ok: false,
			message: 'The Access Token starts or ends with spaces; paste it exactly as generated',
		};
	}
	const config: TiktokConfig = {
		pixelCode,
		accessToken: token,
		baseUrl: credentials.baseUrl,
		eventSource: 'web',
		testEventCode: TIKTOK_CREDENTIAL_TEST_CODE,
		limitedDataUse: 'never',
	};
	const result = await transport.request(
		{
			method: 'POST',
			url: tiktokTrackUrl(config),
			headers: { 'Access-Token': token },
			body: tiktokRequestBody([], config),
			timeoutMs: 10_000,
		},
		classifyTiktokResponse,
		[token],
	);
	const accepted = `TikTok accepted the access token for pixel ${pixelCode}`;
	if (result.ok)
		return { ok: true, message: `${accepted} (probe without events: nothing was recorded)` };
	const answer = result.response && readTiktokAnswer(result.response.data);
	if (result.failure === 'permanent' && answer && classifyTiktokCode(answer.code) === 'event') {
		return {
			ok: true,
			message: `${accepted}; the probe without events was refused as expected (${answer.message ?? `code ${answer.code}`}), nothing was recorded`,
		};
	}
	return { ok: false, message: result.message };
}
