export { startWorker, createWorkerLogger, type WorkerHandle, type WorkerOptions } from './worker';
export { createWorkerMetrics, type WorkerMetrics } from './metrics';
