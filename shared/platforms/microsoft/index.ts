import type { PlatformAdapter } from '../contract';
import type { MicrosoftConfig } from './config';
import {
	MICROSOFT_EVENT_BY_STATE,
	MICROSOFT_EVENT_TIME_WINDOW,
	MICROSOFT_MAX_EVENTS_PER_REQUEST, MICROSOFT_RESEND_DEDUP } from './constants';
import { buildMicrosoftEvent, microsoftUserData, type MicrosoftEvent } from './payload';
import { microsoftEventsUrl, microsoftRequestBody, sendMicrosoftChunk } from './sender';
import { microsoftIdentity } from './identity';

export const microsoftAdapter: PlatformAdapter<MicrosoftConfig, MicrosoftEvent> = {
	platform: 'microsoft',
	identity: microsoftIdentity,
	eventNameByState: MICROSOFT_EVENT_BY_STATE,
	maxBatchSize: MICROSOFT_MAX_EVENTS_PER_REQUEST,
	eventTimeWindow: MICROSOFT_EVENT_TIME_WINDOW,
	resendDedup: MICROSOFT_RESEND_DEDUP,
	destinationId: (config) => config.uetTagId,
	userData: microsoftUserData,
	buildEvent: buildMicrosoftEvent,
	sendChunk: sendMicrosoftChunk,
	previewRequest: (events, config) => ({
		method: 'POST',
		url: microsoftEventsUrl(config),
		body: microsoftRequestBody(events, config),
	}),
};

export * from './constants';
export type { MicrosoftConfig } from './config';
export type { MicrosoftCustomData, MicrosoftEvent, MicrosoftUserData } from './payload';
export { adStorageConsentFor, buildMicrosoftEvent, microsoftUserData } from './payload';
export {
	microsoftEventsUrl,
	microsoftRequestBody,
	probeMicrosoftCredential,
	sendMicrosoftChunk,
	type CredentialProbeResult,
} from './sender';
export {
	classifyMicrosoftResponse,
	describeDetail,
	describeMicrosoftError,
	readMicrosoftBody,
	MICROSOFT_AUTH_HINT,
} from './errors';
export type { MicrosoftError, MicrosoftErrorDetail, MicrosoftResponseBody } from './errors';
