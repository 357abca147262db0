export {
	CaptureLog,
	captureLogKey,
	CAPTURE_LOG_WINDOW_MS,
	DEFAULT_CAPTURE_LOG_MAX_BYTES,
	DEFAULT_CAPTURE_LOG_MAX_ENTRIES,
	MIN_CAPTURE_LOG_MAX_BYTES,
} from './captureLog';
export type { CaptureLogAppend, CaptureLogEntry, CaptureLogOptions } from './captureLog';
export { boundEntry } from './bounds';
export { DEFAULT_MAX_ENTRY_BYTES } from './limits';
export { captureLogEntry } from './entry';
export { captureLogSize, entryCost, ENTRY_OVERHEAD_BYTES } from '../redis/logSize';
export { redactForLog } from './redact';
export { DEFAULT_LOG_LOCATION } from './types';
export type { BoundedEntry, EntryCut, LogLocation, RedactedRecord, RedactOptions } from './types';
