import { createHmac } from 'node:crypto';

/**
 * Meta's `appsecret_proof`: HMAC-SHA256 of the access token keyed with the app secret, hex. The
 * one computation of it, for the sender, the credential test and the credential's own
 * authentication of the HTTP Request node (a file of its own so the credential loads nothing else).
 */
export function appSecretProof(accessToken: string, appSecret: string): string {
	return createHmac('sha256', appSecret).update(accessToken, 'utf8').digest('hex');
}
