import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, flattened. */
export interface ReceivedSpan {
  service: string;
  /** The instrumentation scope that made it (e.g. `@opentelemetry/instrumentation-pg`, `holdfast`). */
  scope: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean }
interface OtlpAttribute { key: string; value: OtlpValue }
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { scope?: { name?: string }; spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }[] }[];
  }[];
}

const valueOf = (v: OtlpValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? '';

const attributesOf = (list: OtlpAttribute[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/**
 * An OTLP/HTTP trace receiver on loopback (POST /v1/traces, answers 200 `{}`).
 * `keep: true` parses the JSON protocol (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)
 * into `spans`; `keep: false` reads and discards what comes (any protocol), counting requests
 * (and keeping their content types).
 */
export async function startOtlpReceiver(options: { keep: boolean } = { keep: true }): Promise<{
  endpoint: string; spans: ReceivedSpan[]; requests: number; contentTypes: string[]; close(): Promise<void>;
}> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const state = { requests: 0 };
  const server: Server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => { if (options.keep) chunks.push(c); });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      state.requests++;
      contentTypes.push(req.headers['content-type'] ?? '');
      if (options.keep) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service, scope: ss.scope?.name ?? '', traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '',
                name: s.name, kind: s.kind, attributes: attributesOf(s.attributes),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    get requests() { return state.requests; },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
