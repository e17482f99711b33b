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
  HOLD_IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(10_000),
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
  CONFIRM_BATCH_IN_FLIGHT: z.coerce.number().int().min(1).max(8).default(1),
  CONFIRM_MAX_WAITING: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  CONFIRM_CLAIM_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  HTTP_FAST_PATH: boolish.optional(),
  // --- Outbound webhooks (issue 30) ---
  WEBHOOK_ALLOW_PRIVATE: boolish.optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  WEBHOOK_RETRY_WINDOW_SECONDS: z.coerce.number().int().min(1).max(30 * 86400).default(86400),
  WEBHOOK_DISPATCH_EVERY_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  WEBHOOK_RETENTION_DAYS: z.coerce
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 (day)')
    .max(3650, 'must be at most 3650 (days)')
    .default(30),
  // --- Bearer tokens from an OIDC issuer (issue 32); HS256 with JWT_SECRET above ---
  // Empty counts as unset (docker-compose passes `${AUTH_ISSUER:-}` through).
  AUTH_ISSUER: z.preprocess((v) => (v === '' ? undefined : v), z.string().url('must be an https:// URL (the issuer, or its discovery document)').optional()),
  AUTH_AUDIENCE: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^\s*[^\s,]+\s*(,\s*[^\s,]+\s*)*$/, 'must be one audience or a comma-separated list').optional()),
  AUTH_ROLE_CLAIM: z.string().min(1).max(200).default('role'),
  AUTH_ROLE_MAP: z
    .string()
    .regex(/^\s*[^\s,=]+=(customer|service|admin)\s*(,\s*[^\s,=]+=(customer|service|admin)\s*)*$/, 'must be comma-separated providerRole=customer|service|admin pairs')
    .optional(),
  AUTH_ALGORITHMS: z
    .string()
    .regex(/^\s*(RS|PS|ES)(256|384|512)\s*(,\s*(RS|PS|ES)(256|384|512)\s*)*$/, 'must be comma-separated asymmetric algorithms (RS256, PS256, ES256, … 384, 512)')
    .default('RS256,ES256'),
  AUTH_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  AUTH_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  // --- end of the issuer block ---
  // Traces (OpenTelemetry): off unless an endpoint is set. Empty counts as unset.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// URL (the collector\'s OTLP/HTTP base, e.g. http://collector:4318)').optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['http/protobuf', 'http/json'], { error: 'must be http/protobuf or http/json (gRPC is not supported)' }).default('http/protobuf')),
  OTEL_SERVICE_NAME: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(200).optional()),
});

/** Our roles; a token's role claim names one of these (or a name AUTH_ROLE_MAP renames to one). */
export type AuthRole = 'customer' | 'service' | 'admin';

/** An OIDC issuer whose tokens are accepted (AUTH_ISSUER and the AUTH_* settings). */
export interface IssuerConfig {
  /** The issuer identifier tokens must carry in `iss` (AUTH_ISSUER without the discovery suffix). */
  issuer: string;
  /** Where its discovery document is read (`<issuer>/.well-known/openid-configuration`). */
  discoveryUrl: string;
  /** Accepted `aud` values: a token must name at least one. */
  audience: string[];
  /** The signing algorithms accepted from this issuer (never `none`, never HS*). */
  algorithms: string[];
  /** Leeway for `exp` and `nbf`, in seconds. */
  clockSkewSeconds: number;
  /** After fetching the JWKS, no new fetch (even for an unknown `kid`) for this long. */
  jwksCooldownMs: number;
  /** Plain http for the discovery document and the JWKS on any host (demo mode, tests); otherwise https, or http on loopback only. */
  allowPlainHttp: boolean;
}

