// The only reader of process.env: the whole configuration, parsed once with zod
// at start-up, so a bad value stops the process with a message naming it.
import { z } from 'zod';

export const DEV_JWT_SECRET = 'holdfast-dev-jwt-secret-do-not-use-in-production';
export const DEV_STRIPE_WEBHOOK_SECRET = 'whsec_holdfast_dev_secret_do_not_use_in_production';

const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/holdfast'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .default('redis://127.0.0.1:6379'),
  JWT_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(8, 'must be at least 8 characters').optional(),
  DEMO_MODE: boolish.optional(),
  HOLD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100000).default(30),
  HOLD_OUTBOX_MAX_PENDING: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  CORS_ORIGINS: z.string().optional(),
  RECONCILE_EVERY_SECONDS: z.coerce.number().int().min(1).max(86400).default(30),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60000).default(1500),
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600000).default(1500),
  WORKER_DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3600000).default(30000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(3600000).default(15000),
  DATABASE_KEEPALIVE_MS: z.coerce.number().int().min(0).max(3600000).default(10000),
  STREAM_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1000000).default(10000),
  STREAM_MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).max(1000000).default(20),
  STREAM_MAX_BUFFER_BYTES: z.coerce.number().int().min(1024).max(1073741824).default(262144),
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*$/, 'must be comma-separated host:port seeds')
    .optional(),
  HOLD_REPLICA_ACKS: z.coerce.number().int().min(0).max(5).default(0),
  HOLD_REPLICA_ACK_TIMEOUT_MS: z.coerce.number().int().min(1).max(10000).default(200),
  API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  WORKER_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  CONFIRM_BATCH_MAX: z.coerce.number().int().min(1).max(500).default(32),
  CONFIRM_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(100).default(0),
  CONFIRM_MAX_WAITING: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  HTTP_FAST_PATH: boolish.optional(),
});

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  databaseUrl: string;
  redisUrl: string;
  jwtSecret: string;
  stripeWebhookSecret: string;
  demoMode: boolean;
  /**
   * Address the API listens on: `127.0.0.1` (loopback only) in demo mode unless
   * `DEMO_MODE=true` was set explicitly, so demo tokens are never served to the
   * network by default; undefined (every interface) otherwise.
   */
  listenHost: string | undefined;
  holdRateLimitPerMinute: number;
  /** Per event: holds not yet written to PostgreSQL past which new holds answer 503 (the outbox is never trimmed). */
  holdOutboxMaxPending: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: human-readable lines on a terminal outside production, JSON lines otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  corsOrigins: string[];
  reconcileEverySeconds: number;
  /** Port of the worker process's own /metrics (0: any free port). */
  workerMetricsPort: number;
  /**
   * PostgreSQL time limits, so a frozen or unreachable database costs a request
   * a 503 within about 2 seconds instead of a hang.
   */
  database: {
    /** A new connection (or a wait for a free one) fails after this long. */
    connectTimeoutMs: number;
    /** Each statement of the API: cancelled by PostgreSQL, and given up by the client, after this long. */
    queryTimeoutMs: number;
    /** The same for the worker, whose reconciliation reads whole events. */
    workerQueryTimeoutMs: number;
    /** PostgreSQL ends a session idle inside a transaction this long (0: never). */
    idleInTransactionTimeoutMs: number;
    /** TCP keepalive on every connection: first probe after this long idle (0: off). */
    keepAliveMs: number;
  };
  /** The event stream (`GET /v1/events/{id}/stream`) of one API process. */
  stream: {
    /** Streams open at once, in all; past it a new one answers 503 STREAM_LIMIT_REACHED. */
    maxConnections: number;
    /** Streams open at once from one client address. */
    maxConnectionsPerClient: number;
    /** Bytes waiting for one slow reader before its stream is closed (it reconnects and re-reads). */
    maxBufferBytes: number;
  };
  /** Redis Cluster seeds (REDIS_CLUSTER_NODES); null: the one node of REDIS_URL. */
  redisClusterNodes: { host: string; port: number }[] | null;
  /** Replicas that must acknowledge a hold before it is answered (WAIT); 0: none. */
  holdReplicaAcks: number;
  /** How long a hold waits for those acknowledgements before answering 503. */
  holdReplicaAckTimeoutMs: number;
  /** API processes `npm start` runs (node:cluster, sharing the port). */
  apiProcesses: number;
  /** Worker processes `npm start` runs. */
  workerProcesses: number;
  /** Most confirms in one group-commit batch (1: one transaction per confirm). */
  confirmBatchMax: number;
  /** After a batch, how long the next may wait for more confirms while it has fewer than confirmBatchMax (0: none). */
  confirmBatchWaitMs: number;
  /** Confirms waiting for a batch past which the API answers 503 OVERLOADED with Retry-After. */
  confirmMaxWaiting: number;
  /** Plain requests to the hot endpoints (hold, confirm) skip Express's per-request machinery (apps/api/src/fast-path.ts). */
  httpFastPath: boolean;
  /** Settings that fell back to development values; the caller logs them as warnings. */
  warnings: string[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parse an environment (process.env by default). Throws ConfigError with a one-line message. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  if (production && e.DEMO_MODE === true) {
    throw new ConfigError('Invalid configuration: DEMO_MODE cannot be turned on when NODE_ENV=production');
  }
  if (e.REDIS_CLUSTER_NODES && env.REDIS_URL) {
    throw new ConfigError('Invalid configuration: set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both');
  }
  if (e.HOLD_REPLICA_ACKS > 0 && !e.REDIS_CLUSTER_NODES) {
    throw new ConfigError('Invalid configuration: HOLD_REPLICA_ACKS needs REDIS_CLUSTER_NODES (replicas to acknowledge)');
  }
  const redisClusterNodes = e.REDIS_CLUSTER_NODES
    ? e.REDIS_CLUSTER_NODES.split(',').map((seed) => {
      const [host, port] = seed.trim().split(':') as [string, string];
      return { host, port: Number(port) };
    })
    : null;
  if (redisClusterNodes?.some((n) => n.port < 1 || n.port > 65535)) {
    throw new ConfigError('Invalid configuration: REDIS_CLUSTER_NODES has a port outside 1-65535');
  }
  const demoMode = e.DEMO_MODE ?? !production;
  const warnings: string[] = [];
  // Demo mode hands out admin tokens to anyone who asks: by default it listens on
  // loopback only; only an explicit DEMO_MODE=true opens it to the network.
  const demoExplicit = e.DEMO_MODE === true;
  const listenHost = demoMode && !demoExplicit ? '127.0.0.1' : undefined;
  if (demoExplicit) {
    warnings.push('DEMO_MODE=true: listening on every interface, and demo mode hands admin tokens to anyone who can reach this port');
  }
  const secret = (name: 'JWT_SECRET' | 'STRIPE_WEBHOOK_SECRET', fallback: string): string => {
    const value = e[name];
    if (value) return value;
    if (!demoMode) throw new ConfigError(`Missing configuration: ${name} must be set when demo mode is off`);
    warnings.push(`${name} is not set: using a development value (demo mode only)`);
    return fallback;
  };
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    jwtSecret: secret('JWT_SECRET', DEV_JWT_SECRET),
    stripeWebhookSecret: secret('STRIPE_WEBHOOK_SECRET', DEV_STRIPE_WEBHOOK_SECRET),
    demoMode,
    listenHost,
    holdRateLimitPerMinute: e.HOLD_RATE_LIMIT_PER_MINUTE,
    holdOutboxMaxPending: e.HOLD_OUTBOX_MAX_PENDING,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    corsOrigins: (e.CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    reconcileEverySeconds: e.RECONCILE_EVERY_SECONDS,
    workerMetricsPort: e.WORKER_METRICS_PORT,
    database: {
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
      workerQueryTimeoutMs: e.WORKER_DATABASE_QUERY_TIMEOUT_MS,
      idleInTransactionTimeoutMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      keepAliveMs: e.DATABASE_KEEPALIVE_MS,
    },
    stream: {
      maxConnections: e.STREAM_MAX_CONNECTIONS,
      maxConnectionsPerClient: e.STREAM_MAX_CONNECTIONS_PER_CLIENT,
      maxBufferBytes: e.STREAM_MAX_BUFFER_BYTES,
    },
    redisClusterNodes,
    holdReplicaAcks: e.HOLD_REPLICA_ACKS,
    holdReplicaAckTimeoutMs: e.HOLD_REPLICA_ACK_TIMEOUT_MS,
    apiProcesses: e.API_PROCESSES,
    workerProcesses: e.WORKER_PROCESSES,
    confirmBatchMax: e.CONFIRM_BATCH_MAX,
    confirmBatchWaitMs: e.CONFIRM_BATCH_WAIT_MS,
    confirmMaxWaiting: e.CONFIRM_MAX_WAITING,
    httpFastPath: e.HTTP_FAST_PATH ?? true,
    warnings,
  };
}

/**
 * Whether logs are written as human-readable lines (pino's pretty transport)
 * rather than JSON lines: asked for, or `auto` on a terminal outside production.
 */
export function prettyLogs(config: Pick<Config, 'logFormat' | 'nodeEnv'>, stdoutIsTty: boolean): boolean {
  if (config.logFormat !== 'auto') return config.logFormat === 'pretty';
  return stdoutIsTty && config.nodeEnv !== 'production';
}

/** pino's pretty transport as holdfast uses it: time of day, no pid or host. */
export const PRETTY_TRANSPORT = {
  target: 'pino-pretty',
  options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true },
} as const;
