import pg from 'pg';
import { dropIsolatedDatabases, recreateIsolatedDatabases } from '../packages/test-kit/src/isolated-database';

// Copies of their own (names no suite uses) of a template of their own, made and dropped here: the
// suites' copies are not touched, and the test database is not copied while other suites use it
// (PostgreSQL copies a template only while nobody else is connected to it).
const testUrl = process.env.DATABASE_URL!;
const template = `${decodeURIComponent(new URL(testUrl).pathname.slice(1))}_copycheck${process.pid}`;
const url = (() => {
  const u = new URL(testUrl);
  u.pathname = `/${template}`;
  return u.toString();
})();
const names = ['a', 'b'];
const copies = names.map((n) => `${template}_${n}`);

/** Runs `work` on a connection to `database` on the test database's server. */
async function onDatabase<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const u = new URL(testUrl);
  u.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const existing = () => onDatabase('postgres', async (c) => (await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = ANY($1) ORDER BY datname', [copies])).rows.map((r) => r.datname));
const auditRowsIn = (database: string) => onDatabase(database, async (c) => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_entries')).rows[0]!.n);

beforeAll(async () => {
  await onDatabase('postgres', async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${template}"`);
  });
  await onDatabase(template, (c) => c.query('CREATE TABLE audit_entries (id uuid PRIMARY KEY, actor text NOT NULL, action text NOT NULL)'));
});

afterAll(async () => {
  await dropIsolatedDatabases(url, names);
  await onDatabase('postgres', (c) => c.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`));
});

test('when the setup makes the copies again, then each is a fresh copy of its template (what an earlier run wrote is gone), and the teardown drops them all, even one held open', async () => {
  await recreateIsolatedDatabases(url, names);
  expect(await existing()).toEqual([...copies].sort());
  const fresh = await auditRowsIn(copies[0]!);

  // An earlier run's rows in a copy.
  await onDatabase(copies[0]!, (c) => c.query(`INSERT INTO audit_entries (id, actor, action) VALUES (gen_random_uuid(), 'test', 'copies.check')`));
  expect(await auditRowsIn(copies[0]!)).toBe(fresh + 1);

  await recreateIsolatedDatabases(url, names);
  expect(await auditRowsIn(copies[0]!)).toBe(fresh);

  // A session left open in a copy (a suite's pool that was not closed) does not stop the drop.
  const u = new URL(testUrl);
  u.pathname = `/${copies[1]}`;
  const straggler = new pg.Client({ connectionString: u.toString() });
  straggler.on('error', () => undefined);
  await straggler.connect();
  await dropIsolatedDatabases(url, names);
  expect(await existing()).toEqual([]);
  await straggler.end().catch(() => undefined);
});