export interface AuthConfig {
  /** null: bearer tokens come only from the HS256 secret (JWT_SECRET). */
  issuer: IssuerConfig | null;
  /** The claim of an issuer's token that carries its role(s) (a string or an array; a dotted path reaches into objects). */
  roleClaim: string;
  /** The provider's own role names renamed to ours. */
  roleMap: Record<string, AuthRole>;
}

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  databaseUrl: string;
  redisUrl: string;
  /** The HS256 secret; null when demo mode is off and only AUTH_ISSUER is set (HS256 tokens are then refused). */
  jwtSecret: string | null;
  /** Tokens from an OIDC issuer, and how their roles are read. */
  auth: AuthConfig;
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
  /**
   * How long a hold request's claim of its Idempotency-Key lasts without an answer: then a retry
   * with the key takes the claim over, and with it the hold that request may have taken.
   */
  holdIdempotencyLeaseMs: number;
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
  /** Confirm batches running at once, each on its own connection. */
  confirmBatchInFlight: number;
  /** Confirms waiting for a batch past which the API answers 503 OVERLOADED with Retry-After. */
  confirmMaxWaiting: number;
  /**
   * A confirm's claim on its hold's lease (Redis's clock) and, from DATABASE_QUERY_TIMEOUT_MS,
   * how long before its end a batch may no longer commit on it.
   */
  confirmClaim: { leaseMs: number; marginMs: number };
  /** Plain requests to the hot endpoints (hold, confirm) skip Express's per-request machinery (apps/api/src/fast-path.ts). */
  httpFastPath: boolean;
  /** OpenTelemetry traces (@holdfast/telemetry's startTelemetry). */
  telemetry: {
    /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's OTLP/HTTP base URL; null: tracing off, no SDK loaded. */
    endpoint: string | null;
    /** OTEL_EXPORTER_OTLP_PROTOCOL. */
    protocol: 'http/protobuf' | 'http/json';
    /** OTEL_SERVICE_NAME; null: holdfast-api for the API, holdfast-worker for the worker. */
    serviceName: string | null;
  };
  /** Outbound webhooks: which receivers are allowed, and how deliveries are tried. */
  webhooks: WebhookConfig;
  /** Settings that fell back to development values; the caller logs them as warnings. */
  warnings: string[];
}

export interface WebhookConfig {
  /**
   * WEBHOOK_ALLOW_PRIVATE=true: a receiver on the seller's own network may be registered (plain
   * http, loopback, private and link-local addresses). Otherwise https only outside demo mode,
   * and a URL whose host resolves to any such address is refused (at registration and again at
   * each delivery).
   */
  allowPrivate: boolean;
  /** Plain http allowed (demo mode, or allowPrivate). */
  allowHttp: boolean;
  /** One delivery attempt gives up after this long. */
  timeoutMs: number;
  /** Retries wait base, 2 base, 4 base, ... up to maxDelayMs, with jitter. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** A delivery not through this long after its event is given up (failed). */
  retryWindowMs: number;
  /** How often the worker moves recorded deliveries to the queue. */
  dispatchEveryMs: number;
  /**
   * WEBHOOK_RETENTION_DAYS: deliveries finished (succeeded or given up) longer ago than this are
   * deleted with their attempts, and events older than this once no delivery of theirs is left.
   */
  retentionMs: number;
}

