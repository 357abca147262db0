import { hashSha256 } from '../../identity';
import type { Transport } from '../../transport';
import type { PinterestConfig } from './config';
import { classifyPinterestResponse, describePinterestError, readPinterestError } from './errors';
import type { PinterestEvent } from './payload';
import { outcomesFromAck, pinterestRequest, readPinterestAck } from './sender';

export type PinterestCredentials = Pick<PinterestConfig, 'adAccountId' | 'accessToken' | 'baseUrl'>;

/**
 * The credential test. A conversion token may not be allowed to read the ad account, so the
 * one call that proves the token, the ad account and the base URL together is the events
 * endpoint itself: one synthetic event with `?test=true`, which Pinterest validates and does
 * not record. The event carries no personal data (the hash of a reserved example address).
 */
export function credentialTestEvent(nowMs: number): PinterestEvent {
	const eventTime = Math.floor(nowMs / 1000);
	return {
		event_name: 'lead',
		action_source: 'offline',
		event_time: eventTime,
		event_id: `lead-capi-credential-test-${eventTime}`,
		user_data: { em: [hashSha256('credential-test@example.com')] },
	};
}

export async function testPinterestCredentials(
	credentials: PinterestCredentials,
	transport: Transport,
	nowMs: number = Date.now(),
): Promise<{ ok: boolean; message: string }> {
	const adAccountId = credentials.adAccountId.trim();
	if (!/^\d+$/.test(adAccountId)) {
		return {
			ok: false,
			message:
				'The Ad Account ID must be the digits of the ad account (Ads Manager → account selector)',
		};
	}
	if (!credentials.accessToken)
		return { ok: false, message: 'The Conversion Access Token is empty' };
	const result = await transport.request(
		pinterestRequest([credentialTestEvent(nowMs)], { ...credentials, adAccountId, testMode: true }),
		classifyPinterestResponse,
		[credentials.accessToken],
	);
	if (result.ok) {
		const ack = readPinterestAck(result.response.data);
		const [outcome] = (ack && outcomesFromAck(ack, 1, true)) ?? [];
		const refused =
			outcome?.status === 'failed'
				? ` (the synthetic test event itself was refused: ${outcome.error})`
				: '';
		return {
			ok: true,
			message: `Pinterest accepted the token for ad account ${adAccountId}: a test event (?test=true) was validated and not recorded${refused}`,
		};
	}
	const status = result.response?.status;
	const advice =
		status === 401
			? ': check the Conversion Access Token (Ads Manager → Conversions → Conversions API)'
			: status === 403
				? `: the token's user is neither the owner of ad account ${adAccountId} nor granted Admin, Analyst, Audience or Campaign access to it`
				: '';
	const message =
		result.failure === 'permanent' && result.response
			? describePinterestError(readPinterestError(result.response.data), result.response.status)
			: result.message;
	return { ok: false, message: `${message}${advice}` };
}
