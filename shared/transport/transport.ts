import { backoffDelay, parseRetryAfter } from './backoff';
import { httpExecutor, type HttpExecutor, type HttpRequest, type HttpResponse } from './http';
import { scrubText, scrubValue } from './secrets';

export type { HttpExecutor, HttpRequest, HttpResponse } from './http';

/**
 * What a platform's error map says about one response. `retry` = transient (5xx, platform
 * "try again" codes); `throttle` = rate limited (429 and platform throttle codes).
 */
export type Verdict =
	| { kind: 'ok' }
	| { kind: 'retry' | 'throttle'; reason: string; retryAfterMs?: number }
	| { kind: 'permanent'; reason: string };

export type Classifier = (response: HttpResponse) => Verdict;

export interface RetryPolicy {
	/** Retries after the first attempt. */
	maxRetries: number;
	baseDelayMs: number;
	maxDelayMs: number;
	/** Total time budget for all attempts and waits of one request. */
	maxTotalMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 4,
	baseDelayMs: 250,
	maxDelayMs: 10_000,
	maxTotalMs: 60_000,
};

export interface TransportLogger {
	debug(message: string): void;
	warn(message: string): void;
}

export interface TransportOptions {
	executor?: HttpExecutor;
	timeoutMs?: number;
	retry?: Partial<RetryPolicy>;
	logger?: TransportLogger;
	sleep?: (ms: number) => Promise<void>;
	random?: () => number;
	clock?: () => number;
	/**
	 * Whether to resend a request whose outcome is unknown — it went out and no answer came back
	 * (timed out, connection reset or closed after sending). Default true. The dispatch sets it
	 * per platform: only where the platform drops a resend of the same event id
	 * (shared/dispatch/outcome.ts). Failures that surely never reached the platform (refused
	 * connection, unknown host, TLS handshake) are retried either way.
	 */
	resendUnknownOutcomes?: boolean;
	/** Told of every request's final result (see Transport.observed). */
	onResult?: (result: TransportResult) => void;
}

/** The final answer for one logical request, after retries. Never throws for HTTP/network failures. */
export type TransportResult =
	| { ok: true; response: HttpResponse; attempts: number }
	| {
			ok: false;
			/** `permanent`: do not resend as is; `retryable`: gave up on a transient failure. */
			failure: 'permanent' | 'retryable';
			/** Scrubbed, one line. */
			message: string;
			response?: HttpResponse;
			attempts: number;
			/**
			 * The request went out and no answer came back on some attempt: the platform may
			 * have it. Without `resendUnknownOutcomes` the transport stops at the first such one.
			 */
			outcomeUnknown?: boolean;
			/**
			 * How long the platform asked to wait on the last attempt (its Retry-After, or a
			 * retry delay its error map read), ms: what a later try (the outbox) should honour.
			 */
			retryAfterMs?: number;
	  };

/**
 * Network errors raised before the request could reach the platform: nothing was sent, so a
 * retry can never make a second copy. DNS, routing, a refused connection, a connect timeout,
 * a TLS handshake that failed (the body is only written after it).
 */
const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'EAI_AGAIN',
	'ENETUNREACH',
	'ENETDOWN',
	'EHOSTUNREACH',
	'EHOSTDOWN',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'EPROTO',
]);

/** Errors after which the request may have reached the platform: the answer was lost. */
const UNKNOWN_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ECONNABORTED',
	'ETIMEDOUT',
	'UND_ERR_SOCKET',
]);

/**
 * What a failed attempt without a response means:
 *  - `not_sent`: it surely never reached the platform — safe to retry on every platform;
 *  - `unknown`: it may have (timeout, reset or hang-up after connecting) — retried only where
 *    the platform drops a resend of the same event id;
 *  - `permanent`: retrying cannot help (an unknown host, a certificate that fails, a bad URL);
 *    never sent either.
 */
export type NetworkErrorClass = 'not_sent' | 'unknown' | 'permanent';

