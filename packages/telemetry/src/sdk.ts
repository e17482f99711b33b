// The OpenTelemetry SDK, started only when OTEL_EXPORTER_OTLP_ENDPOINT is set:
// its packages are required here, inside startTelemetry, so a process with
// tracing off never loads them. Call it before anything requires express,
// ioredis or pg: the instrumentations hook `require` and patch those modules as
// they load (the compiled build keeps every npm package a run-time `require`,
// scripts/bundle.mjs, so this holds there too).
import type { IncomingMessage } from 'node:http';
import { tracing } from './state';

type SdkNode = typeof import('@opentelemetry/sdk-trace-node');
type Resources = typeof import('@opentelemetry/resources');
type OtlpHttp = typeof import('@opentelemetry/exporter-trace-otlp-http');
type OtlpProto = typeof import('@opentelemetry/exporter-trace-otlp-proto');
type Instrumentation = typeof import('@opentelemetry/instrumentation');
type Http = typeof import('@opentelemetry/instrumentation-http');
type Express = typeof import('@opentelemetry/instrumentation-express');
type IORedis = typeof import('@opentelemetry/instrumentation-ioredis');
type Pg = typeof import('@opentelemetry/instrumentation-pg');

/** What packages/config reads from OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL and OTEL_SERVICE_NAME. */
export interface TelemetrySettings {
  /** The collector's base URL (spans go to `<endpoint>/v1/traces`); null: tracing off. */
  endpoint: string | null;
  protocol: 'http/protobuf' | 'http/json';
  /** null: the caller's default (holdfast-api, holdfast-worker). */
  serviceName: string | null;
}

export interface TelemetryHandle {
  serviceName: string;
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

/** The longest shutdown waits for the last spans to be exported. */
const SHUTDOWN_WAIT_MS = 3000;

/** Probes and scrapes would fill a trace backend with nothing to see. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** `EVALSHA [13 arguments]`: the command without its arguments (hold records name customers). */
const redisStatement = (command: string, args: unknown[]) => `${command.toUpperCase()} [${args.length} arguments]`;

/**
 * Registers the SDK (W3C trace context, AsyncLocalStorage context, a batching
 * OTLP/HTTP exporter) and the HTTP, Express, ioredis and pg instrumentations,
 * and turns our own spans on. Returns null, having loaded nothing, when no
 * endpoint is set.
 */
export function startTelemetry(settings: TelemetrySettings, defaultServiceName: string): TelemetryHandle | null {
  if (!settings.endpoint) return null;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as SdkNode;
  const { resourceFromAttributes } = require('@opentelemetry/resources') as Resources;
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as Instrumentation;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as Http;
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as Express;
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as IORedis;
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as Pg;
  const url = `${settings.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const exporter = settings.protocol === 'http/json'
    ? new (require('@opentelemetry/exporter-trace-otlp-http') as OtlpHttp).OTLPTraceExporter({ url })
    : new (require('@opentelemetry/exporter-trace-otlp-proto') as OtlpProto).OTLPTraceExporter({ url });
  /* eslint-enable @typescript-eslint/no-require-imports */
  const serviceName = settings.serviceName ?? defaultServiceName;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req: IncomingMessage) => QUIET_PATHS.has((req.url ?? '').split('?')[0]!) }),
      new ExpressInstrumentation(),
      // Only inside a trace: BullMQ's polling would otherwise start a trace per command.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  tracing.enabled = true;
  return {
    serviceName,
    async shutdown() {
      tracing.enabled = false;
      // A collector that does not answer must not hold up the process's exit.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([provider.shutdown(), new Promise((r) => (timer = setTimeout(r, SHUTDOWN_WAIT_MS)))]);
      clearTimeout(timer);
    },
  };
}
