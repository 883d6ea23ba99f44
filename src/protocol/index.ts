export * from './descriptor.ts';
export * from './envelope.ts';
export * from './headers.ts';
export * from './retry-schedule.ts';
export * from './signature.ts';
export * from './status-change.ts';
export * from './statuses.ts';
export * from './transactions.ts';
