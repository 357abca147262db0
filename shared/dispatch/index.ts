export { dispatch, DEDUP_FAIL_CLOSED_NOTE } from './dispatch';
export { sendIsolating } from './isolate';
export type { ChunkAttempt } from './isolate';
export type * from './types';
export {
	RESEND_DEDUP,
	isUnknownOutcome,
	resendsUnknown,
	unknownOutcomeWarning,
	type UnknownOutcomePolicy,
} from './outcome';
