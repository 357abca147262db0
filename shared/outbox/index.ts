export * from './backoff';
export * from './crypto';
export * from './outbox';
export * from './store';
