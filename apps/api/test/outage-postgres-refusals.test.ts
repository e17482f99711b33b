// An API whose PostgreSQL is up but refuses what it asks, each shown with a role of its own:
// its connections (the connection limit reached: 53300, as at max_connections), or its writes
// (a server taking no writes: 25006, as a hot standby, or a primary a failover left read-only).
import pg from 'pg';
import { useTestApi } from '@holdfast/test-kit';

const noConnections = `hf_noconn_${process.pid}`;
const readOnly = `hf_readonly_${process.pid}`;
const asAdmin = async (...statements: string[]) => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try { for (const sql of statements) await c.query(sql); } finally { await c.end(); }
};
const as = (role: string) => { const u = new URL(process.env.DATABASE_URL!); u.username = role; return u.toString(); };

beforeAll(() => asAdmin(
  `CREATE ROLE ${noConnections} LOGIN CONNECTION LIMIT 0`,
  `CREATE ROLE ${readOnly} LOGIN SUPERUSER`,
  `ALTER ROLE ${readOnly} SET default_transaction_read_only = on`,
));
const { api: refused } = useTestApi({ DATABASE_URL: as(noConnections) });
const { api: standby } = useTestApi({ DATABASE_URL: as(readOnly) });
afterAll(() => asAdmin(`DROP ROLE IF EXISTS ${noConnections}`, `DROP ROLE IF EXISTS ${readOnly}`));

const unavailable = { status: 503, code: 'SERVICE_UNAVAILABLE', details: { dependency: 'PostgreSQL' } };
const createEvent = { name: 'x', startsAt: '2027-01-01T00:00:00Z' };

test('when PostgreSQL refuses connections (its connection limit reached), then requests that need it answer 503 SERVICE_UNAVAILABLE, not 500', async () => {
  for (const [method, path, body, role] of [
    ['GET', '/v1/events', undefined, undefined],
    ['POST', '/v1/admin/events', createEvent, 'admin'],
  ] as const) {
    const res = await refused.call(method, path, { body, token: role ? refused.token(role) : undefined });
    expect({ path, status: res.status, code: res.body.error?.code, details: res.body.error?.details }).toEqual({ path, ...unavailable });
  }
  expect((await refused.call('GET', '/readyz')).status).toBe(503);
});

test('when PostgreSQL takes no writes (read-only, as a standby), then a write answers 503 SERVICE_UNAVAILABLE, not 500, and reads still answer', async () => {
  const created = await standby.call('POST', '/v1/admin/events', { token: standby.token('admin'), body: createEvent });
  expect({ status: created.status, code: created.body.error?.code, details: created.body.error?.details }).toEqual(unavailable);
  expect((await standby.call('GET', '/v1/events')).status).toBe(200);
});
