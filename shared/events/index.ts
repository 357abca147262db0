export { deriveEventId, readClientKey, readRecordId, recordIdProblem } from './eventId';
export { resolveEventTime, parseTimeMs, describeWindow } from './eventTime';
export type {
	EventWindowPolicy,
	EventTimeInput,
	EventTimeResult,
	EventTimeWindow,
} from './eventTime';
export { readConsent, readValue, readLeadConsent, consentRegion } from './consent';
export type { ConsentSignal, ConsentRegion, LeadConsentReading } from './consent';
export { readPageUrl, isCaliforniaLead } from './context';
