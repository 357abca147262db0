export * from './types';
export { ledgerKey } from './keys';
export { parseLedger, ledgerWriteFor, stageOf } from './entry';
export { assessStage, daysSinceCreated, type StageAssessment } from './assess';
export {
	DEFAULT_STAGE_ADJUSTMENTS,
	LEDGER_ORIGINAL,
	NO_ORIGINAL_IN_LEDGER,
	originalFromLedger,
	stageAdjustment,
	type StageAdjustments,
} from './adjust';
