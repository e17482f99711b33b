import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig, type Config } from '@holdfast/config';
import { masters } from '@holdfast/hold-store';
import { createApiRuntime, signToken, type ApiRuntime } from '@holdfast/api';

export interface TestApi {
  url: string;
  rt: ApiRuntime;
  config: Config;
  token(role: 'customer' | 'service' | 'admin', sub?: string): string;
  /** fetch against the API with JSON in and out. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of any answer
  call(method: string, path: string, opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** Starts the real app on port 0 against the real PostgreSQL and Redis. */
export async function startApi(env: Record<string, string> = {}): Promise<TestApi> {
  const config = loadConfig({ ...process.env, ...env });
  const rt = await createApiRuntime(config);
  const server: Server = await new Promise((resolve) => {
    const s = rt.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.keepAliveTimeout = 1000;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, rt, config,
    token: (role, sub = `${role}-${Math.random().toString(36).slice(2)}`) => signToken(config.jwtSecret, sub, role),
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined;
      if (opts.raw !== undefined) body = opts.raw;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: the test sees the raw text */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await rt.close();
    },
  };
}

export interface SeatSpec { section: string; row: string; number: number; tier: string; priceCents: number }

/** A grid of seats: sections × rows × numbers, one tier and price unless told. */
export function seatGrid(sections: string[], rows: number, perRow: number, tier = 'standard', priceCents = 5000): SeatSpec[] {
  const seats: SeatSpec[] = [];
  for (const section of sections)
    for (let r = 1; r <= rows; r++)
      for (let n = 1; n <= perRow; n++) seats.push({ section, row: String(r), number: n, tier, priceCents });
  return seats;
}

/** Creates an event through the admin API and returns it with its seats. */
export async function createTestEvent(api: TestApi, body: Record<string, unknown>) {
  const res = await api.call('POST', '/v1/admin/events', {
    token: api.token('admin'),
    body: { name: 'Test event', startsAt: '2027-01-01T19:00:00Z', ...body },
  });
  if (res.status !== 201) throw new Error(`event creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const seats = await api.call('GET', `/v1/events/${res.body.event.id}/seats`);
  return { event: res.body.event, seats: seats.body.seats as { id: string; label: string; status: string; tier: string; priceCents: number }[] };
}

/** Removes an event's rows and Redis keys after a test. */
export async function dropTestEvent(api: TestApi, eventId: string): Promise<void> {
  const db = api.rt.db;
  await db.$executeRaw`DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE event_id = ${eventId}::uuid)`;
  await db.$executeRaw`DELETE FROM payments WHERE event_id = ${eventId}::uuid OR hold_id IN (SELECT id FROM holds WHERE event_id = ${eventId}::uuid)`;
  await db.$executeRaw`DELETE FROM audit_entries WHERE event_id = ${eventId}::uuid`;
  await db.$executeRaw`DELETE FROM events WHERE id = ${eventId}::uuid`;
  let cursor = '0';
  do {
    const [next, keys] = await scanOn(api, cursor, 'MATCH', `{ev:${eventId}}*`, 'COUNT', 1000);
    if (keys.length) await api.rt.redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/**
 * For a suite: starts the API before all tests and, after them, drops every
 * event made through `newEvent` and closes the API.
 */
export function useTestApi(env: Record<string, string> = {}) {
  let api: TestApi | undefined;
  const events: string[] = [];
  beforeAll(async () => { api = await startApi(env); });
  afterAll(async () => {
    for (const id of events) await dropTestEvent(api!, id);
    await api!.close();
  });
  return {
    get api(): TestApi {
      return api!;
    },
    async newEvent(body: Record<string, unknown>) {
      const created = await createTestEvent(api!, body);
      events.push(created.event.id);
      return created;
    },
  };
}

/**
 * SCAN … MATCH over every master (the one Redis, or each master of a cluster),
 * whole: answers cursor '0' with every key found, so a caller's loop runs once.
 */
export async function scanOn(api: TestApi, _cursor: string, _match: 'MATCH', pattern: string, _count: 'COUNT', count: number): Promise<[string, string[]]> {
  const found: string[] = [];
  for (const node of masters(api.rt.redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  return ['0', found];
}
