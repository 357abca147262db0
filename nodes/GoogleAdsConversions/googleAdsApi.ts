import type { JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import {
	conversionActionResourceName,
	fetchGoogleAdsTimeZone,
	googleAdapter,
	isValidTimeZone,
	normalizeCustomerId,
	type GoogleAdsConfig,
	type GoogleClickConversion,
} from '../../shared/platforms/google';
import type { SenderSpec } from '../common/executeSender';
import { GOOGLE_ADS_CREDENTIAL, googleAdsExecutor, readConnection } from './executor';
import { readPartialAction } from './partialAction';

/**
 * The Google Ads API path (allow-listed developer tokens): the credential, the customer, the
 * conversion action's resource name and the account's time zone, read once per run. Used by
 * Send (uploadClickConversions) and Adjust (uploadConversionAdjustments).
 */
export const googleSpec: SenderSpec<GoogleAdsConfig, GoogleClickConversion> = {
	adapter: googleAdapter,
	credentialName: GOOGLE_ADS_CREDENTIAL,
	executor: googleAdsExecutor,
	async readConfig(ctx, credentials, options, transport) {
		if (!credentials.oauthTokenData) {
			throw new NodeOperationError(
				ctx.getNode(),
				'The Google Ads Conversions credential is not connected: open it and sign in with Google',
			);
		}
		const connection = readConnection(ctx, credentials);
		const customerId = normalizeCustomerId(ctx.getNodeParameter('customerId', 0));
		if (!customerId) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Customer ID must be a Google Ads account ID: 10 digits, dashes allowed (e.g. 123-456-7890)',
			);
		}
		const conversionAction = conversionActionResourceName(
			customerId,
			ctx.getNodeParameter('conversionAction', 0, '', { extractValue: true }),
		);
		if (!conversionAction) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Conversion Action must be an action from the list or its numeric ID (Goals → Conversions → the action → ctId in the URL)',
			);
		}

		const partialConversionAction = readPartialAction(ctx, options, (id) =>
			conversionActionResourceName(customerId, id),
		);
		if (partialConversionAction === conversionAction) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Partial Lead Conversion Action ID is the Conversion Action itself: partial leads need an action of their own (or leave the option empty to skip them)',
			);
		}

		let timeZone = String(options.accountTimeZone ?? '').trim();
		if (timeZone && !isValidTimeZone(timeZone)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Account Time Zone "${timeZone}" is not an IANA time zone name (e.g. America/New_York)`,
			);
		}
		if (!timeZone) {
			const found = await fetchGoogleAdsTimeZone(connection, customerId, transport);
			if (!found.ok) {
				throw new NodeApiError(ctx.getNode(), (found.response ?? {}) as JsonObject, {
					message: `Could not read the time zone of Google Ads account ${customerId}: ${found.message}`,
					description:
						'conversionDateTime must carry the account\'s time zone. Check the credential, the Customer ID and (for manager accounts) the Login Customer ID, or set the "Account Time Zone" option to skip this call.',
				});
			}
			timeZone = found.timeZone;
		}

		return {
			...connection,
			customerId,
			conversionAction,
			...(partialConversionAction ? { partialConversionAction } : {}),
			timeZone,
			validateOnly: Boolean(options.validateOnly),
		};
	},
};
