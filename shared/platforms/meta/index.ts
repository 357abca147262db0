import type { PlatformAdapter } from '../contract';
import type { MetaConfig } from './config';
import { META_EVENT_BY_STATE, META_EVENT_TIME_WINDOW, META_MAX_EVENTS_PER_REQUEST, META_RESEND_DEDUP, META_LEAD_ID_ATTRIBUTE } from './constants';
import { buildMetaCrmEvent } from './crm';
import { buildMetaEvent, metaUserData, type MetaServerEvent } from './payload';
import { metaEventsUrl, metaRequestBody, sendMetaChunk } from './sender';
import { metaIdentity } from './identity';

export const metaAdapter: PlatformAdapter<MetaConfig, MetaServerEvent> = {
	platform: 'meta',
	identity: metaIdentity,
	eventNameByState: META_EVENT_BY_STATE,
	maxBatchSize: META_MAX_EVENTS_PER_REQUEST,
	eventTimeWindow: META_EVENT_TIME_WINDOW,
	resendDedup: META_RESEND_DEDUP,
	leadIdAttribute: META_LEAD_ID_ATTRIBUTE,
	// Conversion Leads: every CRM event is a stage event, timed by stage_at and never backdated.
	stageTimed: (config) => config.eventSource === 'crm',
	destinationId: (config) => config.pixelId,
	userData: (user) => metaUserData(user),
	buildEvent: (context, config) =>
		config.eventSource === 'crm' ? buildMetaCrmEvent(context, config) : buildMetaEvent(context, config),
	sendChunk: sendMetaChunk,
	previewRequest: (events, config) => ({
		method: 'POST',
		url: metaEventsUrl(config),
		body: metaRequestBody(events, config),
	}),
};

export * from './constants';
export type { MetaConfig } from './config';
export type { MetaServerEvent } from './payload';
export { buildMetaEvent, metaUserData } from './payload';
export { buildMetaCrmEvent, readMetaLeadId, readStageName } from './crm';
export { sendMetaChunk, metaEventsUrl, metaRequestBody } from './sender';
export { appSecretProof } from './proof';
export { classifyMetaResponse, describeGraphError, readGraphError } from './errors';
export { testMetaCredentials } from './credentialTest';
export type { MetaCredentials } from './credentialTest';