export function classifyNetworkError(code: string, detail: string): NetworkErrorClass {
	if (NOT_SENT_CODES.has(code) || /^ERR_SSL_/.test(code)) return 'not_sent';
	if (UNKNOWN_CODES.has(code) || /timeout|socket hang up/i.test(detail)) return 'unknown';
	return 'permanent';
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Default classifier: 2xx ok, 429 throttle, 5xx retry, everything else permanent. */
export function classifyHttpStatus(response: HttpResponse): Verdict {
	if (response.status >= 200 && response.status < 300) return { kind: 'ok' };
	if (response.status === 429) return { kind: 'throttle', reason: 'HTTP 429' };
	if (response.status >= 500) return { kind: 'retry', reason: `HTTP ${response.status}` };
	return { kind: 'permanent', reason: `HTTP ${response.status}` };
}

/**
 * The one HTTP transport: one executor (by default Node's http/https with shared keep-alive
 * agents, shared/transport/http.ts) with timeouts;
 * retries with exponential backoff and jitter on network errors and on what the platform's
 * classifier calls transient or throttled, honouring Retry-After, bounded in count and in
 * total time; every message scrubbed of the secrets passed with the request.
 */
export class Transport {
	private readonly execute: HttpExecutor;
	private readonly policy: RetryPolicy;
	private readonly timeoutMs: number;
	private readonly sleep: (ms: number) => Promise<void>;
	private readonly random: () => number;
	private readonly clock: () => number;
	private readonly resendUnknown: boolean;

	constructor(private readonly options: TransportOptions = {}) {
		this.resendUnknown = options.resendUnknownOutcomes ?? true;
		this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
		this.timeoutMs = options.timeoutMs ?? 15_000;
		this.sleep = options.sleep ?? realSleep;
		this.random = options.random ?? Math.random;
		this.clock = options.clock ?? Date.now;
		this.execute = options.executor ?? httpExecutor;
	}

	/** The same transport (executor, policy, logger), resending unknown outcomes or not. */
	withUnknownOutcomes(resend: boolean): Transport {
		if (resend === this.resendUnknown) return this;
		return new Transport({ ...this.options, resendUnknownOutcomes: resend });
	}

	/**
	 * The same transport (executor, policy, logger), also telling `onResult` each request's final
	 * result — e.g. the send stage keeping the platform's Retry-After for the outbox.
	 */
	observed(onResult: (result: TransportResult) => void): Transport {
		const before = this.options.onResult;
		return new Transport({
			...this.options,
			resendUnknownOutcomes: this.resendUnknown,
			onResult: (result) => {
				before?.(result);
				onResult(result);
			},
		});
	}

	async request(
		request: HttpRequest,
		classify: Classifier,
		secrets: readonly string[] = [],
	): Promise<TransportResult> {
		const result = await this.requestWithRetries(request, classify, secrets);
		this.options.onResult?.(result);
		return result;
	}

	private async requestWithRetries(
		request: HttpRequest,
		classify: Classifier,
		secrets: readonly string[],
	): Promise<TransportResult> {
		const started = this.clock();
		const { maxRetries, maxTotalMs } = this.policy;
		let attempt = 0;
		let unknown = false;
		for (;;) {
			attempt++;
			const outcome = await this.attempt(request, classify, secrets);
			if (outcome.kind === 'ok') return { ok: true, response: outcome.response!, attempts: attempt };
			if (outcome.kind === 'permanent') {
				return {
					ok: false,
					failure: 'permanent',
					message: outcome.message,
					response: outcome.response,
					attempts: attempt,
					...(unknown ? { outcomeUnknown: true } : {}),
				};
			}
			if (outcome.kind === 'unknown') {
				unknown = true;
				if (!this.resendUnknown) {
					return {
						ok: false,
						failure: 'retryable',
						message: `${outcome.message} (not resent: the request may have reached the platform)`,
						attempts: attempt,
						outcomeUnknown: true,
					};
				}
			}
			const elapsed = this.clock() - started;
			const delay =
				outcome.retryAfterMs !== undefined
					? Math.max(outcome.retryAfterMs, 0)
					: backoffDelay(attempt, { ...this.policy, random: this.random });
			const exhausted = attempt > maxRetries;
			const outOfTime = elapsed + delay > maxTotalMs;
			if (exhausted || outOfTime) {
				const why = exhausted
					? `gave up after ${attempt} attempts`
					: `gave up after ${attempt} attempts: the next wait (${delay} ms) would exceed the ${maxTotalMs} ms budget`;
				return {
					ok: false,
					failure: 'retryable',
					message: `${outcome.message} (${why})`,
					response: outcome.response,
					attempts: attempt,
					...(unknown ? { outcomeUnknown: true } : {}),
					...(outcome.retryAfterMs !== undefined
						? { retryAfterMs: Math.max(outcome.retryAfterMs, 0) }
						: {}),
				};
			}
			this.options.logger?.warn(
				`lead-capi transport: ${outcome.message}; retry ${attempt}/${maxRetries} in ${delay} ms`,
			);
			await this.sleep(delay);
		}
	}

	private async attempt(
		request: HttpRequest,
		classify: Classifier,
		secrets: readonly string[],
	): Promise<
		| { kind: 'ok'; response: HttpResponse }
		| {
				kind: 'retry' | 'throttle' | 'permanent' | 'unknown';
				message: string;
				response?: HttpResponse;
				retryAfterMs?: number;
		  }
	> {
		let response: HttpResponse;
		try {
			response = await this.execute({ ...request, timeoutMs: request.timeoutMs ?? this.timeoutMs });
		} catch (error) {
			const err = error as { code?: string; message?: string };
			const code = err.code ?? '';
			const detail = scrubText(err.message ?? String(error), secrets);
			const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(detail);
			const message = timedOut
				? `no response within ${request.timeoutMs ?? this.timeoutMs} ms`
				: `network error${code ? ` ${code}` : ''}: ${detail}`;
			const kind = classifyNetworkError(code, detail);
			return { kind: kind === 'not_sent' ? 'retry' : kind, message };
		}
		const safe: HttpResponse = { ...response, data: scrubValue(response.data, secrets) };
		const verdict = classify(safe);
		if (verdict.kind === 'ok') return { kind: 'ok', response: safe };
		const message = scrubText(verdict.reason, secrets);
		if (verdict.kind === 'permanent') return { kind: 'permanent', message, response: safe };
		const retryAfterMs =
			verdict.retryAfterMs ?? parseRetryAfter(response.headers['retry-after'], this.clock());
		return { kind: verdict.kind, message, response: safe, retryAfterMs };
	}
}
