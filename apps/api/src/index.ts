export { createApp, type AppDeps } from './app';
export { createMetrics, type Metrics } from './metrics';
export { signToken } from './middleware/auth';
export { TokenVerifier, TOKEN_REFUSALS, type TokenRefusal } from './middleware/token-verifier';
export type { ReadinessChecks } from './routes/health.routes';
export { createApiRuntime, createApiRedis, createLogger, type ApiRuntime } from './runtime';
export { safeEqual } from './middleware/safe-equal';
export { joinClusterMetrics, serveClusterMetrics } from './metrics-cluster';
export { checkResponse, endpointFor, responseSchemaFor, ROUTE_TABLE } from './route-table';
