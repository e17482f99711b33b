import { errorBody } from '@holdfast/contracts';
import { responsesOf, type Endpoint, type ResponseDoc } from './endpoint';
import { ADMIN_ENDPOINTS } from './routes/admin.routes';
import { ADMIN_WEBHOOK_ENDPOINTS } from './routes/admin-webhooks.routes';
import { DEMO_AUTH_ENDPOINTS } from './routes/auth.routes';
import { DOCS_ENDPOINTS } from './routes/docs.routes';
import { EVENT_ENDPOINTS } from './routes/events.routes';
import { HEALTH_ENDPOINTS } from './routes/health.routes';
import { HOLD_ENDPOINTS } from './routes/holds.routes';
import { ORDER_ENDPOINTS } from './routes/orders.routes';
import { QUEUE_ENDPOINTS } from './routes/queues.routes';
import { RECONCILE_ENDPOINTS } from './routes/reconcile.routes';
import { STREAM_ENDPOINTS } from './routes/stream.routes';
import { WAITING_ROOM_ENDPOINTS } from './routes/waiting-room.routes';
import { WEB_ENDPOINTS } from './routes/web.routes';
import { DEMO_PAYMENT_ENDPOINTS, WEBHOOK_ENDPOINTS } from './routes/webhooks.routes';
import { WAITLIST_ENDPOINTS } from './routes/waitlist.routes';
import { CANCEL_ORDER_ENDPOINTS } from './routes/cancel-order.routes';

/**
 * The API's endpoints, each declared once in its routes file, by group: each
 * group is one router, mounted in this order (app.ts). The paths do not overlap,
 * so the order decides only how many routers a request walks through before its
 * own: the hot paths (holds, confirms) come first.
 */
export const ROUTE_GROUPS = {
  events: EVENT_ENDPOINTS,
  orders: ORDER_ENDPOINTS,
  holds: HOLD_ENDPOINTS,
  waitlist: WAITLIST_ENDPOINTS,
  waitingRoom: WAITING_ROOM_ENDPOINTS,
  webhooks: WEBHOOK_ENDPOINTS,
  health: HEALTH_ENDPOINTS,
  docs: DOCS_ENDPOINTS,
  demoAuth: DEMO_AUTH_ENDPOINTS,
  admin: [...ADMIN_ENDPOINTS, ...CANCEL_ORDER_ENDPOINTS],
  adminWebhooks: ADMIN_WEBHOOK_ENDPOINTS,
  reconcile: RECONCILE_ENDPOINTS,
  queues: QUEUE_ENDPOINTS,
  demoPayment: DEMO_PAYMENT_ENDPOINTS,
  stream: STREAM_ENDPOINTS,
  web: WEB_ENDPOINTS,
};
export type RouteGroup = keyof typeof ROUTE_GROUPS;
/** What each group's handlers need. */
export type RouteGroupDeps = { [G in RouteGroup]: (typeof ROUTE_GROUPS)[G] extends Endpoint<infer D>[] ? D : never };

/** Every endpoint, in mount order. An app serves the groups its configuration enables (the demo ones only in demo mode) and documents exactly those. */
export const ROUTE_TABLE: readonly Endpoint[] = Object.values(ROUTE_GROUPS).flat();

/** A documented path as Express matches it: `{param}` one segment, a trailing slash allowed, any case. */
const matcherOf = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}/?$`, 'i');
const MATCHERS = ROUTE_TABLE.map((e) => ({ e, method: e.method.toUpperCase(), re: matcherOf(e.path) }));

/** The endpoint that serves `METHOD /concrete/path` (a query string is ignored); HEAD is served by GET. */
export function endpointFor(method: string, path: string): Endpoint | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const p = path.split('?')[0]!;
  return MATCHERS.find((x) => x.method === m && x.re.test(p))?.e;
}

/**
 * What the table says `METHOD /concrete/path` answers with `status`: the
 * response (its schema or content type), or undefined when that status is not
 * documented for the endpoint. For a path no endpoint serves, the app's own
 * 404 NOT_FOUND (with the error body).
 */
export function responseSchemaFor(method: string, path: string, status: number): ResponseDoc | undefined {
  const e = endpointFor(method, path);
  if (!e) return status === 404 ? { description: 'NOT_FOUND: no such endpoint', schema: errorBody } : undefined;
  return responsesOf(e)[status];
}

/**
 * Throws, saying what differs, unless an answer is what the table documents for
 * its endpoint and status: its JSON body parsed by the declared schema (and no
 * field the schema does not name), or the declared content type. Paths no
 * endpoint serves (the dashboard's pages, assets) are checked only as far as an
 * error body goes.
 */
export function checkResponse(
  method: string, path: string, answer: { status: number; body: unknown; contentType?: string | null },
): void {
  const where = `${method.toUpperCase()} ${path} → ${answer.status}`;
  const e = endpointFor(method, path);
  if (!e && answer.status !== 404) return;
  const doc = responseSchemaFor(method, path, answer.status);
  if (!doc) {
    throw new Error(`${where}: status ${answer.status} is not documented for ${e!.method.toUpperCase()} ${e!.path} (documented: ${Object.keys(responsesOf(e!)).join(', ')})`);
  }
  const type = (answer.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (doc.schema) {
    if (type !== 'application/json') throw new Error(`${where}: documented as JSON, answered ${type || 'without a content type'}`);
    const parsed = doc.schema.safeParse(answer.body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
      throw new Error(`${where}: the body does not match the documented schema (${issues}): ${JSON.stringify(answer.body).slice(0, 500)}`);
    }
    const extra = extraField(answer.body, parsed.data, 'body');
    if (extra) throw new Error(`${where}: the body has a field the documented schema does not name: ${extra}`);
  } else if (doc.contentType && type && type !== doc.contentType) {
    throw new Error(`${where}: documented as ${doc.contentType}, answered ${type}`);
  }
}

/**
 * Where `parsed` (what the schema kept) and `body` differ, or null: zod drops the
 * fields a schema does not name, so a difference is a field the contract lacks.
 */
function extraField(body: unknown, parsed: unknown, path: string): string | null {
  if (Array.isArray(body) && Array.isArray(parsed)) {
    for (let i = 0; i < body.length; i++) {
      const found = extraField(body[i], parsed[i], `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  if (body && typeof body === 'object' && parsed && typeof parsed === 'object') {
    for (const [k, v] of Object.entries(body)) {
      if (!(k in parsed)) return `${path}.${k}`;
      const found = extraField(v, (parsed as Record<string, unknown>)[k], `${path}.${k}`);
      if (found) return found;
    }
  }
  return null;
}
