export { deriveEventId, readRecordId, recordIdProblem } from './eventId';
export { readClientKey } from '../clientKey';
export { resolveEventTime, parseTimeMs, describeWindow } from './eventTime';
export type {
	EventWindowPolicy,
	EventTimeInput,
	EventTimeResult,
	EventTimeWindow,
} from './eventTime';
export { readConsent, readValue, readLeadConsent, consentRegion } from './consent';
export type { ConsentSignal, ConsentRegion, LeadConsentReading, ValueReading } from './consent';
export {
	readPageUrl,
	isCaliforniaLead,
	readEventContext,
	consentDeniedSkip,
	limitedDataUseFor,
	CONSENT_DENIED_SKIP_REASON,
} from './context';
export type {
	EventContext,
	EventContextOptions,
	ConsentDeniedRule,
	LimitedDataUseSetting,
} from './context';
