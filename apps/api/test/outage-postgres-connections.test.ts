import pg from 'pg';
import { useTestApi } from '@holdfast/test-kit';

// An API whose PostgreSQL refuses its connections: the server's connection limit is reached
// (here a role allowed none: PostgreSQL answers 53300, as it does at max_connections).
const role = `hf_nolimit_${process.pid}`;
const adminUrl = () => { const u = new URL(process.env.DATABASE_URL!); u.pathname = '/postgres'; return u.toString(); };
const asAdmin = async (sql: string) => {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try { await c.query(sql); } finally { await c.end(); }
};
beforeAll(() => asAdmin(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`));
const url = new URL(process.env.DATABASE_URL!);
url.username = role;
const { api } = useTestApi({ DATABASE_URL: url.toString() });
afterAll(() => asAdmin(`DROP ROLE IF EXISTS ${role}`));

test('when PostgreSQL refuses connections (its connection limit reached), then requests that need it answer 503 SERVICE_UNAVAILABLE, not 500', async () => {
  for (const [method, path, body, role] of [
    ['GET', '/v1/events', undefined, undefined],
    ['POST', '/v1/admin/events', { name: 'x', startsAt: '2027-01-01T00:00:00Z' }, 'admin'],
  ] as const) {
    const res = await api.call(method, path, { body, token: role ? api.token(role) : undefined });
    expect({ path, status: res.status, code: res.body.error?.code, details: res.body.error?.details })
      .toEqual({ path, status: 503, code: 'SERVICE_UNAVAILABLE', details: { dependency: 'PostgreSQL' } });
  }
  expect((await api.call('GET', '/readyz')).status).toBe(503);
});
