// Traces: the spans holdfast makes itself (hold.script, confirm.batch,
// outbox.drain, job <name>) and the trace context a request hands to the jobs it
// schedules. Only @opentelemetry/api here; while tracing is off (no
// OTEL_EXPORTER_OTLP_ENDPOINT, so startTelemetry loaded no SDK) each call is one
// branch and runs the work as it is.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

import { tracing } from './state';

export { startTelemetry, type TelemetryHandle, type TelemetrySettings } from './sdk';

/** Whether this process records and exports spans. */
export function tracingEnabled(): boolean {
  return tracing.enabled;
}

const tracer = () => trace.getTracer('holdfast');

function run<T>(span: Span, fn: (span: Span | null) => Promise<T>): Promise<T> {
  return fn(span).then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      span.end();
      throw err;
    },
  );
}

/**
 * Runs `fn` inside a span of that name, a child of the active span (and the
 * active span for what `fn` calls): ended when `fn` settles, marked as an error
 * when it throws. With tracing off, `fn(null)` and nothing else.
 */
export function withSpan<T>(name: string, attributes: Attributes | undefined, fn: (span: Span | null) => Promise<T>): Promise<T> {
  if (!tracing.enabled) return fn(null);
  return tracer().startActiveSpan(name, { attributes }, (span) => run(span, fn));
}

/**
 * Names the active request's server span by its route (`POST
 * /v1/events/:eventId/holds`, and `http.route`), as the Express instrumentation
 * does for the requests Express serves: the API's fast path calls it for those
 * it serves itself. Nothing while tracing is off.
 */
export function nameRequestSpan(method: string, route: string): void {
  if (!tracing.enabled) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttribute('http.route', route);
  span.updateName(`${method} ${route}`);
}

/**
 * The active trace context as BullMQ's job option `telemetry.metadata` carries
 * it (a JSON object of W3C headers, `traceparent` and maybe `tracestate`, as
 * BullMQ's own telemetry writes it); undefined when tracing is off or no span is active.
 */
export function injectTraceContext(): string | undefined {
  if (!tracing.enabled || !trace.getSpan(context.active())) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? JSON.stringify(carrier) : undefined;
}

/** The context a carrier from injectTraceContext names (the active one when it names none). */
export function extractTraceContext(metadata: string | undefined): Context {
  if (!metadata) return context.active();
  let carrier: unknown;
  try {
    carrier = JSON.parse(metadata);
  } catch {
    return context.active();
  }
  if (typeof carrier !== 'object' || carrier === null) return context.active();
  return propagation.extract(context.active(), carrier as Record<string, string>);
}

/**
 * Runs a job inside its span `job <name>` (kind consumer), a child of the trace
 * context the job was scheduled in (`telemetry.metadata`), else a new trace.
 */
export function withJobSpan<T>(
  job: { name: string; id?: string; queueName: string; attemptsMade: number; opts: { telemetry?: { metadata?: string } } },
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracing.enabled) return fn();
  const parent = extractTraceContext(job.opts.telemetry?.metadata);
  return tracer().startActiveSpan(`job ${job.name}`, {
    kind: SpanKind.CONSUMER,
    attributes: {
      'messaging.system': 'bullmq',
      'messaging.destination.name': job.queueName,
      'messaging.message.id': job.id ?? '',
      'holdfast.job.attempt': job.attemptsMade + 1,
    },
  }, parent, (span) => run(span, fn));
}
