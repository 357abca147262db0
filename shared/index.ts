/**
 * The framework-free core of n8n-nodes-lead-capi (no n8n imports), built to dist/shared/index.js:
 * its public surface, name by name (docs/architecture.md). What the nodes, the credentials, the
 * tests and the bench use from the core is listed here; everything else stays inside its floor.
 * A platform's own names are its folder's index (shared/platforms/<platform>), which its node
 * imports; the namespaces below keep the ones the other nodes read.
 */
export { PLATFORMS, type LeadRecord, type LeadState, type Platform } from './types';
export { DEFAULT_KEY_PREFIX, readClientKey } from './clientKey';
export { joinSentences } from './sentences';
export { LEAD_RECORD_FIELDS, withRecordFields } from './record';
export { compactFieldMap } from './identity/fields';
export { estimateMatchQuality } from './identity/matchQuality';
export { normalizeIdentity } from './identity/normalize-identity';
export { normalizePhone, phoneHashForm } from './identity/phone';
export { renderIdentity } from './identity/render-identity';
export { deriveEventId, recordIdProblem } from './events/eventId';
export { parseTimeMs, type EventWindowPolicy } from './events/eventTime';
export { CAPTURE_SCRIPT_CONTENT_TYPE, captureScriptSource } from './capture/browser/index';
export { processCapture } from './capture/index';
export { readLeadRecord } from './capture/input';
export { leadgenVerification } from './capture/sources/metaLeadgen';
export { type CaptureConfig, type CaptureSource } from './capture/types';
export { lowerCaseHeaders } from './transport/headers';
export { type HttpExecutor, type HttpRequest, type HttpResponse } from './transport/http';
export {
	Transport,
	classifyHttpStatus,
	classifyNetworkError,
	type TransportOptions,
} from './transport/transport';
export {
	createRedisClient,
	describeRedis,
	testRedisConnection,
	waitForReady,
	type RedisClient,
	type RedisConnectionConfig,
} from './redis/client';
export {
	RefusalLogLimiter,
	describeRefusal,
	refusalIncrement,
	refusalReason,
	summarizeRefusals,
} from './stats/refusals';
export {
	STATS_TTL_MS,
	outboxMoveIncrements,
	statsBucket,
	statsKey,
	workflowDestinationMarks,
	workflowScope,
	type DestinationStats,
} from './stats/stats';
export { parseLedger, stageOf } from './ledger/entry';
export { ledgerKey } from './ledger/keys';
export { type LedgerOptions } from './ledger/types';
export {
	checkEvictionPolicy,
	evictionCheck,
	warnIfMarkersEvictable,
	watchEvictionPolicy,
} from './dedup/evictionPolicy';
export { MemoryDedupStore } from './dedup/memoryStore';
export { RedisDedupStore } from './dedup/redisStore';
export {
	DEFAULT_COMMITTED_TTL_MS,
	dedupKey,
	namespacedPrefix,
	type ClaimOptions,
	type DedupStore,
} from './dedup/types';
export {
	LEAD_BUDGET_UNITS,
	MAX_CONDITIONS,
	MAX_LIST_ITEMS,
	MAX_PATTERN_LENGTH,
	MAX_REGEX_CONDITIONS,
	MAX_VALUE_CHARS,
} from './rules/budget';
export { evaluateRules } from './rules/evaluate';
export { buildPreview } from './rules/preview';
export { decideSend, validateSendPolicy } from './rules/send-policy';
export { recordsWithLedgerFacts, withLedgerFacts, type LedgerLookup } from './rules/stage';
export {
	CASE_SENSITIVE_MATCH_TYPES,
	MATCH_TYPES,
	PATTERN_FREE_MATCH_TYPES,
	SEND_MODES,
	type MatchType,
	type SendMode,
	type SendPolicy,
} from './rules/types';
export { validateRuleSet } from './rules/validate';
export { CaptureLog, DEFAULT_CAPTURE_LOG_MAX_BYTES, captureLogKey } from './captureLog/captureLog';
export { redactForLog } from './captureLog/redact';
export { DEFAULT_LOG_LOCATION, type LogLocation } from './captureLog/types';
export { type ItemResult, type PlatformAdapter, type SendOutcome } from './platforms/contract';
export { googleAdapter } from './platforms/google/index';
export {
	LEDGER_ORIGINAL,
	NO_ORIGINAL_IN_LEDGER,
	originalFromLedger,
	stageAdjustment,
} from './platforms/google/ledgerOriginal';
export { PLATFORM_ADAPTERS, IDENTITY_PROFILES } from './platforms/index';
export { sendIsolating, type ChunkAttempt } from './platforms/isolate';
export { metaAdapter } from './platforms/meta/index';
export { microsoftAdapter } from './platforms/microsoft/index';
export { pinterestAdapter } from './platforms/pinterest/index';
export { tiktokAdapter } from './platforms/tiktok/index';
export { DEDUP_FAIL_CLOSED_NOTE } from './dispatch/claim';
export { dispatch } from './dispatch/dispatch';
export {
	type DedupFailMode,
	type DispatchItem,
	type DispatchOptions,
	type DispatchMode,
	type KeptFacts,
	type UnknownOutcomePolicy,
} from './dispatch/types';
export {
	CL_MAX_LEADS_READ,
	conversionLeadsByDestination,
	ledgerStart,
} from './health/conversionLeads';
export * as meta from './platforms/meta';
export * as pinterest from './platforms/pinterest';
export * as tiktok from './platforms/tiktok';
export * as microsoft from './platforms/microsoft';
export * as outbox from './outbox';
