import type { IExecuteFunctions } from 'n8n-workflow';
import { fetchGoogleAdsTimeZone } from '../../shared/platforms/google';
import { readConnection } from '../../nodes/GoogleAdsConversions/executor';
import { fastTransport } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startGoogleStandIn } = require('../standins/google.js');

/**
 * n8n signs Google Ads requests with the credential's OAuth2 token; the sender never sees it, so
 * it was not among the secrets scrubbed from errors: a Google error body echoing the access or
 * refresh token reached the node's error (NodeApiError of the time-zone lookup), the execution
 * data and n8n's output whole. Found by the secrets end-to-end test (test/e2e/secrets.e2e.test.ts).
 */
describe('Google Ads: OAuth2 tokens and the client secret never leave in an error', () => {
	let standIn: Awaited<ReturnType<typeof startGoogleStandIn>>;
	const credentials = {
		developerToken: 'dev-token-oauth-secrets-0123',
		clientSecret: 'client-secret-oauth-secrets-4567',
		baseUrl: '',
		oauthTokenData: {
			access_token: 'ya29.access-token-oauth-secrets',
			refresh_token: '1//refresh-token-oauth-secrets',
			token_type: 'Bearer',
		},
	};
	const node = { getNode: () => ({ name: 'Google Ads Conversions' }) } as unknown as Pick<
		IExecuteFunctions,
		'getNode'
	>;

	beforeAll(async () => {
		standIn = await startGoogleStandIn({ developerToken: credentials.developerToken });
		credentials.baseUrl = standIn.url;
	});
	afterAll(() => standIn.close());

	it.each([400, 401, 500])('a %i body that echoes them is scrubbed', async (status) => {
		const echoed = [
			credentials.oauthTokenData.access_token,
			credentials.oauthTokenData.refresh_token,
			credentials.clientSecret,
			credentials.developerToken,
		].join(' ');
		standIn.queueFaults(
			Array.from({ length: 5 }, () => ({
				status,
				body: {
					error: {
						code: status,
						message: `invalid credentials ${echoed}`,
						status: 'UNAUTHENTICATED',
						details: [{ token: echoed }],
					},
				},
			})),
		);
		const connection = readConnection(node, credentials);
		const found = await fetchGoogleAdsTimeZone(connection, '1234567890', fastTransport());
		expect(found.ok).toBe(false);
		const text = JSON.stringify(found);
		expect(text).toContain('invalid credentials [redacted]');
		for (const secret of echoed.split(' ')) expect(text).not.toContain(secret);
		standIn.reset();
	});
});
