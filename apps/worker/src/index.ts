export { startWorker, createWorkerLogger, type WorkerHandle, type WorkerOptions } from './worker';
export { createWorkerMetrics, type WorkerMetrics } from './metrics';
export { EXPIRE_HOLDS_PER_TRANSACTION } from '@holdfast/domain';
