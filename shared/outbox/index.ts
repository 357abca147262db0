export * from './backoff';
export * from './clock';
export * from './crypto';
export * from './outbox';
export * from './store';
