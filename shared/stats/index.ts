export * from './stats';
export * from './refusals';
