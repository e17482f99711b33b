export { createApp, type AppDeps } from './app';
export { createMetrics, type Metrics } from './metrics';
export { signToken, verifyToken } from './middleware/auth';
export type { ReadinessChecks } from './routes/health.routes';
export { createApiRuntime, createApiRedis, createLogger, type ApiRuntime } from './runtime';
export { safeEqual } from './middleware/safe-equal';
export { joinClusterMetrics, serveClusterMetrics } from './metrics-cluster';
export { checkResponse, endpointFor, responseSchemaFor, ROUTE_TABLE } from './route-table';
