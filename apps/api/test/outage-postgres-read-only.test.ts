import pg from 'pg';
import { useTestApi } from '@holdfast/test-kit';

// An API whose PostgreSQL takes no writes: connected to a server that is (or became) a standby,
// or that a failover left read-only. Here a role whose transactions are read-only (PostgreSQL
// answers 25006, as a hot standby does).
const role = `hf_readonly_${process.pid}`;
const adminUrl = () => { const u = new URL(process.env.DATABASE_URL!); u.pathname = '/postgres'; return u.toString(); };
const asAdmin = async (sql: string) => {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try { await c.query(sql); } finally { await c.end(); }
};
beforeAll(async () => {
  await asAdmin(`CREATE ROLE ${role} LOGIN SUPERUSER`);
  await asAdmin(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
});
const url = new URL(process.env.DATABASE_URL!);
url.username = role;
const { api } = useTestApi({ DATABASE_URL: url.toString() });
afterAll(() => asAdmin(`DROP ROLE IF EXISTS ${role}`));

test('when PostgreSQL takes no writes (read-only, as a standby), then a write answers 503 SERVICE_UNAVAILABLE, not 500, and reads still answer', async () => {
  const created = await api.call('POST', '/v1/admin/events', { token: api.token('admin'), body: { name: 'x', startsAt: '2027-01-01T00:00:00Z' } });
  expect({ status: created.status, code: created.body.error?.code, details: created.body.error?.details })
    .toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', details: { dependency: 'PostgreSQL' } });
  expect((await api.call('GET', '/v1/events')).status).toBe(200);
});
