// The one kit of test helpers every suite imports: the real API on port 0,
// private redis-server processes and clusters, isolated databases, a
// PostgreSQL proxy that freezes, the sale's invariants, waiting with deadlines.
export * from './test-api';
export * from './hold-assertions';
export * from './payments';
export * from './wait';
export * from './redis-process';
export * from './redis-cluster';
export * from './worker-process';
export * from './server-process';
export * from './traffic';
export * from './pg-proxy';
export * from './invariants';
export * from './isolated-database';
export * from './api-process';
export * from './log-lines';
export * from './expiry-jobs';
export * from './tcp-relay';
export * from './clock';
export * from './otlp-receiver';
export * from './webhook-receiver';
export * from './event-rows';
export * from './leftovers';
export * from './run-cleanup';
