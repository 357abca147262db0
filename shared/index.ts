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
export * from './record';
export * from './captureLog';
export * from './capture';
export * from './capture/browser';
export * from './rules';
