// The bench vacuums its database before each part (bench-database.service.ts, vacuumDatabase):
// checked on the real PostgreSQL, in a schema of this test's own.
import { Client } from 'pg';
import { benchDatabaseUrl, ensureDatabase, prepareDatabase, vacuumDatabase } from '../src/bench-database.service';

const schema = `bench_vacuum_${process.pid}`;
let client: Client;

beforeAll(async () => {
  await ensureDatabase(benchDatabaseUrl());
  client = new Client({ connectionString: benchDatabaseUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
});
afterAll(async () => {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

test('when rows were deleted, then vacuumDatabase leaves no dead rows behind and the table reads vacuumed', async () => {
  await client.query(`CREATE TABLE ${schema}.churn (id int PRIMARY KEY, pad text)`);
  await client.query(`INSERT INTO ${schema}.churn SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g`);
  await client.query(`DELETE FROM ${schema}.churn`);
  const seconds = await vacuumDatabase(benchDatabaseUrl());
  expect(seconds).toBeGreaterThan(0);
  // The statistics reach pg_stat_user_tables shortly after the VACUUM that wrote them.
  let row: { vacuumed: boolean; dead: string } | undefined;
  for (let i = 0; i < 40; i++) {
    row = (await client.query(`SELECT last_vacuum IS NOT NULL AS vacuumed, n_dead_tup::text AS dead
      FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'churn'`, [schema])).rows[0];
    if (row?.vacuumed && row.dead === '0') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(row).toEqual({ vacuumed: true, dead: '0' });
});

test('when the API\'s database does not exist yet (a new machine), then prepareDatabase makes it and vacuums it', async () => {
  const name = `holdfast_bench_fresh_${process.pid}`;
  const url = new URL(benchDatabaseUrl());
  url.pathname = `/${name}`;
  const exists = async (): Promise<boolean> =>
    ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0;
  await client.query(`DROP DATABASE IF EXISTS ${name}`);
  try {
    expect(await exists()).toBe(false);
    await expect(vacuumDatabase(url.toString())).rejects.toThrow(/does not exist/);
    const seconds = await prepareDatabase(url.toString());
    expect(seconds).toBeGreaterThanOrEqual(0);
    expect(await exists()).toBe(true);
    // Once it exists, preparing it again is the vacuum alone.
    await prepareDatabase(url.toString());
  } finally {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
});
