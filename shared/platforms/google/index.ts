import type { PlatformAdapter } from '../../dispatch/types';
import type { GoogleAdsConfig } from './config';
import {
	GOOGLE_EVENT_BY_STATE,
	GOOGLE_EVENT_WINDOW_SECONDS,
	GOOGLE_MAX_CONVERSIONS_PER_REQUEST,
} from './constants';
import { buildGoogleClickConversion, googleUserData, type GoogleClickConversion } from './payload';
import { googlePreviewRequest, sendGoogleChunk } from './sender';

/**
 * Google Ads click conversion upload, including enhanced conversions for leads. The destination
 * (and so the event ids and dedup keys) is the conversion action's resource name.
 */
export const googleAdapter: PlatformAdapter<GoogleAdsConfig, GoogleClickConversion> = {
	platform: 'google',
	eventNameByState: GOOGLE_EVENT_BY_STATE,
	maxBatchSize: GOOGLE_MAX_CONVERSIONS_PER_REQUEST,
	eventWindowSeconds: GOOGLE_EVENT_WINDOW_SECONDS,
	destinationId: (config) => config.conversionAction,
	userData: googleUserData,
	buildEvent: buildGoogleClickConversion,
	sendChunk: sendGoogleChunk,
	previewRequest: googlePreviewRequest,
};

export * from './constants';
export type { GoogleAdsConfig, GoogleAdsConnection } from './config';
export { normalizeCustomerId, conversionActionResourceName } from './config';
export type { GoogleClickConversion, GoogleUserData, GoogleUserIdentifier } from './payload';
export { buildGoogleClickConversion, googleUserData } from './payload';
export { formatConversionDateTime, isValidTimeZone } from './time';
export type { GoogleConversionActionRow } from './sender';
export {
	sendGoogleChunk,
	readUploadOutcomes,
	rowIndexOf,
	fetchGoogleAdsTimeZone,
	googleAdsApiRoot,
	googleAdsHeaders,
	googleAdsSecrets,
	googleConversionActionsRequest,
	googlePreviewRequest,
	googleSearchRequest,
	googleUploadBody,
	googleUploadUrl,
	readConversionActions,
} from './sender';
export type { GoogleAdsError, GoogleRowVerdict, GoogleRpcStatus } from './errors';
export {
	CONVERSION_UPLOAD_ROW_VERDICTS,
	classifyGoogleAdsResponse,
	classifyRowError,
	describeGoogleAdsError,
	describeGoogleRpcError,
	isAccessTokenRejection,
	readRpcError,
} from './errors';
