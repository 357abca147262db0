import type { PlatformAdapter } from '../contract';
import type { PinterestConfig } from './config';
import {
	PINTEREST_EVENT_BY_STATE,
	PINTEREST_EVENT_TIME_WINDOW,
	PINTEREST_MAX_EVENTS_PER_REQUEST, PINTEREST_RESEND_DEDUP } from './constants';
import { buildPinterestEvent, pinterestUserData, type PinterestEvent } from './payload';
import {
	pinterestEventsUrl,
	pinterestRequestBody,
	pinterestRequestParams,
	sendPinterestChunk,
} from './sender';
import { pinterestIdentity } from './identity';

export const pinterestAdapter: PlatformAdapter<PinterestConfig, PinterestEvent> = {
	platform: 'pinterest',
	identity: pinterestIdentity,
	eventNameByState: PINTEREST_EVENT_BY_STATE,
	maxBatchSize: PINTEREST_MAX_EVENTS_PER_REQUEST,
	eventTimeWindow: PINTEREST_EVENT_TIME_WINDOW,
	resendDedup: PINTEREST_RESEND_DEDUP,
	destinationId: (config) => config.adAccountId,
	userData: (user) => pinterestUserData(user),
	buildEvent: buildPinterestEvent,
	sendChunk: sendPinterestChunk,
	previewRequest: (events, config) => ({
		method: 'POST',
		url: pinterestEventsUrl(config),
		...(config.testMode ? { query: pinterestRequestParams(config) } : {}),
		body: pinterestRequestBody(events),
	}),
};

export * from './constants';
export type { PinterestConfig } from './config';
export type { PinterestEvent, PinterestCustomData } from './payload';
export { buildPinterestEvent, pinterestUserData } from './payload';
export { pinterestEventName, pinterestWireName } from './names';
export {
	sendPinterestChunk,
	pinterestEventsUrl,
	pinterestRequest,
	pinterestRequestBody,
	readPinterestAck,
	outcomesFromAck,
} from './sender';
export type { PinterestAck, PinterestEventResult } from './sender';
export { classifyPinterestResponse, describePinterestError, readPinterestError } from './errors';
export { testPinterestCredentials, credentialTestEvent } from './credentialTest';
export type { PinterestCredentials } from './credentialTest';
