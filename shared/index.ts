/**
 * The framework-free core of n8n-nodes-lead-capi (no n8n imports). Built to dist/shared/index.js.
 */
export * from './types';
export * from './identity';
export * from './events';
export * from './dedup';
export * from './transport';
export * from './dispatch';
export * as meta from './platforms/meta';
export { metaAdapter } from './platforms/meta';
export * as pinterest from './platforms/pinterest';
export { pinterestAdapter } from './platforms/pinterest';
export * as tiktok from './platforms/tiktok';
export { tiktokAdapter } from './platforms/tiktok';
export * as microsoft from './platforms/microsoft';
export { microsoftAdapter } from './platforms/microsoft';
export * as google from './platforms/google';
export { googleAdapter } from './platforms/google';
export {
	DEFAULT_STAGE_ADJUSTMENTS,
	LEDGER_ORIGINAL,
	NO_ORIGINAL_IN_LEDGER,
	originalFromLedger,
	stageAdjustment,
	type StageAdjustments,
} from './platforms/google/ledgerOriginal';
export * from './record';
export * from './captureLog';
export * from './capture';
export * from './capture/browser';
export * from './rules';
export { PLATFORM_ADAPTERS } from './platforms';
export * from './stats';
export * from './health';
export * from './ledger';
export { joinSentences } from './sentences';
export * as outbox from './outbox';