/** A confirm's batch stops committing on its claim this long plus the query timeout before the claim ends (COMMIT, clocks). */
const CLAIM_MARGIN_EXTRA_MS = 1000;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parse an environment (process.env by default). Throws ConfigError with a one-line message. */
export function loadConfig(raw: Record<string, string | undefined> = process.env): Config {
  // A variable set to nothing (`PORT=`, Compose's `${X:-}`) is not set: its default applies, or its
  // "required" error; never a 0 made of '' (PORT= listened on a random port, a 0 timeout meant none).
  const env = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== ''));
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
  if (e.WEBHOOK_RETENTION_DAYS * 86400 < e.WEBHOOK_RETRY_WINDOW_SECONDS) {
    throw new ConfigError('Invalid configuration: WEBHOOK_RETENTION_DAYS must cover WEBHOOK_RETRY_WINDOW_SECONDS (a delivery is kept at least as long as it may be retried)');
  }
  if (e.CONFIRM_CLAIM_LEASE_MS < e.DATABASE_QUERY_TIMEOUT_MS + CLAIM_MARGIN_EXTRA_MS + 1000) {
    throw new ConfigError(`Invalid configuration: CONFIRM_CLAIM_LEASE_MS must be at least DATABASE_QUERY_TIMEOUT_MS + ${CLAIM_MARGIN_EXTRA_MS + 1000}`);
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
  const auth = authConfig(e, demoMode);
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    // With an issuer configured, JWT_SECRET becomes optional outside demo mode.
    jwtSecret: auth.issuer && !demoMode && !e.JWT_SECRET ? null : secret('JWT_SECRET', DEV_JWT_SECRET),
    auth,
    stripeWebhookSecret: secret('STRIPE_WEBHOOK_SECRET', DEV_STRIPE_WEBHOOK_SECRET),
    demoMode,
    listenHost,
    holdRateLimitPerMinute: e.HOLD_RATE_LIMIT_PER_MINUTE,
    holdOutboxMaxPending: e.HOLD_OUTBOX_MAX_PENDING,
    holdIdempotencyLeaseMs: e.HOLD_IDEMPOTENCY_LEASE_MS,
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
    confirmBatchInFlight: e.CONFIRM_BATCH_IN_FLIGHT,
    confirmMaxWaiting: e.CONFIRM_MAX_WAITING,
    confirmClaim: { leaseMs: e.CONFIRM_CLAIM_LEASE_MS, marginMs: e.DATABASE_QUERY_TIMEOUT_MS + CLAIM_MARGIN_EXTRA_MS },
    httpFastPath: e.HTTP_FAST_PATH ?? true,
    telemetry: {
      endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
      protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
      serviceName: e.OTEL_SERVICE_NAME ?? null,
    },
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === true,
      allowHttp: demoMode || e.WEBHOOK_ALLOW_PRIVATE === true,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxDelayMs: e.WEBHOOK_RETRY_MAX_DELAY_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_SECONDS * 1000,
      dispatchEveryMs: e.WEBHOOK_DISPATCH_EVERY_MS,
      retentionMs: e.WEBHOOK_RETENTION_DAYS * 86_400_000,
    },
    warnings,
  };
}

// --- Bearer tokens from an OIDC issuer (issue 32) ---

const DISCOVERY_SUFFIX = '/.well-known/openid-configuration';

/** Loopback hosts, where a test's issuer may serve plain http. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function authConfig(e: z.infer<typeof envSchema>, demoMode: boolean): AuthConfig {
  const roleMap: Record<string, AuthRole> = {};
  for (const pair of (e.AUTH_ROLE_MAP ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const [from, to] = pair.split('=') as [string, AuthRole];
    roleMap[from] = to;
  }
  const list = (value: string | undefined) => (value ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  if (!e.AUTH_ISSUER) {
    if (e.AUTH_AUDIENCE) throw new ConfigError('Invalid configuration: AUTH_AUDIENCE needs AUTH_ISSUER');
    return { issuer: null, roleClaim: e.AUTH_ROLE_CLAIM, roleMap };
  }
  const url = new URL(e.AUTH_ISSUER);
  const allowPlainHttp = demoMode || e.NODE_ENV === 'test';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (allowPlainHttp || isLoopbackHost(url.hostname)))) {
    throw new ConfigError('Invalid configuration: AUTH_ISSUER must be an https:// URL (plain http only on loopback, in demo mode or in tests)');
  }
  if (url.search || url.hash) throw new ConfigError('Invalid configuration: AUTH_ISSUER must not carry a query or a fragment');
  if (!e.AUTH_AUDIENCE) {
    throw new ConfigError('Invalid configuration: AUTH_AUDIENCE must be set with AUTH_ISSUER (the audience your identity provider puts in tokens for holdfast)');
  }
  const given = e.AUTH_ISSUER.trim();
  const issuer = given.endsWith(DISCOVERY_SUFFIX) ? given.slice(0, -DISCOVERY_SUFFIX.length) : given;
  return {
    issuer: {
      issuer,
      discoveryUrl: `${issuer.replace(/\/$/, '')}${DISCOVERY_SUFFIX}`,
      audience: list(e.AUTH_AUDIENCE),
      algorithms: list(e.AUTH_ALGORITHMS),
      clockSkewSeconds: e.AUTH_CLOCK_SKEW_SECONDS,
      jwksCooldownMs: e.AUTH_JWKS_COOLDOWN_MS,
      allowPlainHttp,
    },
    roleClaim: e.AUTH_ROLE_CLAIM,
    roleMap,
  };
}

// --- end of the issuer block ---

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
