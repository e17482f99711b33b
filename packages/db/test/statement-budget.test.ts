// Statement time limits on the real PostgreSQL: a statement past the query
// timeout fails as DatabaseUnavailable (the API answers 503), a known-long one
// inside bulkStatement may run longer, and connections whose statement timed
// out go back to the pool instead of staying checked out.
import { bulkStatement, createDb, DatabaseUnavailable, runTransaction, type Db } from '../src';

let db: Db;
beforeAll(() => {
  db = createDb(process.env.DATABASE_URL!, { poolSize: 2, queryTimeoutMillis: 300, connectionTimeoutMillis: 3000 });
});
afterAll(async () => { await db.$disconnect(); });

test('when a statement runs past the query timeout, then it fails as DatabaseUnavailable', async () => {
  const started = Date.now();
  await expect(runTransaction(db, (tx) => tx.$queryRaw`SELECT pg_sleep(2)`)).rejects.toBeInstanceOf(DatabaseUnavailable);
  expect(Date.now() - started).toBeLessThan(1900);
});

test('when a known-long statement runs inside bulkStatement, then it may take longer than the query timeout, and the next statement has the short limit again', async () => {
  const rows = await runTransaction(db, (tx) => bulkStatement(tx, () => tx.$queryRaw<{ ok: number }[]>`SELECT 1 AS ok FROM pg_sleep(0.6)`, 5000));
  expect(rows).toEqual([{ ok: 1 }]);
  await expect(runTransaction(db, (tx) => tx.$queryRaw`SELECT pg_sleep(2)`)).rejects.toBeInstanceOf(DatabaseUnavailable);
});

test('when more transactions time out than the pool has connections, then the pool still serves: none stays checked out', async () => {
  for (let i = 0; i < 5; i++) {
    await expect(runTransaction(db, async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      await tx.$queryRaw`SELECT pg_sleep(2)`;
    })).rejects.toBeInstanceOf(DatabaseUnavailable);
  }
  const rows = await Promise.all([1, 2, 3].map(() => runTransaction(db, (tx) => tx.$queryRaw<{ n: number }[]>`SELECT 1 AS n`)));
  expect(rows).toEqual([[{ n: 1 }], [{ n: 1 }], [{ n: 1 }]]);
});

test('when the client takes longer than the idle-in-transaction timeout to prepare a bulk statement, then the session lives on, and outside one it is ended', async () => {
  const idle = createDb(process.env.DATABASE_URL!, { poolSize: 1, idleInTransactionTimeoutMillis: 300, connectionTimeoutMillis: 3000 });
  const pause = () => new Promise((resolve) => setTimeout(resolve, 1200));
  try {
    const rows = await runTransaction(idle, (tx) => bulkStatement(tx, async () => {
      await pause(); // the client preparing 100,000 seats' parameters
      return tx.$queryRaw<{ ok: number }[]>`SELECT 1 AS ok`;
    }, 5000));
    expect(rows).toEqual([{ ok: 1 }]);
    await expect(runTransaction(idle, async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      await pause();
      return tx.$queryRaw`SELECT 1`;
    })).rejects.toThrow();
  } finally {
    await idle.$disconnect();
  }
});
