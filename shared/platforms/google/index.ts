import type { PlatformAdapter } from '../contract';
import type { GoogleAdsConfig } from './config';
import {
	GOOGLE_EVENT_BY_STATE,
	GOOGLE_EVENT_TIME_WINDOW,
	GOOGLE_MAX_CONVERSIONS_PER_REQUEST, GOOGLE_RESEND_DEDUP } from './constants';
import { buildGoogleClickConversion, googleUserData, type GoogleClickConversion } from './payload';
import { googlePreviewRequest, sendGoogleChunk } from './sender';
import {
	DATA_MANAGER_MAX_EVENTS_PER_REQUEST,
	dataManagerDestinationId,
	type GoogleDataManagerConfig,
} from './dataManagerConfig';
import {
	buildDataManagerEvent,
	dataManagerUserData,
	type DataManagerEvent,
} from './dataManagerPayload';
import { dataManagerPreviewRequest, sendDataManagerChunk } from './dataManagerSender';
import { googleIdentity } from './identity';

/**
 * Google Ads click conversion upload, including enhanced conversions for leads. The destination
 * (and so the event ids and dedup keys) is the conversion action's resource name.
 */
export const googleAdapter: PlatformAdapter<GoogleAdsConfig, GoogleClickConversion> = {
	platform: 'google',
	identity: googleIdentity,
	eventNameByState: GOOGLE_EVENT_BY_STATE,
	maxBatchSize: GOOGLE_MAX_CONVERSIONS_PER_REQUEST,
	eventTimeWindow: GOOGLE_EVENT_TIME_WINDOW,
	resendDedup: GOOGLE_RESEND_DEDUP,
	destinationId: (config) => config.conversionAction,
	userData: googleUserData,
	buildEvent: buildGoogleClickConversion,
	sendChunk: sendGoogleChunk,
	previewRequest: googlePreviewRequest,
};

/**
 * Google Ads conversions through the Data Manager API (events.ingest), the default for new
 * users: OAuth with the datamanager scope, no developer token. Same platform, event names and
 * destination string as the Google Ads API adapter, so event ids, dedup keys and transaction
 * ids do not change when a node switches API.
 */
export const googleDataManagerAdapter: PlatformAdapter<GoogleDataManagerConfig, DataManagerEvent> =
	{
		platform: 'google',
		identity: googleIdentity,
		eventNameByState: GOOGLE_EVENT_BY_STATE,
		maxBatchSize: DATA_MANAGER_MAX_EVENTS_PER_REQUEST,
		eventTimeWindow: GOOGLE_EVENT_TIME_WINDOW,
		resendDedup: GOOGLE_RESEND_DEDUP,
		destinationId: dataManagerDestinationId,
		userData: dataManagerUserData,
		buildEvent: buildDataManagerEvent,
		sendChunk: sendDataManagerChunk,
		previewRequest: dataManagerPreviewRequest,
	};

export * from './constants';
export * from './dataManagerConfig';
export type {
	DataManagerAddress,
	DataManagerEvent,
	DataManagerUserIdentifier,
} from './dataManagerPayload';
export { buildDataManagerEvent, dataManagerUserData } from './dataManagerPayload';
export type { DataManagerDestinationStatus, DataManagerStatusResult } from './dataManagerSender';
export {
	dataManagerDestination,
	dataManagerIngestBody,
	dataManagerIngestUrl,
	dataManagerPreviewRequest,
	dataManagerSecrets,
	dataManagerStatusRequest,
	fetchDataManagerRequestStatus,
	sendDataManagerChunk,
} from './dataManagerSender';
export type {
	DataManagerErrorParts,
	DataManagerFieldViolation,
	DataManagerRpcStatus,
} from './dataManagerErrors';
export {
	REQUEST_LEVEL_REASONS,
	classifyDataManagerResponse,
	describeDataManagerError,
	eventIndexOf,
	isDataManagerTokenRejection,
	readDataManagerError,
} from './dataManagerErrors';
export type { GoogleAdsConfig, GoogleAdsConnection } from './config';
export { normalizeCustomerId, conversionActionResourceName } from './config';
export type { GoogleClickConversion, GoogleUserData, GoogleUserIdentifier } from './payload';
export { buildGoogleClickConversion, googleUserData } from './payload';
export { formatConversionDateTime, isValidTimeZone } from './time';
export type { GoogleConversionActionRow, UploadReading } from './sender';
export {
	CLICK_UPLOAD_READING,
	sendGoogleChunk,
	sendGoogleUpload,
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
	CONVERSION_ADJUSTMENT_ROW_VERDICTS,
	CONVERSION_UPLOAD_ROW_VERDICTS,
	classifyAdjustmentRowError,
	classifyGoogleAdsResponse,
	classifyRowError,
	describeGoogleAdsError,
	describeGoogleRpcError,
	isAccessTokenRejection,
	readRpcError,
} from './errors';
export type { DataManagerAdjustment } from './dataManagerAdjust';
export { RETRACTION_UNSUPPORTED, dataManagerRestatementAdapter } from './dataManagerAdjust';
export type { GoogleAdjustment, GoogleConversionAdjustment } from './adjustments';
export {
	ADJUSTMENT_UPLOAD_READING,
	adjustmentEventName,
	adjustmentRefusal,
	googleAdjustmentAdapter,
	googleAdjustmentBody,
	googleAdjustmentUrl,
	sendGoogleAdjustmentChunk,
} from './adjustments';
export {
	dataManagerRequestStats,
	dataManagerStatusStats,
	statusDestinationId,
} from './requestStats';
export {
	DEFAULT_STAGE_ADJUSTMENTS,
	LEDGER_ORIGINAL,
	NO_ORIGINAL_IN_LEDGER,
	originalFromLedger,
	stageAdjustment,
	type StageAdjustments,
} from './ledgerOriginal';
