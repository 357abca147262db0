export * from './backoff';
export * from './clock';
export * from './crypto';
export * from './outbox';
export * from './store';
// A sender's outbox run (framework-free; the nodes adapt n8n to it in nodes/common/outboxes.ts).
export { noDrained } from './run';
export type {
	DrainedEntries,
	KeptEvents,
	OpenedEntries,
	OutboxMove,
	OutboxMoves,
	OutboxPlatform,
	RunOutbox,
} from './run';
export { drainedRefOf, readDrained } from './drained';
export { queueBuilt } from './queueBuilt';
export { settleOutbox } from './settleRun';
export { countOutboxMoves } from './counts';
export { finishOutbox, type FinishInput } from './finish';
export {
	actOnDeadLetters,
	selectedIds,
	selectionText,
	type DeadLetterAction,
	type DeadLetterSelection,
} from './deadLetters';
