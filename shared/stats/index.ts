export * from './stats';
export * from './refusals';
export * from './conversionLeads';
