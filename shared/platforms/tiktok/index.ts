import type { PlatformAdapter } from '../contract';
import type { TiktokConfig } from './config';
import {
	TIKTOK_EVENT_BY_STATE,
	TIKTOK_EVENT_TIME_WINDOW,
	TIKTOK_MAX_EVENTS_PER_REQUEST, TIKTOK_RESEND_DEDUP } from './constants';
import { buildTiktokEvent, tiktokUserData, type TiktokEvent } from './payload';
import { sendTiktokChunk, tiktokEventSourceId, tiktokRequestBody, tiktokTrackUrl } from './sender';
import { tiktokIdentity } from './identity';

export const tiktokAdapter: PlatformAdapter<TiktokConfig, TiktokEvent> = {
	platform: 'tiktok',
	identity: tiktokIdentity,
	eventNameByState: TIKTOK_EVENT_BY_STATE,
	maxBatchSize: TIKTOK_MAX_EVENTS_PER_REQUEST,
	eventTimeWindow: TIKTOK_EVENT_TIME_WINDOW,
	resendDedup: TIKTOK_RESEND_DEDUP,
	// CRM events (Event Source: CRM) are stage events, with or without a `stage`: timed by the
	// dispatch's one rule (stage_at, else occurred_at), never rewritten — over-age is `expired`.
	stageTimed: (config) => config.eventSource === 'crm',
	destinationId: tiktokEventSourceId,
	userData: (user) => tiktokUserData(user),
	buildEvent: buildTiktokEvent,
	sendChunk: sendTiktokChunk,
	previewRequest: (events, config) => ({
		method: 'POST',
		url: tiktokTrackUrl(config),
		body: tiktokRequestBody(events, config),
	}),
};

export * from './constants';
export type { TiktokConfig } from './config';
export type { TiktokEvent, TiktokUser } from './payload';
export {
	buildTiktokEvent,
	readTiktokLeadId,
	tiktokLimitedDataUse,
	tiktokUserData,
} from './payload';
export {
	sendTiktokChunk,
	tiktokEventSourceId,
	tiktokRequestBody,
	tiktokTrackUrl,
	type TiktokTrackRequest,
} from './sender';
export {
	classifyTiktokCode,
	classifyTiktokResponse,
	describeTiktokError,
	isWholeRequestError,
	readTiktokAnswer,
	TIKTOK_CODE_OK,
	TIKTOK_CODE_PARTIAL_OK,
	type TiktokAnswer,
	type TiktokCodeClass,
} from './errors';
export { testTiktokCredentials, TIKTOK_CREDENTIAL_TEST_CODE } from './credentialTest';
export type { TiktokCredentials } from './credentialTest';
