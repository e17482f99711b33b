import {
  auditEntryObject, emptyBody, errorBody, errorCode, eventObject, holdItem, holdObject, orderObject, paymentObject, reconcileReportObject, responses,
  salesObject, seatObject, webhookDeliveryObject, webhookObject, z,
} from '@holdfast/contracts';
import { responsesOf, type Endpoint } from './endpoint';
import { formatBytes, JSON_BODY_LIMIT_BYTES } from './middleware/body';

type Schema = z.ZodType;

/** The order of the document's tags (and of its readable page). */
const TAGS = ['Operations', 'Auth', 'Events', 'Waiting room', 'Holds', 'Confirming', 'Orders', 'Pages', 'Admin'];

/** Shared objects, named in components.schemas and referenced from the operations. */
const NAMED: Record<string, Schema> = {
  Error: errorBody, ErrorCode: errorCode, Hold: holdObject, HoldItem: holdItem, Order: orderObject, Event: eventObject, Seat: seatObject,
  Payment: paymentObject, AuditEntry: auditEntryObject, Sales: salesObject, ReconcileReport: reconcileReportObject, EmptyBody: emptyBody,
  Webhook: webhookObject, WebhookDelivery: webhookDeliveryObject,
};

type Json = Record<string, unknown>;

function clean(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The OpenAPI 3.1 document of the endpoints an app serves: rendered from the
 * same entries the routers are mounted from (mount-endpoints.ts), with the zod
 * schemas that validate the requests (and describe the answers).
 */
export function buildOpenApi(endpoints: readonly Endpoint[], opts: { version?: string } = {}): Json {
  const rank = (tag: string) => (TAGS.includes(tag) ? TAGS.indexOf(tag) : TAGS.length);
  const routes = [...endpoints].sort((a, b) => rank(a.tag) - rank(b.tag));
  const registry = z.registry<{ id: string }>();
  for (const [id, s] of Object.entries(NAMED)) registry.add(s, { id });
  const refOf = new Map<Schema, string>();
  const name = (s: Schema, id: string) => {
    const known =
      Object.entries(NAMED).find(([, v]) => v === s)?.[0] ??
      refOf.get(s) ??
      Object.entries(responses).find(([, v]) => v === s)?.[0];
    if (known && !NAMED[known] && !refOf.has(s)) {
      // A shared response shape, named after its key in `responses`.
      const id = `${cap(known)}Response`;
      registry.add(s, { id });
      refOf.set(s, id);
      return id;
    }
    if (known) return known;
    registry.add(s, { id });
    refOf.set(s, id);
    return id;
  };
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const op: Json = { operationId: r.operationId, tags: [r.tag], summary: r.summary };
    if (r.roles) {
      op.security = [{ bearer: [] }];
      op.description = `Roles: ${r.roles.join(', ')}.`;
      op['x-roles'] = r.roles;
    }
    const parameters: Json[] = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (r.query) {
      for (const [key, field] of Object.entries(r.query.shape)) {
        const schema = clean(z.toJSONSchema(field as Schema, { io: 'input', unrepresentable: 'any' }) as Json);
        parameters.push({ name: key, in: 'query', required: !(field as Schema).safeParse(undefined).success, schema });
      }
    }
    for (const h of r.headers ?? []) parameters.push({ name: h.name, in: 'header', required: h.required, description: h.description, schema: { type: 'string' } });
    if (r.idempotent) {
      parameters.push({
        name: 'Idempotency-Key', in: 'header', required: false,
        description: 'Replays the first answer for 24 hours (header `Idempotent-Replayed: true`) when the same principal sends the same key and body; 422 IDEMPOTENCY_KEY_REUSED with another body; 409 IDEMPOTENCY_IN_PROGRESS while the first runs. 5xx and 429 answers are not kept. A request that has not answered within its lease (a hold: HOLD_IDEMPOTENCY_LEASE_MS, 10 s; a confirm: 60 s) no longer blocks the key: the next request with it runs in its place, and a hold\'s gets the hold the first took, if it took one.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
      });
    }
    if (parameters.length) op.parameters = parameters;
    const body = r.body ?? r.signedBody;
    if (body) {
      op.requestBody = {
        ...(r.bodyLimitBytes !== undefined
          ? { description: `Up to ${r.bodyLimitBytes} bytes (${formatBytes(r.bodyLimitBytes)}); every other endpoint reads up to ${JSON_BODY_LIMIT_BYTES}.` }
          : {}),
        required: !body.safeParse(undefined).success,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name(body, `${cap(r.operationId)}Body`)}` } } },
      };
    }
    op.responses = Object.fromEntries(
      Object.entries(responsesOf(r)).map(([status, resp]) => {
        const out: Json = { description: resp.description };
        if (resp.schema) {
          out.content = { 'application/json': { schema: { $ref: `#/components/schemas/${name(resp.schema, `${cap(r.operationId)}${status}`)}` } } };
        } else if (resp.contentType) {
          out.content = { [resp.contentType]: { schema: { type: 'string' } } };
        }
        return [status, out];
      }),
    );
    (paths[r.path] ??= {})[r.method] = op;
  }
  const converted = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, io: 'input', unrepresentable: 'any' });
  const schemas = Object.fromEntries(Object.entries(converted.schemas).map(([k, v]) => [k, clean(v as Json)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'holdfast API',
      version: opts.version ?? '1',
      description:
        'Two-phase hold-and-confirm booking. Every non-2xx answer has the body `{"error": {"code", "message", "details"?}}`. ' +
        'Lists take `limit` (default 100, max 1000) and `cursor` and answer `nextCursor` (null on the last page).',
    },
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((t) => ({ name: t })),
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (HS256; claims sub, role)' } },
    },
  };
}
