/**
 * The Health Report's readers: what the report computes from what the stores hold (counters,
 * the stage ledger), above the stores it reads. The counters themselves are counted in stats/.
 */
export * from './conversionLeads';
