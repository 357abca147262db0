export { dispatch } from './dispatch';
export type * from './types';
