import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createRedisClient } from '../packages/hold-store/src/redis-client';
import { isolatedDatabaseUrl } from '../packages/test-kit/src/isolated-database';
import { describeLeftovers, leftovers, snapshot } from '../packages/test-kit/src/leftovers';

// A database of this suite's own: the check counts rows, and on the shared test database another
// suite's cleanup running at the same moment (audit entries deleted) can hide the row added here.
const databaseUrl = isolatedDatabaseUrl('leftovers');
const redisUrl = process.env.REDIS_URL!;

test('when a suite leaves an event\'s key, an idempotency key, a hold\'s job and a row behind, then the run\'s check names each, and once they are gone it names none of them', async () => {
  const redis = createRedisClient({ redisUrl, redisClusterNodes: null });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const id = randomUUID();
  const hex = id.replace(/-/g, '');
  const counted = [`{ev:${id}}:ready`, `idem:${hex}${hex}`, `bull:holdfast-expiry:exp_hld_${hex}_aaaa_1`, `bull:holdfast-webhooks:wh_${id}`];
  const queueOwn = `bull:holdfast-expiry:meta-${id}`;
  try {
    const before = await snapshot(databaseUrl, redisUrl);
    for (const k of [...counted, queueOwn]) await redis.set(k, '1', 'EX', 60);
    await db.query(`INSERT INTO audit_entries (id, actor, action) VALUES ($1, 'test', 'leftovers.check')`, [id]);

    const left = await leftovers(before, databaseUrl, redisUrl);
    expect(left.keys).toEqual(expect.arrayContaining(counted));
    // A queue's own keys are not counted: every run shares them.
    expect(left.keys).not.toContain(queueOwn);
    expect(left.rows.get('audit_entries')).toBeGreaterThanOrEqual(1);
    expect(describeLeftovers(left)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^table audit_entries: \d+ more row\(s\) than before the run$/),
      expect.stringMatching(/^key \{ev:<uuid>\}:ready: \d+ \(e\.g\. \{ev:.*\}:ready\)$/),
      expect.stringMatching(/^key idem:<hex>: \d+/),
      expect.stringMatching(/^key bull:holdfast-expiry:exp_hld_<hex>_aaaa_1: \d+/),
    ]));

    await redis.del(...counted, queueOwn);
    await db.query('DELETE FROM audit_entries WHERE id = $1', [id]);
    const after = await leftovers(before, databaseUrl, redisUrl);
    for (const k of counted) expect(after.keys).not.toContain(k);
  } finally {
    await redis.del(...counted, queueOwn);
    await db.query('DELETE FROM audit_entries WHERE id = $1', [id]);
    await db.end();
    redis.disconnect();
  }
});

test('when a run makes a year\'s order-number row (the first confirm on a new database), then the check does not name it: every run shares it', async () => {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  // A year no other suite numbers orders in.
  const year = 2400 + Math.floor(Math.random() * 500);
  try {
    const before = await snapshot(databaseUrl, redisUrl);
    await db.query('INSERT INTO order_sequences (year, last_value) VALUES ($1, 1)', [year]);

    const left = await leftovers(before, databaseUrl, redisUrl);
    expect(left.rows.has('order_sequences')).toBe(false);
    expect(describeLeftovers(left).filter((line) => line.includes('order_sequences'))).toEqual([]);
  } finally {
    await db.query('DELETE FROM order_sequences WHERE year = $1', [year]);
    await db.end();
  }
});
