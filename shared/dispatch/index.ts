export { dispatch } from './dispatch';
export { sendIsolating } from './isolate';
export type { ChunkAttempt } from './isolate';
export type * from './types';
