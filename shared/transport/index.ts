export { Transport, classifyHttpStatus, classifyNetworkError, DEFAULT_RETRY_POLICY } from './transport';
export type {
	Classifier,
	HttpExecutor,
	HttpRequest,
	HttpResponse,
	NetworkErrorClass,
	RetryPolicy,
	TransportLogger,
	TransportOptions,
	TransportResult,
	Verdict,
} from './transport';
export { backoffDelay, parseRetryAfter } from './backoff';
export { scrubText, scrubValue } from './secrets';
export { lowerCaseHeaders } from './headers';
