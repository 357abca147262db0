export { CaptureLog, captureLogKey, CAPTURE_LOG_WINDOW_MS, DEFAULT_CAPTURE_LOG_MAX_ENTRIES } from './captureLog';
export type { CaptureLogEntry, CaptureLogOptions } from './captureLog';
export { redactForLog } from './redact';
export type { RedactedRecord } from './redact';
