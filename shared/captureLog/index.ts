export {
	CaptureLog,
	captureLogKey,
	CAPTURE_LOG_WINDOW_MS,
	DEFAULT_CAPTURE_LOG_MAX_BYTES,
	DEFAULT_CAPTURE_LOG_MAX_ENTRIES,
	MIN_CAPTURE_LOG_MAX_BYTES,
} from './captureLog';
export type { CaptureLogAppend, CaptureLogEntry, CaptureLogOptions } from './captureLog';
export { boundEntry, DEFAULT_MAX_ENTRY_BYTES } from './bounds';
export { captureLogEntry } from './entry';
export type { BoundedEntry, EntryCut } from './bounds';
export { captureLogSize, entryCost, ENTRY_OVERHEAD_BYTES } from './size';
export { DEFAULT_LOG_LOCATION, redactForLog } from './redact';
export type { LogLocation, RedactedRecord, RedactOptions } from './redact';
