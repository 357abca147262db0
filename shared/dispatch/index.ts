export { dispatch, DEDUP_FAIL_CLOSED_NOTE } from './dispatch';
export { sendIsolating } from '../platforms/isolate';
export type { ChunkAttempt } from '../platforms/isolate';
export type * from './types';
export {
	isUnknownOutcome,
	resendsUnknown,
	unknownOutcomeWarning,
} from './outcome';
