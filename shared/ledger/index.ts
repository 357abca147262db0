export * from './types';
export { ledgerKey } from './keys';
export { parseLedger, ledgerWriteFor, stageOf } from './entry';
export { assessStage, daysSinceCreated, type StageAssessment } from './assess';
