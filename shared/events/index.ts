export { deriveEventId, readClientKey, readRecordId, recordIdProblem } from './eventId';
export { resolveEventTime, parseTimeMs } from './eventTime';
export type { EventWindowPolicy, EventTimeInput, EventTimeResult } from './eventTime';
export { readConsent, readValue } from './consent';
export type { ConsentSignal } from './consent';
export { readPageUrl, isCaliforniaLead } from './context';
